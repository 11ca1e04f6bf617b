#!/bin/sh
# The wtf fuzz harness (decoder, encoder, encoder --strict) replayed over
# generated traces of both generations, their cut and byte-changed copies,
# and their texts.  A crash or an abort fails.
. "$srcdir/tests/tap.sh"

gen-wtf --records 300 --seed 1 > g1.wtf
gen-wtf --quirks --records 300 --zones 4 --seed 2 > g2.wtf
gen-wtf --legacy --records 300 --seed 3 > g3.wtf
gen-wtf --legacy --quirks --records 300 --zones 4 --seed 4 > g4.wtf
for f in g1 g2 g3 g4; do
	size=$(wc -c < $f.wtf)
	for cut in 5 12 30 100 700 2000 $((size / 2)) $((size - 1)); do
		head -c $cut $f.wtf > $f.cut$cut.wtf
	done
	for at in 9 40 300 1200 3000 5000; do
		{ head -c $at $f.wtf; printf '\377'; tail -c +$((at + 2)) $f.wtf; } \
		    > $f.flip$at.wtf
	done
	wtf2txt $f.wtf > $f.txt
	# the text with lines gone: definitions, zone switches, chunks
	grep -v '^wtf-define' $f.txt > $f.nodef.txt
	grep -v 'zone#set' $f.txt > $f.noset.txt
	grep '^event' $f.txt > $f.events.txt
done
n=$(ls ./*.wtf ./*.txt | wc -l)
fuzz-wtf ./*.wtf ./*.txt
ok $? "fuzz-wtf over $n test traces and texts"
C=$(corpus wtf)
if [ -n "$C" ]; then
	fuzz-wtf "$C"/v10-*.wtf-trace
	ok $? "fuzz-wtf over the corpus v10 traces"
else
	skip "no ../shared/corpus/wtf" "fuzz-wtf over the corpus v10 traces"
fi
done_testing
