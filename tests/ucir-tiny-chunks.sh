#!/bin/sh
# ucir2txt on a trace whose one large write arrives in 1-byte stored
# Snappy chunks (9 bytes of file each): memory stays within ucir2txt(1)'s
# bound (the op, its text line and a few MiB), not 16 bytes a chunk, and
# the write comes out whole.
. "$srcdir/tests/tap.sh"
if ! command -v perl > /dev/null || ! command -v xxd > /dev/null; then
	skip "no perl or xxd" "ucir2txt: 1-byte chunks"
	done_testing
fi
N=2097152	# the write's bytes: 2 M chunks
# The header and stream identifier of a trace with no op.
: | gen-ucir --wrap-trace | head -c 84 > t.ucir || exit 99
# A frame of one op: a write of N bytes 0x2a at 0x1000, then each byte
# of the stream its own stored chunk (checksum: masked CRC-32C).
perl -e '
	my $n = $ARGV[0];
	my @mask;
	for my $b (0 .. 255) {
		my $c = 0xffffffff ^ $b;
		$c = ($c >> 1) ^ (($c & 1) ? 0x82f63b78 : 0) for 1 .. 8;
		$c ^= 0xffffffff;
		$mask[$b] = pack("V", ((($c >> 15) | ($c << 17)) + 0xa282ead8) & 0xffffffff);
	}
	my $ops = pack("C Q< V", 1, 0, 1) . pack("C Q< V", 8, 0x1000, $n) . ("\x2a" x $n);
	my $out = "";
	for my $i (0 .. length($ops) - 1) {
		my $b = ord(substr($ops, $i, 1));
		$out .= "\x01\x05\x00\x00" . $mask[$b] . chr($b);
		if (length($out) > 65536) { print $out; $out = ""; }
	}
	print $out;
' $N >> t.ucir || exit 99
ucir2txt t.ucir > out.txt 2> err.txt
is "$?:$(cat err.txt)" "0:" "ucir2txt: a write in 1-byte chunks decodes"
w=$(grep '^write ' out.txt | sed 's/ data=.*//')
is "$w" "write tid=0 pc=0x0 addr=0x1000 size=$N" "the write, as written"
d=$(grep '^write ' out.txt | sed 's/.* data=//' | tr -d '\n' | tr -d '2a' | wc -c)
is "$(grep -c '^write ' out.txt) $(grep '^write ' out.txt | sed 's/.* data=//' | wc -c) $d" "1 $((2 * N + 1)) 0" \
    "its data whole: $N bytes of 0x2a"
if rss_ok ucir2txt; then
	kb=$(/usr/bin/time -f %M ucir2txt t.ucir 2>&1 > /dev/null)
	# The op (2 MiB), its hex line (4 MiB) and the buffers: under 24 MiB;
	# 16 bytes a chunk were 32 MiB more.
	[ "$kb" -lt 24576 ]
	ok $? "ucir2txt: peak memory $kb KB for a 2 MiB write in 2 M chunks (under 24 MiB)"
else
	skip "no GNU time, or a sanitizer build" "ucir2txt: peak memory"
fi
done_testing
