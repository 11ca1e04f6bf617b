#!/bin/sh
# Corrupt WTF traces, each built byte by byte here: the exact diagnostic
# (offset, record or chunk index, what is wrong), exit status 1 and the
# records before the fault.
. "$srcdir/tests/tap.sh"

byte() { for b; do printf "\\$(printf %03o "$b")"; done; }
le32() { byte $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
le16() { byte $(($1 & 255)) $(($1 >> 8 & 255)); }
be32() { byte $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255)); }
be16() { byte $(($1 >> 8 & 255)) $(($1 & 255)); }
# ascii S: legacy inline string.
ascii() { be16 "$(printf '%s' "$1" | wc -c)"; printf '%s' "$1"; }

expect() {
	wtf2txt f > out.txt 2> err.txt
	is "$? $(cat err.txt)" "1 wtf2txt: f: $2" "$1"
}
# expect_split NAME WHY: as expect, and the splitter says the same (one
# framing and part-table check for both, wtf_chunk_read/wtf_chunk_parts;
# one reading of a record's slots and string ordinals, wtf_args_slots,
# of a chunk's string table, wtf_strtab_*, and of definitions,
# wtf_define_make).
expect_split() {
	expect "$1" "$2"
	rm -f p-*
	tracesplit -n 2 f p > /dev/null 2> split.err
	is "$? $(cat split.err)" "1 tracesplit: f: $2" "$1: the splitter too"
}

# ---------------------------------------------------------------- headers
{ byte 0xde 0xad 0xbe 0xee; be32 0; be32 3; } > f
expect "bad magic" "offset 0x0: bad magic de ad be ee: not a WTF trace (DE AD BE EF or EF BE AD DE)"
{ be32 0xdeadbeef; be32 0; be32 2; } > f
expect "legacy version 2" "offset 0x8: big-endian (legacy) trace of format version 2: only version 3 is readable"
{ be32 0xdeadbeef; be32 0; be32 10; } > f
expect "big-endian v10 (the 2013-06 first cut)" "offset 0x8: big-endian (legacy) trace of format version 10: only version 3 is readable (big-endian v10 is the 2013-06 first cut of the chunked format, which no reader accepts)"
{ le32 0xdeadbeef; le32 0; le32 11; } > f
expect "chunked version 11" "offset 0x8: chunked trace of format version 11: only version 10 exists"

# ---------------------------------------------------------------- legacy
# A legacy header: context "{}", flags 1, timebase 0, no metadata; 32 bytes.
lhead() { be32 0xdeadbeef; be32 0; be32 3; be16 2; be16 2; printf '{}'; be32 1; be32 0; be32 0; be16 0; }
ldefine() { be16 1; be32 5; be16 "$1"; be16 "$2"; be32 "$3"; ascii "$4"; ascii "$5"; }
{ lhead; ldefine 2 0 0 "t#a" "uint8 v"; be16 3; be32 6; } > f
expect_split "legacy: undefined wire id" "offset 0x3c, record 1: undefined wire id 3"
is "$(tail -n 1 out.txt)" 'wtf-define ts=5000 time=5 wire=2 class=instance flags=0x0 name=t#a args="uint8 v"' \
    "legacy: the definition before the fault is printed"
{ lhead; ldefine 2 0 0 "t#a" "uint8 v, blob b"; } > f
expect_split "legacy: unknown argument type" 'offset 0x20, record 0: definition of wire id 2 (t#a): invalid signature argument type: "uint8 v, blob b"'
{ lhead; ldefine 2 0 0 "t#a" "bool[] v"; } > f
expect_split "legacy: array of a type without an array encoding" 'offset 0x20, record 0: definition of wire id 2 (t#a): arrays of this type have no encoding: "bool[] v"'
{ lhead; ldefine 2 0 0 "t#a" "char c"; } > f
expect_split "legacy: char in a legacy trace" "offset 0x20, record 0: definition of wire id 2: char and wchar have no legacy encoding"
{ lhead; ldefine 1 0 40 "wtf.event#define" "uint16 wireId"; } > f
expect_split "legacy: wire 1 redefined" "offset 0x20, record 0: wire id 1 (wtf.event#define) redefined as another event type"
{ lhead; ldefine 2 0 0 "" "uint8 v"; } > f
expect_split "legacy: definition without a name" "offset 0x20, record 0: definition of wire id 2 without a name"
{ lhead; ldefine 2 0 0 "t#a" "ascii s"; be16 2; be32 6; be16 0xffff; be32 0; } > f
expect_split "legacy: string-table reference" "offset 0x3c, record 1: string-table reference (count 0xffff): no legacy writer has a string table"
{ lhead; ldefine 2 0 0 "t#a" "uint32[] v"; be16 2; be32 6; be32 3; be32 1; } > f
expect_split "legacy: array longer than the file" "offset 0x3f, record 1: truncated t#a record: 14 bytes left"

