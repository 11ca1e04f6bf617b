#!/bin/sh
# The pipes a program writes to and reads from grow to 1 MiB (or
# /proc/sys/fs/pipe-max-size when less), so that a pipeline does not take
# turns every 64 KiB: asked of the pipe (F_GETPIPE_SZ) by the process at
# its other end once the program has opened it, stdout, stdin, -o FIFO and
# a FIFO operand alike; the output stays the same bytes as into a file.
. "$srcdir/tests/tap.sh"
command -v perl > /dev/null 2>&1 || { skip "no perl" "pipe size"; done_testing; }
max=$(cat /proc/sys/fs/pipe-max-size 2>/dev/null) ||
    { skip "no /proc/sys/fs/pipe-max-size (not Linux)" "pipe size"; done_testing; }
want=$((max < 1048576 ? max : 1048576))
# Each pipe starts at 64 KiB; a smaller maximum leaves nothing to see.
[ "$want" -gt 65536 ] ||
    { skip "pipe-max-size is $max" "pipe size"; done_testing; }

gen-trac --arch x64 --blocks 1200 --seed 3 > t.trace64 || exit 99
trac2txt t.trace64 > t.txt || exit 99
[ "$(wc -c < t.txt)" -gt 300000 ] || exit 99
txt2rapidbin -q --no-pc t.txt > t.data || exit 99

# F_GETPIPE_SZ is 1032 on Linux (fcntl.h); perl has no name for it.
# The reader: everything first (the writer opened its end before its
# first byte), then the size of the pipe it read.
reader='local $/; my $all = <STDIN>; open(my $o, ">", $ARGV[0]) or die;
print $o $all; close $o; print STDERR fcntl(STDIN, 1032, 0) + 0, "\n"'
# The writer: more than 64 KiB, which the program must have read (and so
# opened its stdin) before the last write returned.
writer='open(my $i, "<", $ARGV[0]) or die; binmode $i; local $/;
my $all = <$i>; print STDOUT $all; close STDOUT;
open(STDOUT, ">&", \*STDERR); print STDERR fcntl(STDOUT, 1032, 0) + 0, "\n"'

for pair in "trac2txt t.trace64" "rapidbin2txt t.data" "txtfilter --tid 0 --invert t.txt" \
    "txt2rapidbin -q --no-pc t.txt"; do
	set -- $pair
	"$@" > want.out 2>/dev/null
	size=$("$@" 2>/dev/null | perl -e "$reader" got.out 2>&1)
	is "$size" "$want" "$1 grows the pipe it writes to"
	same_file got.out want.out "$1 into the grown pipe: the same bytes as into a file"
done

# The writer's end: perl's stdout pipe, asked after the last write.
size=$(perl -e 'my $w = shift; open(my $i, "<", $w) or die; binmode $i;
local $/; my $all = <$i>; open(my $p, "|-", @ARGV) or die;
print $p $all; print STDERR fcntl($p, 1032, 0) + 0, "\n"; close $p' \
    t.txt txt2rapidbin -q --no-pc -o got.data 2>&1 >/dev/null)
is "$size" "$want" "txt2rapidbin grows the pipe it reads from (stdin)"
txt2rapidbin -q --no-pc t.txt > want.data
same_file got.data want.data "txt2rapidbin from the grown pipe: the same bytes"

# A FIFO named as the output (-o) and as the input operand.
rm -f fifo
if mkfifo fifo 2>/dev/null; then
	perl -e "$reader" got.out < fifo 2> size.out &
	trac2txt -o fifo t.trace64
	wait
	is "$(cat size.out)" "$want" "trac2txt -o FIFO grows it"
	same_file got.out t.txt "trac2txt -o FIFO: the same bytes"
	perl -e 'open(my $i, "<", $ARGV[0]) or die; binmode $i; local $/;
	my $all = <$i>; open(my $f, ">", $ARGV[1]) or die; print $f $all;
	print STDERR fcntl($f, 1032, 0) + 0, "\n"; close $f' t.txt fifo 2> size.out &
	txtfilter --invert --tid 0 fifo > got.out
	wait
	is "$(cat size.out)" "$want" "txtfilter FIFO grows the FIFO it reads"
	txtfilter --invert --tid 0 t.txt > want.out
	same_file got.out want.out "txtfilter FIFO: the same bytes"
else
	skip "mkfifo failed" "FIFO operands"
fi
rm -f fifo
done_testing
