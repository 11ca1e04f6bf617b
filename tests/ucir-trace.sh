#!/bin/sh
# usercorn's trace format (usercorn run -trace): a long trace whose ops
# cross the 64 KiB Snappy chunks, compressed and stored chunks, padding,
# skippable chunks and repeated identifiers, frames of other pids, all
# decoded as the generator made them; gzip around it; without libsnappy a
# compressed chunk is refused with a message naming the library; the
# text encodes into a replay (what it cannot hold skipped and counted).
. "$srcdir/tests/tap.sh"

gen-ucir --format trace --frames 3000 --ops 60 --seed 9 --text big.want > big.ucir
ucir2txt big.ucir > big.txt
ok $? "a trace of $(wc -c < big.ucir) bytes decodes"
same_file big.txt big.want "every record as the generator made it"
gzip -c big.ucir | ucir2txt | cmp -s - big.txt
ok $? "gzip-compressed, the same"
grep -q '^ucir-frame tid=42 ' big.txt; ok $? "frames of pid 42 give tid=42"
grep -q '^read tid=42 .* size=[0-9]*$' big.txt; ok $? "reads without data (the trace format has none)"

# Compressed chunks need libsnappy.
first=$(od -An -tx1 -j 84 -N 1 big.ucir | tr -d ' ')
if [ "$first" = 00 ]; then
	# A compressed chunk: decoded, or (built
	# without libsnappy) refused with exit 2 and a message naming it.
	ucir2txt big.ucir > /dev/null 2> err.txt
	rc=$?
	if [ $rc -eq 0 ]; then
		ok 0 "compressed chunks decode (built with libsnappy)"
	else
		[ $rc -eq 2 ] && grep -q 'built without libsnappy (Debian: libsnappy-dev)' err.txt
		ok $? "without libsnappy: exit 2 naming the library: $(cat err.txt)"
	fi
else
	# Built without libsnappy: a compressed chunk made by hand (the
	# literal "AB", its masked CRC-32C) after the header and the stream
	# identifier is refused with exit 2 and a message naming the library.
	{ head -c 84 big.ucir; printf '\000\010\000\000\000\146\130\054\002\004AB'; } > cz.ucir
	ucir2txt cz.ucir > /dev/null 2> err.txt
	rc=$?
	[ $rc -eq 2 ] && grep -q 'built without libsnappy (Debian: libsnappy-dev)' err.txt
	ok $? "without libsnappy: exit 2 naming the library: $(cat err.txt)"
fi

# The text encodes into a replay, with what it cannot hold counted.
txt2ucir big.txt > r.ucir 2> warn.txt
ok $? "trace text encodes into a replay"
grep -q 'records skipped, not expressible in a Usercorn replay file (first at line [0-9]*: ucir-jmp' warn.txt
ok $? "jmp, prot and reads without data are skipped and counted: $(cat warn.txt)"
ucir2txt r.ucir > r.txt
ok $? "the replay decodes"
is "$(grep -c '^insn' r.txt)" "$(grep -c '^insn' big.txt)" "with every instruction"
is "$(grep -c '^write' r.txt)" "$(grep -c '^write' big.txt)" "and every write"
txt2ucir --strict big.txt > /dev/null 2> strict.txt
is $? 1 "--strict: exit 1"
grep -q "desc= or file=: a mapping's file, offset and description dropped" strict.txt; ok $? "--strict names the record: $(cat strict.txt)"
grep -q "records changed: a thread id dropped (the replay format has no threads) (first at line [0-9]*: tid=42)" warn.txt
ok $? "frames of pid 42 lose their thread in a replay, counted"

# --trace: the same text comes back (usercorn's trace format written).
txt2ucir --trace big.txt > t2.ucir 2> warn2.txt
ok $? "--trace: trace text encodes into a trace"
[ ! -s warn2.txt ]; ok $? "with nothing lost: $(cat warn2.txt)"
ucir2txt t2.ucir > t2.txt
same_file t2.txt big.txt "every record comes back"
od -An -tx1 -j 74 -N 10 t2.ucir | tr -d ' \n' > ident
is "$(cat ident)" ff060000734e61507059 "the Snappy stream identifier at offset 74"
done_testing
