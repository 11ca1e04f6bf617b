#!/bin/sh
# txt2std and std2txt: RAPID's STD text, both flavours, round trips and
# malformed lines.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/rapidbin
C=$(corpus rapidbin)

# Bare-number flavour in, prefixed spelling out.
std2txt "$D/bare.std" > b.txt
ok $? "std2txt reads the bare-number flavour"
is "$(head -3 b.txt)" "write tid=6 var=4294967298 loc=59
fork tid=6 child=9 loc=49
request tid=6 lock=9 loc=51" "std2txt: the text records"
txt2std --all b.txt > b.std
same_file b.std "$D/bare.prefixed.std" "bare flavour -> prefixed STD (begin() read as begin)"
std2txt "$D/bare.prefixed.std" | txt2std --all > p.std
same_file p.std "$D/bare.prefixed.std" "prefixed STD round trip"

# Request and branch events: dropped with a count, or kept.
txt2std b.txt > d.std 2> err.txt
is "$(grep -c 'req\|branch' d.std)" 0 "default: req and branch dropped"
is "$(cat err.txt)" "txt2std: dropped 1 request events (mainline RAPID cannot parse req; --keep-request keeps them)
txt2std: dropped 1 branch events (mainline RAPID cannot parse branch; --all keeps them)" "default: the drops are counted"
txt2std -q b.txt > /dev/null 2> err.txt
is "$(cat err.txt)" "" "-q: no counts"
txt2std --keep-request b.txt > r.std 2> /dev/null
is "$(grep -c 'req' r.std):$(grep -c 'branch' r.std)" "1:0" "--keep-request keeps req only"
is "$(txt2std "$srcdir/tests/data/rapidbin/allops.txt" 2> /dev/null | head -3)" "T0|acq(L3)|362
T1|rel(L3)|363
T2|r(V200)|923" "txt2std on decoded text"

# Through RapidBin and back.
std2txt "$D/bare.prefixed.std" | txt2rapidbin | rapidbin2txt | txt2std --all > rb.std
same_file rb.std "$D/bare.prefixed.std" "STD -> text -> RapidBin -> text -> STD"

if [ -n "$C" ]; then
	for f in "$C"/decoded/*.decoded.std "$C"/synthetic/wasmgrind_encoder_testvector.wasmgrind-std.txt; do
		std2txt "$f" | txt2std --all > rt.std
		same_file rt.std "$f" "$(basename "$f"): std2txt | txt2std --all reproduces it"
	done
	for f in "$C"/std/*.spd-flavor.std; do
		std2txt "$f" > s.txt
		is "$?:$(wc -l < s.txt | tr -d ' ')" "0:$(wc -l < "$f" | tr -d ' ')" "$(basename "$f"): one record per line"
		# The prefixed spelling of the same file, made with sed.
		sed -e 's/|\(acq\|rel\|req\)(\([0-9]\)/|\1(L\2/' -e 's/|\([rw]\)(\([0-9]\)/|\1(V\2/' \
		    -e 's/|\(fork\|join\)(\([0-9]\)/|\1(T\2/' "$f" > want.std
		txt2std --all s.txt > got.std
		same_file got.std want.std "$(basename "$f"): prefixed spelling of the same events"
	done
else
	skip "no shared corpus" "STD corpus round trips"
fi

# Malformed lines: exit 1, line and column, the lines before are written.
bad() {	# LINE MESSAGE NAME
	printf 'T0|acq(L1)|2\n\n%s\nT0|rel(L1)|3\n' "$1" > bad.std
	std2txt bad.std > out.txt 2> err.txt
	is "$?:$(cat err.txt)" "1:std2txt: bad.std:3:$2" "$3"
	is "$(cat out.txt)" "acquire tid=0 lock=1 loc=2" "$3: the lines before are written"
}
bad 'X0|acq(L1)|2' '1: thread: expected T<number>' "bad thread"
bad 'T0|lock(L1)|2' '4: unknown operation (acq rel r w fork join begin end req branch)' "unknown op"
bad 'T0|acq(V1)|2' '8: expected a lock: L<number> or <number>' "wrong operand prefix"
bad 'T0|acq(L1|2' '10: expected '"')'"' after the operand' "missing )"
bad 'T0|acq(L1)|x' '12: location: expected a decimal number' "bad location"
bad 'T0|acq(L1)|2|' '13: more than three '"'|'"'-separated fields' "trailing |"
bad 'T0|acq(L1)' '4: expected three '"'|'"'-separated fields' "two fields"
bad 'T0|begin(5)|2' '9: unexpected text after the operation' "begin with an operand"
bad 'T0|r(V99999999999999999999)|2' '7: expected a variable: V<number> or <number>' "operand overflow"

# A location RAPID cannot read (Integer.parseInt) is refused, not written.
printf 'T0|acq(L1)|2147483647\nT0|rel(L1)|2147483648\n' | std2txt > big.txt
txt2std big.txt > big.std 2> err.txt
is "$?:$(cat big.std):$(cat err.txt)" '1:T0|acq(L1)|2147483647:txt2std: big.txt:2:26: field "loc": "2147483648": does not fit RAPID'"'"'s location, a Java int (max 2147483647)' \
    "txt2std: location above 2^31-1: error with line and column"

# Text records STD cannot express.
printf 'insn tid=0 pc=0x1\nread tid=0 addr=0x10 size=4\n' | txt2std > o.std 2> err.txt
is "$?:$(cat err.txt)" '1:txt2std: <stdin>:2: read record without var=' "txt2std: read without var= is an error"
printf 'insn tid=0 pc=0x1\nacquire tid=0 lock=1 loc=2\n' | txt2std > o.std 2> err.txt
is "$?:$(cat err.txt)" '0:txt2std: skipped 1 records without a RapidBin meaning (the first: "insn" at line 1)' "txt2std: other kinds skipped and counted"
done_testing
