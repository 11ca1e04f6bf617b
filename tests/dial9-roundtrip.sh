#!/bin/sh
# dial92txt | txt2dial9 gives back the input byte for byte: the 8 real
# traces of every era (after gunzip), every edge vector upstream accepts,
# the generated every-kind trace, and a million generated events whose
# text is also compared, record by record, with the text the generator
# formats on its own.
. "$srcdir/tests/tap.sh"
C=$(corpus dial9)

roundtrip() {	# FILE NAME
	zcat -f "$1" > rt.bin
	dial92txt rt.bin > rt.txt && txt2dial9 rt.txt > rt.back
	ok $? "$2: decodes and encodes"
	same_file rt.back rt.bin "$2: byte for byte"
}

gen-dial9 --kinds > kinds.bin
roundtrip kinds.bin "every-kind trace"

gen-dial9 --events 1000000 --seed 7 --text bulk.want > bulk.bin
dial92txt bulk.bin > bulk.txt
ok $? "a million generated events decode"
same_file bulk.txt bulk.want "their text is the generator's, record by record"
txt2dial9 bulk.txt | cmp -s - bulk.bin
ok $? "and encodes back byte for byte"
rm -f bulk.want

if [ -n "$C" ]; then
	for f in "$C"/*.trc "$C"/*.trc.gz; do
		roundtrip "$f" "${f##*/}"
	done
	# gzip input as upstream stores it: the same text as after zcat.
	f=$C/block-in-place-small.trc.gz
	dial92txt "$f" > gz.txt
	zcat "$f" | dial92txt > plain.txt
	same_file gz.txt plain.txt "gzip input reads as its content"
	for v in 01_minimal_ok 02_header_only 03_version2 06_tag04_seed_reserved \
	    08_dup_schema_same 14_varint_overlong_zero 15_string_bad_utf8 \
	    16_schema_name_bad_utf8 17_pool_bad_utf8 18_optional_prefix_02 \
	    20_no_timestamp_schema 23_field_type_6_seed_missing \
	    24_annotation_unknown_tid 26_ts_backwards_reset; do
		dial92txt "$C/edge/$v.trc" | txt2dial9 | cmp -s - "$C/edge/$v.trc"
		ok $? "edge vector $v comes back byte for byte"
	done
else
	skip "no ../shared/corpus/dial9" "real traces and edge vectors"
fi
done_testing
