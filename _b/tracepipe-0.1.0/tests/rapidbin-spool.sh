#!/bin/sh
# txt2rapidbin spools its events (memory, then a temporary file) and reads
# them back once or twice: millions of events, with and without a header
# record, identity and renumbered ids, each output compared byte for byte
# (so event by event) with a RapidBin file that perl packs independently.
. "$srcdir/tests/tap.sh"

if ! command -v perl > /dev/null; then
	skip "no perl" "independent encoder"
	done_testing
fi

# first_diff WANT GOT: "" when identical, else the first differing event.
first_diff() {
	cmp "$1" "$2" 2>&1 | awk '/differ/ { b = $5 + 0; sub(",", "", b);
	    print (b <= 18 ? "header byte " b : "event " int((b - 19) / 8)) }
	    /EOF/ { print "length: " $0 }'
}

# The issue's case: one rewind too many wrote the file part twice.
yes 'read tid=0 var=0 loc=0' | head -n 262133 | txt2rapidbin | rapidbin2txt | grep -c '^read' > n.txt
is "$(cat n.txt)" 262133 "262133 identical events without a header record: 262133 back"

# gen N [header]: N native events of six kinds as text (in.txt) and the
# RapidBin file txt2rapidbin must make of them (want.bin), packed here.
gen() {
	perl -e '
	my ($n, $hdr) = @ARGV;
	my (%thr, %lock, %var, @w);
	open(my $t, ">", "in.txt") or die;
	open(my $b, ">", "want.bin") or die;
	binmode $b;
	my @kind = qw(read write acquire release fork join);
	my @key = qw(var var lock lock child child);
	my @op = (2, 3, 0, 1, 4, 5);
	my $ev = "";
	for my $i (0 .. $n - 1) {
		my $k = $i % 6;
		my $tid = ($i * 7) % 13;
		my $loc = ($i * 31) % 32768;
		my $d = $k < 2 ? ($i * 7919) % 200003 + ($i % 4 < 2 ? 0 : 2**33) :
		    $k < 4 ? $i % 50 : 13 + $i % 20;
		$thr{$tid} = 1;
		$k < 2 ? $var{$d} = 1 : $k < 4 ? $lock{$d} = 1 : ($thr{$d} = 1);
		print $t "$kind[$k] tid=$tid $key[$k]=$d loc=$loc\n";
		$ev .= pack("Q>", $tid | $op[$k] << 10 | $d << 14 | $loc << 48);
		if (length($ev) >= 65536) { push @w, $ev; $ev = ""; }
	}
	push @w, $ev;
	my $h = pack("s>l>l>q>", scalar(keys %thr), scalar(keys %lock),
	    scalar(keys %var), $n);
	print $b $h, @w;
	close $t;
	open($t, ">", "hdr.txt") or die;
	printf $t "rapidbin-header threads=%d locks=%d vars=%d events=%d\n",
	    scalar(keys %thr), scalar(keys %lock), scalar(keys %var), $n;
	' "$@"
}

mkdir spool
for n in 1 131071 2500000; do
	gen $n
	TMPDIR=$PWD/spool txt2rapidbin in.txt > got.bin
	is "$?:$(first_diff want.bin got.bin)" "0:" \
	    "$n events, no header record (two passes): every event as packed"
	cat hdr.txt in.txt | TMPDIR=$PWD/spool txt2rapidbin > got.bin
	is "$?:$(first_diff want.bin got.bin)" "0:" \
	    "$n events after their header record (one pass): every event as packed"
done
is "$(ls spool | wc -l | tr -d ' ')" 0 "no spool file left in \$TMPDIR"

# x64dbg-style accesses: 64-bit addresses renumbered in order of first
# appearance (a counting pass, then a writing pass that maps), --meta
# reading the maps after both.
perl -e '
	my $n = shift;
	my (%id, $next);
	open(my $t, ">", "acc.txt") or die;
	open(my $b, ">", "want.bin") or die;
	binmode $b;
	my $ev = "";
	$next = 0;
	for my $i (0 .. $n - 1) {
		my $addr = 0x7ff000000000 + (($i * 2654435761) % 150001) * 8;
		my $k = $i % 2;
		$id{$addr} = $next++ unless exists $id{$addr};
		printf $t "%s tid=%d addr=0x%x size=8 pc=0x401000\n",
		    $k ? "write" : "read", $i % 4, $addr;
		$ev .= pack("Q>", ($i % 4) | (2 + $k) << 10 | $id{$addr} << 14);
	}
	print $b pack("s>l>l>q>", 4, 0, $next, $n), $ev;
' 1200000
txt2rapidbin -P --meta meta.json acc.txt > got.bin
is "$?:$(first_diff want.bin got.bin)" "0:" \
    "1.2 M accesses renumbered through the spool: every event as packed"
grep -c '"address"' meta.json > n.txt
is "$(cat n.txt)" 150001 "--meta lists each of the 150001 addresses once"
done_testing
