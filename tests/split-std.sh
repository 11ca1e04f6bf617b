#!/bin/sh
# tracesplit on RAPID's STD text: any event line is a restart point.
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/split-check.sh"

norm() { grep -v '^std-'; }
C=$(corpus rapidbin)

if [ -n "$C" ]; then
	for f in "$C"/std/*.std; do
		b=$(basename "$f")
		split_prop "$b" std2txt txt2std norm "$f" -n 4
		# one piece per line: 17,000 for jigsaw
		SP_EVERY=97
		split_prop "$b" std2txt txt2std norm "$f" -l 1
		SP_EVERY=
		is "$pieces" "$(grep -c . "$f")" "$b -l 1: one piece per line"
		cat pieces/x-* > cat.std
		same_file cat.std "$f" "$b: the pieces, concatenated, are the file"
	done
else
	skip "no shared corpus" "corpus pieces"
fi
# A generated trace, through RapidBin's generator and txt2std.
gen-rapidbin --events 150000 --ops all --seed 11 | rapidbin2txt | txt2std > g.std
for b in 262143 262144 262145 524288 524289; do
	split_prop gen std2txt txt2std norm g.std -b $b
done
split_prop gen std2txt txt2std norm g.std -l 49999
lines=$(wc -l < g.std)
is "$pieces" "$(( (lines + 49998) / 49999 ))" "-l 49999: pieces of 49999 events, the last shorter"
# A bad line is said with its line number in the whole.
{ head -5 g.std; echo 'T0|frob(V1)|3'; } > bad.std
tracesplit -l 2 bad.std bad 2> err.txt
st=$?
like "$st:$(cat err.txt)" "1:tracesplit: bad.std:6:*" "a bad line: its line number, exit 1"

done_testing
