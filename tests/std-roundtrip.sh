#!/bin/sh
# txt2std and std2txt: RAPID's STD text, both flavours, round trips and
# malformed lines.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/rapidbin
C=$(corpus rapidbin)

# Bare-number flavour in: std-header says so, and txt2std writes it back
# in that spelling with every event; without the record, the prefixed
# spelling RAPID's README uses.
std2txt "$D/bare.std" > b.txt
ok $? "std2txt reads the bare-number flavour"
is "$(head -4 b.txt)" "std-header operands=bare
write tid=6 var=4294967298 loc=59
fork tid=6 child=9 loc=49
request tid=6 lock=9 loc=51" "std2txt: the spelling, then the text records"
txt2std b.txt > b.std 2> err.txt
sed 's/end()/end/' "$D/bare.std" > want.std
same_file b.std want.std "bare flavour round trip, req and branch kept (end() read as end)"
is "$(cat err.txt)" "" "a stream of an STD file: nothing dropped, nothing said"
grep -v '^std-header' b.txt > b2.txt
txt2std --all b2.txt > b.std
same_file b.std "$D/bare.prefixed.std" "bare flavour without std-header -> prefixed STD"
std2txt "$D/bare.prefixed.std" | txt2std > p.std
same_file p.std "$D/bare.prefixed.std" "prefixed STD round trip"
printf 'T1|begin|0\nT1|w(V5)|1\nT1|r(5)|2\nT1|acq(L3)|3\n' > mixed.std
std2txt mixed.std | txt2std > m.std
same_file m.std mixed.std "spellings mixed in one file: each line comes back as it was"

# A stream of an STD file is written as it is read, its ids as they are:
# an access by address cannot join it untagged (its variable could be
# one of those written), tagged it can, and the two inputs stay apart.
std2txt "$D/bare.prefixed.std" > s1.txt
{ cat s1.txt; echo 'read tid=0 addr=0x10 size=4'; } | txt2std > o.std 2> err.txt
is "$?:$(wc -l < o.std | tr -d ' '):$(cat err.txt)" "1:10:txt2std: <stdin>:12: an access by address, in a stream that began as one of the target's own format and is written as it is read: tag the inputs apart (txtmerge --tag)" \
    "an STD file's stream, then an access by address: the events before, and what to do"
{ cat "$D/allops.txt"; echo 'read tid=0 var=5 input=0'; echo 'read tid=0 var=1 input=1'; } | txt2std --all > o.std 2> err.txt
is "$?:$(wc -l < o.std | tr -d ' '):$(cat err.txt)" "1:13:txt2std: <stdin>:15: another input, in a stream that began as one of the target's own format and is written as it is read: tag the inputs apart (txtmerge --tag)" \
    "a RapidBin file's stream is written as read too: another input joining it is refused"
echo 'read tid=0 addr=0x10 size=4 pc=0x400' > acc.txt
txtmerge --tag s1.txt acc.txt | txt2std --all > o.std 2> err.txt
is "$?:$(cat err.txt):$(head -1 o.std):$(tail -1 o.std)" "0::T0|w(V0)|0:T2|r(V1)|9" "tagged: both inputs, ids renumbered by (input, id), none shared"

# Request and branch events: dropped with a count, or kept.
txt2std b2.txt > d.std 2> err.txt
is "$(grep -c 'req\|branch' d.std)" 0 "default: req and branch dropped"
is "$(cat err.txt)" "txt2std: dropped 1 request event (mainline RAPID cannot parse req; --keep-request keeps them)
txt2std: dropped 1 branch event (mainline RAPID cannot parse branch; --all keeps them)" "default: the drops are counted"
txt2std -q b2.txt > /dev/null 2> err.txt
is "$(cat err.txt)" "" "-q: no counts"
txt2std --keep-request b2.txt > r.std 2> /dev/null
is "$(grep -c 'req' r.std):$(grep -c 'branch' r.std)" "1:0" "--keep-request keeps req only"
is "$(txt2std "$srcdir/tests/data/rapidbin/allops.txt" 2> /dev/null | head -3)" "T0|acq(L3)|362
T1|rel(L3)|363
T2|r(V200)|923" "txt2std on decoded text"

# Through RapidBin and back.
std2txt "$D/bare.prefixed.std" | txt2rapidbin | rapidbin2txt | txt2std --all > rb.std
same_file rb.std "$D/bare.prefixed.std" "STD -> text -> RapidBin -> text -> STD"

