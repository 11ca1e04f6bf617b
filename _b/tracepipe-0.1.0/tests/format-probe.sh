#!/bin/sh
# Every decoder and encoder of the format table given every format's
# sample (tests/data/probe/NAME.sample): its own decoder reads it, every
# other decoder and every encoder refuses it at offset 0 naming the format
# and the program that reads it; xz, zstd and bzip2 data are named; binary
# is not read from a terminal; several files are decoded in turn and a
# file of another format is an error naming that file.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/probe
formats > table || exit 99

while read -r name dec enc kind desc; do
	s=$D/$name.sample
	if [ ! -f "$s" ]; then
		ok 1 "$name: a sample in tests/data/probe"
		continue
	fi
	$dec "$s" > own.txt 2> own.err
	is "$?:$(cat own.err)" "0:" "$dec reads $name.sample"
	[ "$kind" = text ] && verb="looks like" || verb=is
	[ "$name" = rapidbin ] && verb="looks like"	# no magic: plausibility
	while read -r other odec oenc okind odesc; do
		[ "$other" = "$name" ] && continue
		$odec "$s" > out.txt 2> err.txt
		is "$?:$(wc -c < out.txt | tr -d ' '):$(cat err.txt)" \
		    "1:0:$odec: $s: offset 0x0: this $verb $desc; use $dec" \
		    "$odec refuses $name.sample"
	done < table
	while read -r other odec oenc okind odesc; do
		$oenc "$s" > out.bin 2> err.txt
		is "$?:$(wc -c < out.bin | tr -d ' '):$(cat err.txt)" \
		    "1:0:$oenc: $s: offset 0x0: this $verb $desc, not trace text; use $dec" \
		    "$oenc refuses $name.sample"
	done < table

	# Compressed data tracepipe does not read is named, from a file and
	# from a pipe.
	for z in "xz xz" "zstd zstd" "bzip2 bzip2"; do
		set -- $z
		if ! command -v "$2" > /dev/null; then
			skip "no $2" "$dec names $1 data"
			continue
		fi
		"$2" -c < "$s" > s.z 2>/dev/null || { ok 1 "$2 -c"; continue; }
		$dec s.z > out.txt 2> err.txt
		is "$?:$(cat err.txt)" \
		    "1:$dec: s.z: offset 0x0: this is $1-compressed data; decompress it first ($2 -dc)" \
		    "$dec names $1 data"
		$enc < s.z > out.txt 2> err.txt
		like "$?:$(cat err.txt)" "1:$enc: <stdin>: offset 0x0: this is $1-compressed*" \
		    "$enc names $1 data"
	done

	# gzip stays transparent.
	gzip -c < "$s" > s.gz
	$dec s.gz > gz.txt
	same_file gz.txt own.txt "$dec reads gzip-compressed $name.sample"

	if [ "$kind" = binary ]; then
		if command -v script > /dev/null; then
			err=$(script -qec "$dec" /dev/null < /dev/null 2>&1 | tr -d '\r')
			is "$err" "$dec: <stdin>: refusing to read binary data from a terminal" \
			    "$dec refuses to read binary from a terminal"
		else
			skip "no script(1)" "$dec refuses to read binary from a terminal"
		fi
	fi

	# Several files: each in turn; one of another format stops with its name.
	$dec "$s" - "$s" < "$s" > three.txt
	cat own.txt own.txt own.txt > want.txt
	same_file three.txt want.txt "$dec decodes several files in turn"
	while read -r other odec oenc okind odesc; do
		[ "$other" = "$name" ] && continue
		cp "$D/$other.sample" "other.$other"
		$dec "$s" "other.$other" "$s" > two.txt 2> err.txt
		like "$?:$(cat err.txt)" "1:$dec: other.$other: offset 0x0: this * $odesc; use $odec" \
		    "$dec $name.sample other.$other: the other file is named"
		same_file two.txt own.txt "$dec: the records of the files before it are written"
		$dec -o two.out "$s" "other.$other" 2>/dev/null
		ok $(( $? != 1 )) "$dec -o: exit 1"
		[ ! -e two.out ]
		ok $? "$dec -o: no output file after a file of another format"
		break
	done < table
done < table
done_testing
