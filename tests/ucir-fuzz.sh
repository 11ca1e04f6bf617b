#!/bin/sh
# The ucir fuzz harness (decode with and without the level check, text
# round trips, encode) replayed over test traces of both formats, their
# cut and bit-flipped copies, and their texts.  A crash or abort fails.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/ucir

sed 's/#.*//' "$D/replay-ops.hex" | xxd -r -p | gen-ucir --wrap-replay 12 > v.ucir
sed 's/#.*//' "$D/trace-ops.hex" | xxd -r -p | gen-ucir --wrap-trace > vt.ucir
gen-ucir --frames 8 --ops 30 --seed 1 --quirks > g1.ucir
gen-ucir --arch arm --frames 8 --ops 30 --seed 2 --foreign > g2.ucir
gen-ucir --format trace --arch mips --frames 8 --ops 30 --seed 3 > g3.ucir
for f in v g1 g2 g3; do
	size=$(wc -c < $f.ucir)
	for cut in 70 80 95 200 400 $((size - 1)); do
		head -c $cut $f.ucir > $f.cut$cut.ucir
	done
	for at in 75 90 100 150 300 500; do
		{ head -c $at $f.ucir; printf '\377'; tail -c +$((at + 2)) $f.ucir; } \
		    > $f.flip$at.ucir
	done
	ucir2txt $f.ucir > $f.txt
done
n=$(ls ./*.ucir ./*.txt "$D"/*.txt | wc -l)
fuzz-ucir ./*.ucir ./*.txt "$D"/*.txt
ok $? "fuzz-ucir over $n test traces and texts"
done_testing
