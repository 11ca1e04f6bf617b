#!/bin/sh
# tracesplit on Usercorn traces (ucir_split, formats/split.h): pieces
# start at a top-level frame, each with the header and the setup keyframe
# (the file's first frame) restated.  For generated replay and trace
# files (frames across the trace format's 64 KiB Snappy chunks, one of a
# million ops and more), cut by -n, -l, -b (on, before and after a
# restart point) and --piece: the records of the pieces, the restated
# setup aside, are the whole's, line for line; each piece's setup is the
# whole's; each piece round-trips byte for byte through ucir2txt |
# txt2ucir (--trace for the trace format); txtstat --merge of the pieces'
# reports is the whole's report; usercorn's own reader (USERCORN_SRC,
# see ucir-reader.sh) reads every piece as ucir2txt does.  A cut and a
# corrupt file: the pieces before the fault, one line naming the
# offset as ucir2txt does, exit 1.
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/split-check.sh"
FMT=ucir
. "$srcdir/tests/split-property.sh"
. "$srcdir/tests/ucir-reader.sh"

# The setup restated by pieces after the first is not the whole's: the
# first frame, when a keyframe, is taken away from every decode (the
# whole's too), and checked on its own (same_setup).
nosetup() {
	awk '/^ucir-header/ { next }
	    /^ucir-frame/ { f++; skip = (f == 1 && $0 ~ / keyframe=true/) }
	    !skip'
}
events() { nosetup; }
setup_of() { awk '/^ucir-frame/ { f++ } f == 1'; }

# same_setup NAME: every piece in pieces/ starts with the whole's setup.
same_setup() {
	ucir2txt "$sp_file" | setup_of > setup.want
	n=0
	for p in pieces/x-*; do
		ucir2txt "$p" | setup_of | cmp -s - setup.want || n=$((n + 1))
	done
	[ -s setup.want ] && [ "$n" = 0 ]
	ok $? "$1: every piece restates the setup keyframe ($(wc -l < setup.want | tr -d ' ') records)"
}

# merged NAME: txtstat --merge of the pieces' reports is the whole's.
merged() {
	rm -f rep-*.json
	k=0
	for p in pieces/x-*; do
		ucir2txt "$p" | nosetup | txtstat --json > rep-$k.json
		k=$((k + 1))
	done
	ucir2txt "$sp_file" | nosetup | txtstat > stat.whole
	txtstat --merge rep-*.json > stat.merged
	same_file stat.merged stat.whole "$1: txtstat --merge of the pieces is txtstat of the whole"
}

# go_reads NAME: usercorn's reader reads each piece as ucir2txt does.
go_reads() {
	if [ -z "$have_go" ]; then
		skip "${ucir_why-}" "$1: usercorn's reader reads the pieces"
		return
	fi
	n=0
	for p in pieces/x-*; do
		ucir2txt "$p" | grep -v '^ucir-header' > go.want
		./ucirread "$p" > go.txt 2> go.err &&
		    txt2ucir --trace go.txt 2> /dev/null | ucir2txt |
		    grep -v '^ucir-header' | cmp -s - go.want || n=$((n + 1))
	done
	is "$n" 0 "$1: usercorn's reader reads every piece as ucir2txt does"
}

