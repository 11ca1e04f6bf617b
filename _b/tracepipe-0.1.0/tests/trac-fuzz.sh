#!/bin/sh
# The trac fuzz harness (decoder, decoder with --allow-truncated and
# --repair-tid, encoder) replayed over every test trace: the golden files,
# generated traces of every kind, their cut and bit-flipped copies, and
# the text files.  A crash or an abort fails.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/trac

for f in "$D"/*.hex; do
	n=${f##*/}
	sed 's/#.*//' "$f" | xxd -r -p > "${n%.hex}.trace"
done
gen-trac --blocks 40 --seed 1 > g1.trace
gen-trac --arch x86 --blocks 40 --seed 2 --threads 3 --user-blocks > g2.trace
gen-trac --blocks 60 --seed 3 --threads 4 --tid-bug --sessions 2 > g3.trace
gen-trac --arch x86 --blocks 60 --seed 4 --quirks --threads 2 > g4.trace
for f in x86 tidbug g2 g3; do
	# Cut copies, and copies with a byte changed along the file.
	size=$(wc -c < $f.trace)
	for cut in 9 100 1000 1500 $((size - 1)); do
		head -c $cut $f.trace > $f.cut$cut.trace
	done
	for at in 40 200 1100 1300 1500; do
		{ head -c $at $f.trace; printf '\377'; tail -c +$((at + 2)) $f.trace; } \
		    > $f.flip$at.trace
	done
done
for f in g1 g2 g3; do trac2txt -r $f.trace > $f.txt; done
n=$(ls ./*.trace ./*.txt "$D"/*.txt | wc -l)
fuzz-trac ./*.trace ./*.txt "$D"/*
ok $? "fuzz-trac over $n test traces and texts"
done_testing
