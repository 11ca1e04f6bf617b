#!/bin/sh
# Prefixes of small traces of both generations: exit 1 with a
# diagnostic naming the offset (exit 0 only where the cut falls between
# legacy records or v10 chunks), no crash, and the text printed is a
# prefix of the text of the whole file.  Then the exact diagnostics of a
# few cuts.
. "$srcdir/tests/tap.sh"

# prefixes FILE STEP
prefixes() {
	f=$1 step=$2
	size=$(wc -c < "$f" | tr -d ' ')
	wtf2txt "$f" > full.txt || { ok 1 "$f decodes whole"; return; }
	bad_status=0 bad_diag=0 bad_prefix=0 clean=0 L=0
	while [ "$L" -lt "$size" ]; do
		head -c "$L" "$f" > cut
		wtf2txt cut > out.txt 2> err.txt
		case $? in
		0) clean=$((clean + 1))
		   [ -s err.txt ] && bad_diag=$((bad_diag + 1)) ;;
		1) grep -q "^wtf2txt: cut: offset 0x[0-9a-f]*[:,]" err.txt ||
			bad_diag=$((bad_diag + 1)) ;;
		*) bad_status=$((bad_status + 1)) ;;
		esac
		cmp -s -n "$(wc -c < out.txt)" out.txt full.txt ||
			bad_prefix=$((bad_prefix + 1))
		L=$((L + step))
	done
	is "$bad_status" 0 "$f: prefixes (length step $step, $size bytes) exit 0 or 1"
	is "$bad_diag" 0 "$f: each failing prefix names the offset, clean ones say nothing"
	is "$bad_prefix" 0 "$f: each prefix prints a prefix of the full text"
	echo "# $f: $clean clean prefixes"
}
gen-wtf --legacy --quirks --records 40 --zones 2 --seed 3 > legacy.wtf
gen-wtf --quirks --records 40 --zones 2 --chunk 400 --seed 4 > v10.wtf
# About 150 prefixes each (a process start is slow on a loaded machine),
# the header bytes one by one.
prefixes legacy.wtf 17
prefixes v10.wtf 23
head -c 213 legacy.wtf > lhead.wtf
prefixes lhead.wtf 1

check_cut() {
	head -c "$2" "$1" > cut
	wtf2txt cut > /dev/null 2> err.txt
	is "$? $(cat err.txt)" "1 wtf2txt: cut: $3" "$1 cut at $2 bytes"
}
check_cut v10.wtf 0 "offset 0x0: empty input: no WTF header"
check_cut v10.wtf 7 "offset 0x0: truncated header: needs 12 bytes, only 7 left"
check_cut v10.wtf 20 "offset 0xc, chunk 0: truncated chunk header: needs 24 bytes, only 8 left"
# The header chunk is 24 + 12 + the JSON (167 bytes, padded to 168).
check_cut v10.wtf 100 "offset 0xc, chunk 0: truncated chunk: needs 204 bytes, only 88 left"
check_cut v10.wtf 230 "offset 0xd8, chunk 1: truncated chunk header: needs 24 bytes, only 14 left"
check_cut v10.wtf 240 "offset 0xd8, chunk 1: truncated chunk: needs 1968 bytes, only 24 left"
# legacy: 12 + context (4 + 58) + 12 + metadata (4 + 19) = 109 = 0x6d.
check_cut legacy.wtf 14 "offset 0xc: truncated header: context info"
check_cut legacy.wtf 40 "offset 0xc: truncated header: context info needs 62 bytes, only 28 left"
check_cut legacy.wtf 80 "offset 0x4a: truncated header: flags and timebase need 12 bytes, only 6 left"
check_cut legacy.wtf 110 "offset 0x6d, record 0: truncated record: needs 6 bytes, only 1 left"
# The first record, define(1, 0, 40, "wtf.event#define", <70 bytes>), is
# 6 + 8 + 2 + 16 + 2 + 70 = 104 bytes: the next is at 0x6d + 104 = 0xd5.
check_cut legacy.wtf 120 "offset 0x6d, record 0: truncated wtf.event#define record: 11 bytes left"
check_cut legacy.wtf 212 "offset 0x6d, record 0: truncated wtf.event#define record: 103 bytes left"
check_cut legacy.wtf 215 "offset 0xd5, record 1: truncated record: needs 6 bytes, only 2 left"
check_cut legacy.wtf 220 "offset 0xd5, record 1: truncated wtf.event#define record: 7 bytes left"

# gzip cut short: an error after the records inflated before it.
gen-wtf --legacy --records 20000 --seed 5 > g.wtf
wtf2txt g.wtf > full.txt
gzip -9 -c g.wtf > g.gz
size=$(wc -c < g.gz | tr -d ' ')
head -c $((size / 2)) g.gz > cut.gz
wtf2txt cut.gz > out.txt 2> err.txt
like "$? $(cat err.txt)" "1 wtf2txt: cut.gz: offset 0x*, record *: truncated gzip stream (unexpected end of file)" \
    "gzip cut in the middle: exit 1, offset and record named"
n=$(wc -c < out.txt | tr -d ' ')
cmp -s -n "$n" out.txt full.txt && [ "$(wc -l < out.txt)" -gt 100 ]
ok $? "gzip cut in the middle: whole records, a prefix of the full text"
done_testing