# offsets FILE: the input offsets of a replay file's restart points but
# the first, from the pieces of -l 1 (one restart point each: the header,
# the setup, which is frame 0, its 10-byte header and its size at byte
# 86, then the frames to the next restart point).
offsets() {
	rm -rf pieces && mkdir pieces
	tracesplit -q -l 1 "$1" pieces/x
	setup=$(od -An -tu1 -j86 -N4 "$1" |
	    awk '{ print 10 + $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	set -- pieces/x-*
	at=$(wc -c < "$1")
	shift
	for p; do
		echo "$at"
		at=$((at + $(wc -c < "$p") - 80 - setup))
	done
}

# chunk1 FILE: the offset of a trace's second data chunk (the generator's
# padding, skippable and identifier chunks before it): where the frames
# that start in it restart, as tracesplit counts.
chunk1() {
	len=$(od -An -tu1 -j85 -N3 "$1" | awk '{ print $1 + $2 * 256 + $3 * 65536 }')
	echo $((84 + 4 + len + 7 + 9 + 10))
}

have_go=
if ucir_reader; then have_go=1; fi

# The replay format: frames copied (zlib levels 6, 1, 2, 7).
gen-ucir --format replay --frames 300 --ops 200 --seed 2 > rep.ucir
hl=80
offs=$(offsets rep.ucir)
off=$(echo "$offs" | sed -n 2p)		# restart point 2
off3=$(echo "$offs" | sed -n 3p)
for mode in "-n 3" "-n 7" "-l 1" "-l 5000" "-b 1" "-b 100000" \
    "-b $((off - hl))" "-b $((off - hl - 1))" "-b $((off - hl + 1))"; do
	split_prop replay ucir2txt txt2ucir nosetup rep.ucir $mode
done
same_setup replay
merged replay
# -b counts the bytes of the input: a piece ends at the first restart
# point at least SIZE past its own first (the first piece's at byte 80,
# after the header; the piece is the input's bytes to there).
for b in $((off - 81)) $((off - 80)) $((off - 79)); do
	tracesplit -q -b $b rep.ucir one
	if [ $b -le $((off - 80)) ]; then want=$off; else want=$off3; fi
	is "$(wc -c < one-0000.ucir | tr -d ' ')" "$want" "replay -b $b (restart points at $off, $off3): the first piece ends at $want"
	rm -f one-*
done

# The trace format: re-framed, frames across Snappy chunks.
gen-ucir --format trace --frames 400 --ops 60 --seed 7 > tr.ucir
toff=$(chunk1 tr.ucir)
for mode in "-n 2" "-n 5" "-l 1" "-l 3000" "-b 1" "-b 65536" \
    "-b $toff" "-b $((toff - 1))" "-b $((toff + 1))"; do
	split_prop trace ucir2txt "txt2ucir --trace" nosetup tr.ucir $mode
done
same_setup trace
# Every frame that starts in the second chunk restarts at its offset.
# (the first frame's: the first chunk's, 84).
b=$((toff - 84))
for d in $((b - 1)) $b $((b + 1)); do
	tracesplit -q -b $d tr.ucir one
	ucir2txt one-0000.ucir | grep -c '^ucir-frame' > n.$d
	rm -f one-*
done
cmp -s n.$((b - 1)) n.$b && [ "$(cat n.$b)" -lt "$(cat n.$((b + 1)))" ]
ok $? "trace -b $b (the second chunk at $toff) and a byte less cut at its first frame, a byte more later"
go_reads trace
one_piece tr.ucir

# A million ops and more (about 7 MiB of Snappy chunks).
gen-ucir --format trace --frames 3000 --ops 400 --seed 4 > big.ucir
ops=$(ucir2txt big.ucir | wc -l)
[ "$ops" -gt 1000000 ]
ok $? "the big trace holds more than a million ops ($ops)"
for mode in "-n 4" "-b 2M" "-l 300000"; do
	split_prop big ucir2txt "txt2ucir --trace" nosetup big.ucir $mode
done
merged big
go_reads big
gen-ucir --format trace --frames 50 --ops 20 --seed 9 --arch arm > arm.ucir
split_prop "big-endian arm" ucir2txt "txt2ucir --trace" nosetup arm.ucir -l 100
one_piece rep.ucir

# A file without a setup keyframe (txt2ucir frames the ops itself): no
# setup to restate; the pieces are the whole's.
ucir2txt rep.ucir | grep -v '^ucir-header\|^ucir-frame' |
    txt2ucir -n 500 > nokey.ucir 2> /dev/null
split_prop "no keyframe" ucir2txt txt2ucir "grep -v ^ucir-header" nokey.ucir -n 4

# A cut file and a corrupt one: the pieces before the fault.
gen-ucir --format replay --frames 300 --ops 200 --seed 3 > full.ucir
head -c 400001 full.ucir > cut.ucir
cut_trace "a cut replay file" cut.ucir
# A late frame's op byte made 7: not an OP_FRAME.
cp full.ucir bad.ucir
off=$(offsets full.ucir | tail -n 2 | head -n 1)
printf '\007' | dd of=bad.ucir bs=1 seek="$off" conv=notrunc 2> /dev/null
cut_trace "a corrupt frame" bad.ucir
gen-ucir --format trace --frames 1500 --ops 60 --seed 5 > full.ucir
head -c 400001 full.ucir > cutt.ucir
cut_trace "a cut trace" cutt.ucir

done_testing
