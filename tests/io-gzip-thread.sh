#!/bin/sh
# Gzip input is inflated by a reader thread once it has shown itself to
# be gzip: the bytes, the offsets of gzip errors (checked against zlib's
# own count through perl's Compress::Raw::Zlib) and the end of a program
# that stops early while the thread waits on a pipe are as without it.
. "$srcdir/tests/tap.sh"
gen-trac --arch x64 --threads 4 --size-mb 2 --seed 5 > t.trace64 || exit 99
trac2txt t.trace64 > t.txt || exit 99
gzip -1 -c t.txt > t.txt.gz && gzip -1 -c t.trace64 > t.trace64.gz || exit 99
[ "$(wc -c < t.txt)" -gt 4000000 ] || exit 99

txtfilter --invert --tid 0 t.txt.gz > got.txt
is "$?" 0 "txtfilter reads several MB of gzip"
same_file got.txt t.txt "txtfilter: the same bytes as from the plain text"
cat t.txt.gz | txtfilter --invert --tid 0 > got.txt
same_file got.txt t.txt "the same from a pipe"
trac2txt t.trace64.gz > got.txt
same_file got.txt t.txt "trac2txt of a gzip-compressed trace: the same text"

# zlib's count of the bytes before the fault: the offset every message gives.
zcount() {
	perl -MCompress::Raw::Zlib -e '
	open(my $f, "<", $ARGV[0]) or die; binmode $f; local $/; my $in = <$f>;
	my ($i, $st) = Compress::Raw::Zlib::Inflate->new(-WindowBits => WANT_GZIP,
	    -Bufsize => 65536, -LimitOutput => 1);
	my $tot = 0;
	while (length $in) {
		my $out;
		$st = $i->inflate($in, $out);
		$tot += length $out;
		last if $st != Z_OK && $st != Z_BUF_ERROR;
	}
	printf "0x%x\n", $tot' "$1"
}
if perl -MCompress::Raw::Zlib -e 1 2>/dev/null; then
	size=$(wc -c < t.txt.gz)
	head -c $((size / 2)) t.txt.gz > cut.gz
	want=$(zcount cut.gz)
	err=$(txtfilter --invert --tid 0 cut.gz 2>&1 >/dev/null)
	is "$?:$err" "2:txtfilter: cut.gz: offset $want: truncated gzip stream (unexpected end of file)" \
	    "cut in the middle: the offset of the end of what inflates"
	# The trailer's CRC, found wrong after everything inflated.
	{ head -c $((size - 8)) t.txt.gz; printf '\0\0\0\0\0\0\0\0'; } > bad.gz
	want=$(zcount bad.gz)
	err=$(cat bad.gz | txtfilter --invert --tid 0 2>&1 >/dev/null)
	is "$?:$err" "2:txtfilter: <stdin>: offset $want: corrupt gzip data: incorrect data check" \
	    "a wrong CRC at the end: the offset of the end"
else
	skip "no Compress::Raw::Zlib" "gzip error offsets"
	skip "no Compress::Raw::Zlib" "gzip error offsets"
fi

# A bad record in the first block while the thread waits for a FIFO
# that stays open: the program ends at once, as it did without the thread.
rm -f gz.fifo
if mkfifo gz.fifo 2>/dev/null; then
	{ { echo 'read tid=zz'; head -c 300000 t.txt; } | gzip -1 -c; exec sleep 30; } > gz.fifo &
	writer=$!
	start=$(date +%s)
	err=$(timeout 8 txtfilter --tid 1 gz.fifo 2>&1 >/dev/null)
	rc=$?
	end=$(date +%s)
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
	like "$rc:$err" "2:txtfilter: gz.fifo:1:*" \
	    "an error with the FIFO still open: reported, not waited for ($((end - start)) s)"
else
	skip "mkfifo failed" "FIFO still open"
fi
rm -f gz.fifo
done_testing
