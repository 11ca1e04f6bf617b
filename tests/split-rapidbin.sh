#!/bin/sh
# tracesplit on RapidBin: any event is a restart point, each piece has
# the whole's header with its own event count.
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/split-check.sh"

norm() { grep -v '^rapidbin-'; }
C=$(corpus rapidbin)

if [ -n "$C" ]; then
	for f in "$C"/spd-deadlock-benchmarks/*.data; do
		b=$(basename "$f")
		split_prop "$b" rapidbin2txt txt2rapidbin norm "$f" -n 3
		split_prop "$b" rapidbin2txt txt2rapidbin norm "$f" -b 4000
	done
	f=$C/spd-deadlock-benchmarks/Bensalem.data
	events=$(rapidbin2txt "$f" | norm | wc -l)
	split_prop Bensalem rapidbin2txt txt2rapidbin norm "$f" -l 1
	is "$pieces" "$events" "Bensalem -l 1: one piece per event"
	# The piece's header: the whole's id counts, its own event count.
	rapidbin2txt pieces/x-0003.data | head -1 > h.txt
	is "$(cat h.txt)" "rapidbin-header threads=4 locks=5 vars=5 events=1" \
	    "a one-event piece: the whole's ids, events=1"
else
	skip "no shared corpus" "corpus pieces"
fi

# Generated: 200000 events, 1.6 MB, cut across the 256 KiB input block
# and the 512 KiB output buffer and at sizes that are no multiple of 8.
gen-rapidbin --events 200000 --ops all --odd --seed 7 > g.data
for b in 262143 262144 262145 524287 524288 524296 1000003; do
	split_prop gen rapidbin2txt txt2rapidbin norm g.data -b $b
done
split_prop gen rapidbin2txt txt2rapidbin norm g.data -l 65536
split_prop gen rapidbin2txt txt2rapidbin norm g.data -n 7
is "$pieces" 7 "-n 7: seven pieces"
# -n CHUNKS cuts near equal byte sizes.
sizes=$(ls -l pieces | awk 'NR > 1 { print $5 }' | sort -n | sed -n '1p;$p' | tr '\n' ' ')
like "$sizes" "2285* 2285* " "-n 7: pieces of 1/7 of the input each"

# gzip input, pieces uncompressed; -n reads it once to learn its size.
gzip -c g.data > g.data.gz
tracesplit -n 4 g.data.gz gz
tracesplit -n 4 g.data plain
for i in 0 1 2 3; do
	cmp -s gz-000$i.data plain-000$i.data || break
done
is "$i" 3 "gzip input: the same pieces, uncompressed"
# Names that sort: the default prefix is the file's name.
tracesplit -n 2 g.data
is "$(ls g-*)" "g-0000.data
g-0001.data" "default PREFIX: FILE without its extension"

# --piece K: one piece to standard output, through a pipe too.
tracesplit -n 7 --piece 3 g.data | cat > p3.data
same_file p3.data pieces/x-0003.data "--piece 3 to a pipe: the fourth piece"
tracesplit -n 7 --piece 6 -o p6.data g.data
same_file p6.data pieces/x-0006.data "--piece 6 -o FILE: the last piece"
# -l on a pipe works (it needs no size); -n does not.
cat g.data | tracesplit -l 100000 - pipe
is "$(ls pipe-* | wc -l)" 2 "-l on a pipe"
cat g.data | tracesplit -n 2 - pipe 2> err.txt
is "$?:$(cat err.txt)" "2:tracesplit: <stdin>: -n needs the input's size, which a pipe does not tell: use -b or -l, or give a file" "-n on a pipe: said, exit 2"

done_testing
