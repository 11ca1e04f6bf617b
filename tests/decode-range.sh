#!/bin/sh
# A decoder's --range: piece K of N as tracesplit -n N --piece K cuts it,
# or the records whose restart point lies in a byte range, decoded from
# the file itself.  For every format with a splitter, on corpus files and
# generated traces larger than the I/O buffers: the pieces' payload
# records end to end are the whole's; byte ranges that tile the file give
# every record once; --range K/N is tracesplit's piece decoded; errors.
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/split-norm.sh"

# chunks NAME FMT FILE: --range K/N for N = 1, 2, 3, 7.
chunks() {
	"${2}2txt" -q "$3" | "norm_$2" > whole.txt
	for n in 1 2 3 7; do
		: > cat.txt
		bad=0 diff=0 k=0
		while [ $k -lt $n ]; do
			"${2}2txt" -q --range $k/$n "$3" > r.txt || bad=$((bad + 1))
			"norm_$2" < r.txt >> cat.txt
			tracesplit -q -n $n --piece $k "$3" > p.bin 2> /dev/null
			if [ -s p.bin ]; then
				"${2}2txt" -q p.bin > p.txt
			else
				: > p.txt	# an empty piece: no record
			fi
			cmp -s r.txt p.txt || diff=$((diff + 1))
			k=$((k + 1))
		done
		is "$bad" 0 "$1 --range K/$n: every piece decodes"
		[ -s whole.txt ] && cmp -s cat.txt whole.txt
		ok $? "$1 --range K/$n, K = 0..$((n - 1)): the whole's records ($(wc -l < whole.txt | tr -d ' '))"
		is "$diff" 0 "$1 --range K/$n is tracesplit -n $n --piece K decoded"
	done
}

# tile NAME FMT FILE CUT...: ranges 0-c1, c1-c2, ..., cN- give the whole's
# records once each.
tile() {
	tn=$1 tf=$2 tfile=$3
	shift 3
	"${tf}2txt" -q "$tfile" | "norm_$tf" > whole.txt
	: > cat.txt
	lo=0 bad=0
	for c in "$@" ""; do
		"${tf}2txt" -q --range "$lo-$c" "$tfile" > r.txt || bad=$((bad + 1))
		"norm_$tf" < r.txt >> cat.txt
		lo=$c
	done
	is "$bad" 0 "$tn: ranges cut at $*: each decodes"
	[ -s whole.txt ] && cmp -s cat.txt whole.txt
	ok $? "$tn: ranges cut at $*: the whole's records once each"
}

# restart FMT FILE SIZE: the restart point where tracesplit -b SIZE ends
# its first piece, which is the file's first bytes (the prelude is the
# file's own there): its size.  Checks that --range 0-R is that piece.
restart() {
	tracesplit -q -b "$3" --piece 0 "$2" > p0.bin
	R=$(wc -c < p0.bin | tr -d ' ')
	"${1}2txt" -q p0.bin > p0.txt
	"${1}2txt" -q --range "0-$R" "$2" > r0.txt
	same_file r0.txt p0.txt "$1 ${2##*/}: --range 0-$R is tracesplit -b $3's first piece"
}

# every NAME FMT FILE SIZE: all of the above, with cuts on, one before
# and one after the restart point past SIZE, and inside the I/O block.
every() {
	chunks "$1" "$2" "$3"
	restart "$2" "$3" "$4"
	for c in $((R - 1)) $R $((R + 1)); do
		tile "$1" "$2" "$3" 1 $c
	done
	tile "$1" "$2" "$3" $(printf '%s\n' $((R - 1)) $((R + 1)) 262143 262145 \
	    524288 | sort -n -u)
}

# RapidBin: every event is a restart point, at 18 + 8 i.
gen-rapidbin --events 200000 --ops all --odd --seed 7 > g.data
every "generated RapidBin" rapidbin g.data 4000
rapidbin2txt g.data | norm_rapidbin > all.txt
for a in 817 818 819; do
	rapidbin2txt --range $a-826 g.data | norm_rapidbin > r.txt
	# events start at 18, 26, ...: [817, 826) holds the one at 818 (event 100).
	want=$(( (a <= 818) ? 1 : 0 ))
	is "$(wc -l < r.txt | tr -d ' ')" $want "RapidBin --range $a-826: $want event"
done
rapidbin2txt --range 818-826 g.data | norm_rapidbin > r.txt
sed -n 101p all.txt > want.txt
same_file r.txt want.txt "RapidBin --range 818-826: event 100, the one that starts at 818"
rapidbin2txt --range 2-1K g.data | head -1 > h.txt
is "$(cat h.txt)" "$(rapidbin2txt g.data | head -1 | sed 's/events=.*/events=126/')" \
    "RapidBin --range 2-1K: the whole's header with the range's event count"

# x64dbg: restart points are the full register dumps; a block across the
# input buffer.
gen-trac --blocks 2100 --sessions 2 --threads 4 --user-blocks --seed 3 > a.trace64
gen-trac --arch x86 --blocks 3000 --threads 3 --big-user 300000 --seed 5 > b.trace32
every "generated x64dbg 64" trac a.trace64 200000
every "generated x64dbg 32" trac b.trace32 300000

# STD text, dial9, WTF.
gen-rapidbin --events 150000 --ops all --seed 11 | rapidbin2txt | txt2std > g.std
every "generated STD" std g.std 300000
gen-dial9 --events 120000 --seed 5 > gen.trc
every "generated dial9" dial9 gen.trc 300000
gen-wtf --records 40000 --zones 3 --quirks --seed 2 > g10.wtf-trace
gen-wtf --legacy --records 40000 --zones 3 --quirks --seed 3 > g3.wtf-trace
every "generated WTF v10" wtf g10.wtf-trace 300000
every "generated WTF legacy" wtf g3.wtf-trace 300000

