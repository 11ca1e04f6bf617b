#!/bin/sh
# dial92txt on cut and damaged input: exit 1 with one diagnostic naming
# the offset, the records before the fault on stdout (a prefix of the
# whole text), the same text and exit 0 with --lenient; frames cut at
# the decoder's window boundaries; no allocation the input cannot justify.
. "$srcdir/tests/tap.sh"
C=$(corpus dial9)

# Every prefix (of the first 300 bytes, then every STEP-th) is decoded
# in one process by the fuzz harness: exit 0 or 1, its text a prefix of
# the whole text, that text encodes into a prefix of the input no longer
# than the offset the diagnostic names, --lenient prints the same.
gen-dial9 --kinds > kinds.bin
head -c 970 kinds.bin > small.bin	# the first segments
FUZZ_PREFIXES=1 fuzz-dial9 small.bin
ok $? "every prefix of the every-kind trace's first segments (970)"
if [ -n "$C" ]; then
	zcat "$C/block-in-place-small.trc.gz" > bip.bin
	FUZZ_PREFIXES=61 fuzz-dial9 bip.bin
	ok $? "prefixes of a small real trace (every 61st byte)"
else
	skip "no ../shared/corpus/dial9" "prefixes of a small real trace"
fi
# And as the program reports it: one line with the offset.
head -c 200 small.bin > p.bin
dial92txt p.bin > p.txt 2> p.err
is "$?:$(cat p.err)" "1:dial92txt: p.bin: offset 0xc2, frame 4: truncated schema frame: only 6 bytes left" "a cut: one diagnostic with the offset"

# Cuts around the 256 KiB window and the 64 KiB refill point, in a big file.
gen-dial9 --events 200000 --seed 5 > bulk.bin
dial92txt bulk.bin > bulk.txt
bad=0
for k in 65535 65536 196607 196608 262143 262144 262145 327680 524288 1048577; do
	head -c "$k" bulk.bin > c.bin
	dial92txt c.bin > c.txt 2> c.err
	rc=$?
	[ "$rc" -le 1 ] || bad=$((bad + 1))
	head -c "$(wc -c < c.txt)" bulk.txt | cmp -s - c.txt || bad=$((bad + 1))
	[ "$(wc -l < c.txt)" -gt 1000 ] || bad=$((bad + 1))
done
is "$bad" 0 "cuts at the window's edges: a prefix of the text, exit 0 or 1"

# A frame longer than the limit (16 MiB) is refused, after the records before it.
gen-dial9 --big 17 > big.bin
dial92txt big.bin > big.txt 2> big.err
is "$?" 1 "a 17 MiB frame: exit 1"
is "$(cat big.err)" "dial92txt: big.bin: offset 0x17, frame 2: event frame longer than 16777216 bytes" "it says so"
is "$(wc -l < big.txt)" 2 "the header and the schema before it are printed"

# Damage: each a one-line diagnostic with the offset, and exit 1.
check() {	# NAME HEX WANT
	printf '%s' "$2" | xxd -r -p > d.bin
	dial92txt d.bin > d.txt 2> d.err
	rc=$?
	is "$rc:$(cat d.err)" "1:dial92txt: d.bin: $3" "$1"
}
H=5452430001
S=010000020045760101000100760905e803000000000000
check "empty input" "" "offset 0x0, frame 0: empty input: not a dial9 trace"
check "bad magic" 5452580001 "offset 0x0, frame 0: not a dial9 trace: no TRC\\0 header"
check "cut header" 545243 "offset 0x0, frame 0: truncated header: 3 bytes"
check "unknown tag" ${H}${S}07 "offset 0x1c, frame 3: unknown frame tag 0x07"
check "T that is no header" ${H}${S}5452 "offset 0x1c, frame 3: truncated header: 2 bytes"
check "T that is no header (5 bytes)" ${H}${S}5458430001 "offset 0x1c, frame 3: unknown frame tag 0x54"
check "event before schema" ${H}020000000000 "offset 0x5, frame 1: event of type id 0 before its schema"
check "string pool count beyond the bytes" ${H}03ffffffff00000000ffffffff41 "offset 0x5, frame 1: truncated string pool frame: only 14 bytes left"
# Schema A {s: TYPE}, a reset to 1000, an event of A (delta 0), then s.
A=${H}010000010041010100010073
E=05e803000000000000020000000000
check "string length beyond the bytes" ${A}04${E}ffffff7f41 "offset 0x1b, frame 3: truncated event frame: only 11 bytes left"
check "stack count beyond the bytes" ${A}08${E}ffffffff "offset 0x1b, frame 3: truncated event frame: only 10 bytes left"
check "undefined stack id" ${A}06${E}07000000 "offset 0x21, frame 3: event A, field s: undefined stack pool id 7"
check "unknown field type" ${A}10 "offset 0x11, frame 1: schema A (type id 0), field 0: unknown field type 0x10"
check "optional bit alone" ${A}80 "offset 0x11, frame 1: schema A (type id 0), field 0: unknown field type 0x80"
check "varint of 11 bytes" ${H}${S}020000000000ffffffffffffffffff8101 "offset 0x22, frame 3: event Ev, field v: varint longer than 10 bytes"
check "annotation id varint too long" ${H}06ffffffffffffffffff8101 "offset 0x6, frame 1: schema annotations: type id varint longer than 10 bytes"
deep=$(i=0; while [ $i -lt 30 ]; do printf 0e01000000; i=$((i + 1)); done)
check "lists nested 30 deep" ${A}0e${E}01000000${deep}0b01 "offset 0x99, frame 3: event A, field s: dynamic values nested deeper than 24"

# Lenient: the same prefix, exit 0, and -v says where it stopped.
printf '%s' ${H}${S}07 | xxd -r -p > u.bin
dial92txt --lenient -v u.bin > u.txt 2> u.err
is "$?" 0 "--lenient: exit 0 at an unknown tag"
is "$(wc -l < u.txt)" 3 "--lenient: the records before it"
like "$(cat u.err)" "*stopped at offset 0x1c (--lenient): unknown frame tag 0x07*" "--lenient -v: says where and why"

# 34 bytes that make upstream allocate 32 GiB.
if [ -n "$C" ] && [ -x /usr/bin/time ] && ! grep -q __asan_init "$(command -v dial92txt)" 2>/dev/null; then
	/usr/bin/time -f %M -o rss dial92txt "$C/edge/28_stackpool_huge_frame_count.trc" > /dev/null 2>&1
	rss=$(tail -n 1 rss)
	[ "$rss" -lt 16384 ]
	ok $? "edge vector 28 (stack pool of 2^32-1 frames): $rss KiB, under 16 MiB"
	/usr/bin/time -f %M -o rss dial92txt bulk.bin > /dev/null
	rss=$(tail -n 1 rss)
	[ "$rss" -lt 16384 ]
	ok $? "200000 events: $rss KiB, under 16 MiB"
else
	skip "needs the corpus, /usr/bin/time and a build without ASan" "memory bounds"
fi
done_testing