if [ -n "$C" ]; then
	# Every STD file of the corpus, both flavours: byte for byte, with
	# default options.
	for f in "$C"/decoded/*.decoded.std "$C"/std/*.spd-flavor.std \
	    "$C"/synthetic/wasmgrind_encoder_testvector.wasmgrind-std.txt; do
		std2txt "$f" | txt2std > rt.std
		same_file rt.std "$f" "$(basename "$f"): std2txt | txt2std reproduces it"
	done
	for f in "$C"/std/*.spd-flavor.std; do
		std2txt "$f" > s.txt
		is "$?:$(grep -vc '^std-header' s.txt)" "0:$(wc -l < "$f" | tr -d ' ')" "$(basename "$f"): one record per line"
		# The prefixed spelling of the same file, made with sed.
		sed -e 's/|\(acq\|rel\|req\)(\([0-9]\)/|\1(L\2/' -e 's/|\([rw]\)(\([0-9]\)/|\1(V\2/' \
		    -e 's/|\(fork\|join\)(\([0-9]\)/|\1(T\2/' "$f" > want.std
		grep -v '^std-header' s.txt | txt2std --all > got.std
		same_file got.std want.std "$(basename "$f"): without std-header, the prefixed spelling of the same events"
	done
else
	skip "no shared corpus" "STD corpus round trips"
fi

# Malformed lines: exit 1, line and column, the lines before are written.
bad() {	# LINE MESSAGE NAME
	printf 'T0|acq(L1)|2\n\n%s\nT0|rel(L1)|3\n' "$1" > bad.std
	std2txt bad.std > out.txt 2> err.txt
	is "$?:$(cat err.txt)" "1:std2txt: bad.std:3:$2" "$3"
	is "$(cat out.txt)" "std-header operands=prefixed
acquire tid=0 lock=1 loc=2" "$3: the lines before are written"
}
bad 'X0|acq(L1)|2' '1: thread: expected T<number>' "bad thread"
bad 'T0|lock(L1)|2' '4: unknown operation (acq rel r w fork join begin end req branch)' "unknown op"
bad 'T0|acq(V1)|2' '8: expected a lock: L<number> or <number>' "wrong operand prefix"
bad 'T0|acq(L1|2' '10: expected '"')'"' after the operand' "missing )"
bad 'T0|acq(L1)|x' '12: location: expected a decimal number' "bad location"
bad 'T0|acq(L1)|2|' '13: more than three '"'|'"'-separated fields' "trailing |"
bad 'T0|acq(L1)' '4: expected three '"'|'"'-separated fields' "two fields"
bad 'T0|begin(5)|2' '9: unexpected text after the operation' "begin with an operand"
bad 'T0|r(V99999999999999999999)|2' '7: operand: the number overflows 64 bits' "operand overflow"

bad 'T0|acq(L1)|2147483648' '12: location: more than 2147483647, which RAPID'"'"'s Java int cannot hold' "location above 2^31-1"

# A location RAPID cannot read (Integer.parseInt) is refused, not written
# (a stream of an STD file is written as it is read: the lines before are).
printf 'std-header operands=prefixed\nacquire tid=0 lock=1 loc=2147483647\nrelease tid=0 lock=1 loc=2147483648\n' > big.txt
txt2std big.txt > big.std 2> err.txt
is "$?:$(cat big.std):$(cat err.txt)" '1:T0|acq(L1)|2147483647:txt2std: big.txt:3:26: field "loc": "2147483648": does not fit RAPID'"'"'s location, a Java int (max 2147483647)' \
    "txt2std: location above 2^31-1: error with line and column"

# An access by address is a variable, as txt2rapidbin maps it; text
# records STD cannot express are skipped and counted.
printf 'insn tid=0 pc=0x1\nread tid=0 addr=0x10 size=4\n' | txt2std -q > o.std 2> err.txt
is "$?:$(cat err.txt):$(cat o.std)" '0::T0|r(V16)|0' "txt2std: read by addr= is variable 16 (its address, as txt2rapidbin)"
printf 'insn tid=0 pc=0x1\nread tid=0 loc=1\n' | txt2std > o.std 2> err.txt
is "$?:$(cat err.txt)" '1:txt2std: <stdin>:2: read record without var= or addr= (an address and its size=, as x64dbg and Usercorn text have)' "txt2std: read without var= or addr= is an error that says what it needs"
printf 'insn tid=0 pc=0x1\nacquire tid=0 lock=1 loc=2\n' | txt2std > o.std 2> err.txt
is "$?:$(cat err.txt)" '0:txt2std: 1 record skipped, no RapidBin meaning (first at line 1: record kind "insn")' "txt2std: other kinds skipped and counted"
# An empty result says so (unless -q).
printf 'request tid=0 lock=1 loc=2\n' | txt2std 2> err.txt > e.std
is "$? $(cat err.txt)" "0 txt2std: dropped 1 request event (mainline RAPID cannot parse req; --keep-request keeps them)
txt2std: no event written: the output is empty (the stream held no event record that is kept by default)" \
    "no event: warned once"
printf '' | txt2std -q 2> err.txt > e.std
is "$? $(cat err.txt)" "0 " "-q: no warning"
done_testing