# Usercorn: restart points are top-level frames that begin with a JMP or
# an EXEC_ABS.  Replay frames are copied as they are, so tracesplit's
# first piece ends at a restart point of the file; trace-format pieces
# are packed anew (their sizes are not the file's offsets), so there
# the cuts are at and around a 64 KiB chunk boundary.
gen-ucir --format replay --frames 300 --ops 200 --seed 2 > rep.ucir
every "generated Usercorn replay" ucir rep.ucir 100000
gen-ucir --format trace --frames 1500 --ops 60 --seed 5 > tr.ucir
chunks "generated Usercorn trace" ucir tr.ucir
tile "generated Usercorn trace" ucir tr.ucir 65535 65536 65537 300000

C=$(corpus rapidbin)
if [ -n "$C" ]; then
	for f in "$C"/spd-deadlock-benchmarks/Bensalem.data \
	    "$C"/spd-deadlock-benchmarks/jigsaw.data; do
		chunks "${f##*/}" rapidbin "$f"
		tile "${f##*/}" rapidbin "$f" 99 1000 1001
	done
	f=$C/std/jigsaw.spd-flavor.std
	chunks "${f##*/}" std "$f"
	tile "${f##*/}" std "$f" 5000 5001 70000
else
	skip "no shared corpus" "RapidBin and STD corpus ranges"
fi
C=$(corpus dial9)
if [ -n "$C" ]; then
	f=$C/optional-fields-2026-04-16.trc
	chunks "${f##*/}" dial9 "$f"
	tile "${f##*/}" dial9 "$f" 1000 300000 300001
	# gzip: read afresh by the range's reader, offsets in the inflated bytes.
	f=$C/stackpool-2026-05-08.trc.gz
	chunks "${f##*/}" dial9 "$f"
	tile "${f##*/}" dial9 "$f" 500000 3000000
else
	skip "no shared corpus" "dial9 corpus ranges"
fi
C=$(corpus wtf)
if [ -n "$C" ]; then
	for f in "$C"/blk-client.wtf-trace "$C"/v10-js-multichunk.wtf-trace; do
		chunks "${f##*/}" wtf "$f"
		tile "${f##*/}" wtf "$f" 1000 10000 10001
	done
else
	skip "no shared corpus" "WTF corpus ranges"
fi

# Standard input: byte ranges stream, K/N needs the size.
rapidbin2txt --range 1K-2K g.data > want.txt
rapidbin2txt --range 1K-2K < g.data > r.txt
same_file r.txt want.txt "--range A-B from standard input (a file)"
cat g.data | rapidbin2txt --range 1K-2K > r.txt
same_file r.txt want.txt "--range A-B from a pipe"
cat g.data | rapidbin2txt --range 0/2 > r.txt 2> err.txt
is "$?" 2 "--range K/N from a pipe: exit 2"
is "$(wc -l < err.txt | tr -d ' ')" 1 "--range K/N from a pipe: one line"
like "$(cat err.txt)" "*needs the input's size*" "--range K/N from a pipe: says why"
is "$(wc -c < r.txt | tr -d ' ')" 0 "--range K/N from a pipe: no output"

# A range past the last record: nothing, exit 0.
rapidbin2txt --range 100M- g.data > r.txt
is "$?" 0 "a range past the end: exit 0"
is "$(wc -c < r.txt | tr -d ' ')" 0 "a range past the end: no record, no header"

# Malformed ranges: the usage error (exit 2), its first line saying what.
for r in 3/3 1/0 x 5-5 9-3 1/2x -7 2K/4 ""; do
	rapidbin2txt --range "$r" g.data > /dev/null 2> err.txt
	is "$?" 2 "--range '$r': exit 2"
	like "$(head -1 err.txt)" "rapidbin2txt: --range: *" "--range '$r': says so"
done
# A split fault: the splitter's diagnostic (the file's byte offset), once, exit 1.
head -c 100003 g.data > cut.data
rapidbin2txt -q --range 90000- cut.data > r.txt 2> err.txt
is "$?" 1 "a truncated file: exit 1"
rapidbin2txt -q cut.data > whole.txt 2> werr.txt
is "$(cat err.txt)" "$(cat werr.txt)" "a truncated file: the decoder's one line, at the file's offset"
rapidbin2txt --range 90000- g.data | head -n "$(wc -l < r.txt)" > want.txt
same_file r.txt want.txt "a truncated file: the range's records before the fault"
gen-trac --blocks 2100 --threads 2 --seed 4 > t.trace64
sz=$(wc -c < t.trace64)
head -c $((sz - 37)) t.trace64 > tcut.trace64
trac2txt --range 2/3 tcut.trace64 > r.txt 2> err.txt
is "$?" 1 "a truncated x64dbg trace, last piece: exit 1"
trac2txt tcut.trace64 > /dev/null 2> werr.txt
is "$(cat err.txt)" "$(cat werr.txt)" "a truncated x64dbg trace: the decoder's diagnostic, at the file's offset"

# The recipe: one file, four processes, no pieces written.
if parallel --version 2>/dev/null | grep -q GNU; then
	gen-rapidbin --events 200000 --ops all --seed 5 > run.data
	rapidbin2txt run.data | txtfilter --tid 1 | grep -v "^rapidbin-" > seq.txt
	seq 0 3 | parallel -k -j2 "rapidbin2txt --range {}/4 run.data | txtfilter --tid 1" |
	    grep -v "^rapidbin-" > par.txt
	same_file par.txt seq.txt "seq 0 3 | parallel -k -j2 rapidbin2txt --range {}/4: the sequential pipeline's records"
else
	skip "GNU parallel is not installed" "the parallel recipe"
fi
done_testing
