#!/bin/sh
# Bad input: corrupt zlib data, decompression bombs, frame sizes beyond the
# limit (refused before allocation), wrong op counts, unknown and cut ops,
# nesting, bad magic, trace-format checksum and chunk faults.  Each gives
# exit 1, a one-line diagnostic naming the offset (and the byte inside
# the frame), and the records of the frames before the fault.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/ucir
unhex() { sed 's/#.*//' | xxd -r -p; }

# fails FILE PATTERN NAME [OPTION...]: exit 1 and one diagnostic line.
fails() {
	f=$1 pat=$2 name=$3
	shift 3
	ucir2txt "$@" "$f" > out.txt 2> err.txt
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l < err.txt)" -eq 1 ] &&
	    grep -q -- "$pat" err.txt; then
		ok 0 "$name: $(cat err.txt)"
	else
		ok 1 "$name"
		echo "#   exit $rc: $(head -c 300 err.txt)"
	fi
}

gen-ucir --frames 6 --ops 40 --seed 2 > g.ucir
ucir2txt g.ucir > g.txt
head -c 80 g.ucir > header.bin
# frame_at N: the offset of frame N (0-based) of g.ucir.
frame_at() {
	off=80 i=0
	while [ $i -lt "$1" ]; do
		size=$(od -An -tu4 --endian=big -j $((off + 6)) -N 4 g.ucir | tr -d ' ')
		off=$((off + 10 + size)); i=$((i + 1))
	done
	echo $off
}
f2=$(frame_at 2)
f2hex=$(printf '%x' "$f2")

# A byte of frame 2's zlib data changed.
at=$((f2 + 10 + 20))
{ head -c $at g.ucir; printf '\377'; tail -c +$((at + 2)) g.ucir; } > flip.ucir
fails flip.ucir "offset 0x$f2hex, frame 2: frame data" "corrupt zlib data"
awk '/^ucir-frame/ { n++ } n <= 2' g.txt > want.txt
same_file out.txt want.txt "the records of frames 0 and 1 are printed"

# Decompression bombs: refused at the limit, memory bounded by it.
gen-ucir --bomb 100000000 --level 9 > bomb.ucir
fails bomb.ucir 'inflates to more than the limit of 67108864 bytes' \
    "a frame of 100 MB of NOPs ($(wc -c < bomb.ucir) bytes) with the default limit"
fails bomb.ucir 'inflates to more than the limit of 1000000 bytes' \
    "the same with --max-frame 1000000" --max-frame 1000000
case "${CFLAGS:-}${ASAN_OPTIONS:-}" in
*sanitize*) skip "ASan's shadow memory is not ours" "bomb memory" ;;
*)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M ucir2txt --max-frame 1000000 bomb.ucir \
		    >/dev/null 2> rss || true
		kb=$(tail -n 1 rss)
		[ "$kb" -lt 20000 ]; ok $? "refusing it with a 1 MB limit takes $kb KiB (< 20 MiB)"
	else
		skip "no /usr/bin/time" "bomb memory"
	fi ;;
esac

# Frame sizes beyond the limit are refused before allocation.
{ cat header.bin; echo 01 00 00000001 ffffffff | unhex; } > huge.ucir
fails huge.ucir 'offset 0x50, frame 0: frame of 4294967295 compressed bytes: more than the limit' \
    "a frame claiming 4 GiB"
{ cat header.bin; echo 01 00 00000001 00000100 0000 | unhex; } > short.ucir
fails short.ucir 'truncated frame data: needed 256 bytes' "a frame claiming more bytes than the file has"