# ---------------------------------------------------------------- chunked
# chunk ID TYPE NPARTS, then part table entries and data follow.
hdr() { le32 0xdeadbeef; le32 0; le32 10; }
chunk() { le32 "$1"; le32 "$2"; le32 "$3"; le32 0xffffffff; le32 0xffffffff; le32 "$4"; }
part() { le32 "$1"; le32 "$2"; le32 "$3"; }
# cdefine WIRE CLASS FLAGS NAMEORD ARGSORD: a define record, 28 bytes.
cdefine() { le32 1; le32 5; le32 "$1"; le32 "$2"; le32 "$3"; le32 "$4"; le32 "$5"; }
# An event chunk: string table "t#a\0uint8 v\0" (12 bytes) and the
# records given (LEN bytes) as the event buffer.
evchunk() { chunk 2 2 $((24 + 24 + 12 + $1)) 2; part 0x30000 0 12; part 0x20002 12 "$1"; printf 't#a\000uint8 v\000'; }
{ hdr; chunk 1 2 20 0; } > f
expect_split "chunk shorter than its header" "offset 0xc, chunk 0: chunk length 20 is less than its header and table of 0 parts"
{ hdr; chunk 1 2 30 1; part 0x20002 0 0; } > f
expect_split "chunk shorter than its part table" "offset 0xc, chunk 0: chunk length 30 is less than its header and table of 1 parts"
{ hdr; chunk 1 2 44 1; part 0x20002 4 8; byte 0 0 0 0 0 0 0 0; } > f
expect_split "part beyond its chunk" "offset 0x24, chunk 0: part 0 (offset 4, length 8) runs past the end of its chunk (8 bytes of part data)"
{ hdr; chunk 1 2 56 2; part 0x40000 0 8; part 0x40000 4 4; byte 0 0 0 0 0 0 0 0; } > f
expect_split "parts that overlap" "offset 0x30, chunk 0: part 1 (offset 4) overlaps the part before it"
{ hdr; chunk 1 2 44 1; part 0x40000 4 4; byte 0 0 0 0 0 0 0 0; } > f
expect_split "a gap before the first part" "offset 0x24, chunk 0: part 0 does not start the part data (offset 4): not supported"
{ hdr; chunk 1 2 42 1; part 0x20002 0 6; byte 1 0 0 0 5 0; } > f
expect_split "event buffer not of whole slots" "offset 0x24, chunk 0: event buffer length 6 is not a multiple of 4"
{ hdr; evchunk 36; cdefine 2 0 0 0 1; le32 2; le32 6; } > f
expect_split "record cut by the end of its buffer" "offset 0x64, record 1: t#a record: truncated record: it runs past the end of the event buffer"
{ hdr; evchunk 36; cdefine 2 0 0 0 1; le32 3; le32 6; } > f
expect_split "chunked: undefined wire id" "offset 0x64, record 1: undefined wire id 3"
is "$(tail -n 1 out.txt)" 'wtf-define ts=5000 time=5 wire=2 class=instance flags=0x0 name=t#a args="uint8 v"' \
    "chunked: the definition before the fault is printed"
{ hdr; evchunk 28; cdefine 2 0 0 0 7; } > f
expect_split "string ordinal past the table" "offset 0x48, record 0: wtf.event#define record: string ordinal past the end of the string table"
{ hdr; evchunk 28; cdefine 2 0 0 1 0; } > f
expect_split "strings not in the order of their use" "offset 0x48, record 0: wtf.event#define record: string table not in the order of its uses (not written by a known writer; not supported)"
{ hdr; evchunk 28; cdefine 2 0 0 0 0xffffffff; } > f
expect_split "a string of the table never used" "offset 0xc, chunk 0: 1 of the 2 strings of the chunk's table are never used (writers store only what their records use)"
{ hdr; chunk 2 2 $((48 + 8 + 28)) 2; part 0x30000 0 5; part 0x20002 8 28; printf 't#a\000\000\000\000\000'; cdefine 2 0 0 0 1; } > f
expect_split "reference to an empty string" 'offset 0x44, record 0: wtf.event#define record: reference to an empty string table entry (readers take it for null; writers use 0xfffffffe for "")'
{ hdr; chunk 2 2 $((48 + 4 + 28)) 2; part 0x30000 0 3; part 0x20002 4 28; printf 't#a\000'; cdefine 2 0 0 0 1; } > f
expect_split "string table without a NUL" "offset 0x3c, chunk 0: string table entry 0 has no terminating NUL byte"
{ hdr; chunk 1 2 $((0x10000001)) 0; } > f
expect_split "chunk longer than read" "offset 0xc, chunk 0: chunk length 268435457 is more than the 268435456 bytes read at most"
{ hdr; chunk 1 2 1000000 0; byte 1 2 3; } > f
expect_split "chunk longer than the file" "offset 0xc, chunk 0: truncated chunk: needs 1000000 bytes, only 27 left"
done_testing