# Frames whose ops are wrong.
frame() { unhex | gen-ucir --wrap-replay "$1"; }
unhex < "$D/replay-ops.hex" | gen-ucir --wrap-replay 11 > count.ucir
fails count.ucir 'the frame header says 11 ops, its data holds 12' "wrong op count"
echo 0c | frame 1 > unknown.ucir
fails unknown.ucir 'offset 0x50, frame 0: byte 0x0 of the inflated frame: unknown op 12 (0-11)' "unknown op"
echo 00 00 02 0000 | frame 3 > cut.ucir
fails cut.ucir 'op at byte 0x2 of the inflated frame (5 bytes): cut by the frame' "an op cut by the end of the frame"
echo 00 01 | frame 2 > nested.ucir
fails nested.ucir 'byte 0x1 of the inflated frame: OP_FRAME inside a frame' "a frame inside a frame"
echo 06 0000000000001000 8000000000000000 | frame 1 > bigread.ucir
fails bigread.ucir 'MEM_READ of 9223372036854775808 bytes: more than 16777216' "a read of 2^63 bytes"
i=0; ops=
while [ $i -lt 16 ]; do ops="$ops 0a 0000 0000000000000000 0000 0001"; i=$((i + 1)); done
echo "$ops 00" | frame 1 > deep.ucir
fails deep.ucir 'syscalls nested deeper than 16' "syscalls nested 16 deep"
{ cat header.bin; echo 00 | unhex; } > top.ucir
fails top.ucir 'op 0 at top level: a replay file holds OP_FRAME (1) messages only' "an op outside a frame"
# Two bytes after the zlib stream, inside the frame's size.
size=$(od -An -tu4 --endian=big -j 86 -N 4 g.ucir | tr -d ' ')
{ head -c 86 g.ucir; printf '%08x' $((size + 2)) | xxd -r -p
  tail -c +91 g.ucir | head -c "$size"; printf '\0\0'; } > trail.ucir
fails trail.ucir 'bytes after the end of the zlib stream' "bytes after the zlib stream"
# The Adler-32 of frame 0.
at=$((90 + size - 1))
{ head -c $at g.ucir; printf '\125'; tail -c +$((at + 2)) g.ucir; } > adler.ucir
fails adler.ucir 'incorrect data check' "a bad Adler-32"

# Not a replay at all.
printf 'UCIX' > magic.ucir; head -c 100 g.ucir | tail -c 96 >> magic.ucir
fails magic.ucir 'offset 0x0: not a Usercorn trace: no UCIR magic' "bad magic"
: > empty.ucir
fails empty.ucir 'empty input' "empty input"
{ head -c 72 header.bin; echo ff060000734e61507059 | unhex; } > may2017.ucir
fails may2017.ucir 'trace of May-August 2017 (72-byte header' "usercorn's 72-byte header of 2017"

# The trace format.
gen-ucir --format trace --frames 4 --ops 30 --seed 2 > t.ucir
type=$(od -An -tx1 -j 84 -N 1 t.ucir | tr -d ' ')
len=$(od -An -tu4 -j 84 -N 4 t.ucir | tr -d ' '); len=$((len >> 8))
ucir2txt t.ucir > /dev/null 2>&1 && snap_rc=0 || snap_rc=$?
ident=ff060000734e61507059
{ head -c 74 t.ucir; echo $ident 01 050000 00000000 0b | unhex; } > crc.ucir
fails crc.ucir 'offset 0x54, chunk 1: Snappy chunk checksum 0x00000000, its data sums to 0x' \
    "a stored chunk's checksum"
{ head -c 84 t.ucir; echo 05 000000 | unhex; } > rsvd.ucir
fails rsvd.ucir 'reserved unskippable Snappy chunk type 0x05' "a reserved chunk type"
{ head -c 84 t.ucir; echo ff060000734e61507058 | unhex; } > badident.ucir
fails badident.ucir 'offset 0x54, chunk 1: bad Snappy stream identifier' "a bad repeated stream identifier"
echo 02 0000000000000000 01000000 01 0000000000000000 00000000 | unhex |
    gen-ucir --wrap-trace > tnest.ucir
fails tnest.ucir 'byte 0xd of the Snappy stream: OP_FRAME inside a frame' "a trace frame inside a keyframe"
echo 05 | unhex | gen-ucir --wrap-trace > ttop.ucir
fails ttop.ucir 'op 5 at top level: usercorn writes KEYFRAME and FRAME ops only' "a trace op outside a frame"
echo 01 0000000000000000 02000000 04 01 | unhex | gen-ucir --wrap-trace > tcount.ucir
fails tcount.ucir 'the file ends inside the frame after 1 of its 2 ops' "a trace frame with ops missing"
if [ "$type" = 00 ] && [ $snap_rc -eq 0 ]; then
	at=$((84 + 4 + 4 + len / 2))
	{ head -c $at t.ucir; printf '\377\377\377'; tail -c +$((at + 4)) t.ucir; } > snap.ucir
	ucir2txt snap.ucir > /dev/null 2> err.txt
	is $? 1 "a corrupt Snappy chunk: exit 1"
	grep -q -e 'corrupt Snappy chunk' -e 'checksum' err.txt
	ok $? "and says so: $(cat err.txt)"
else
	skip "built without libsnappy" "a corrupt Snappy chunk"
	skip "built without libsnappy" "a corrupt Snappy chunk: message"
fi
done_testing
