#!/bin/sh
# Input and output handling: pipes, regular files, -o, big traces that
# spool to $TMPDIR, | head, gzip.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/rapidbin

gen-rapidbin --events 3000 --seed 21 > g.bin
rapidbin2txt g.bin > g.txt

# The encoder's output is the same on a pipe, a file and with -o.
txt2rapidbin < g.txt > file.bin
txt2rapidbin < g.txt | cat > pipe.bin
txt2rapidbin -o o.bin g.txt
same_file pipe.bin file.bin "txt2rapidbin: pipe and regular file output identical"
same_file o.bin file.bin "txt2rapidbin: -o FILE identical"
cat g.txt | txt2rapidbin - > stdin.bin
same_file stdin.bin file.bin "txt2rapidbin: - reads stdin"
rapidbin2txt < g.bin | cat > p.txt
same_file p.txt g.txt "rapidbin2txt: stdin and pipe identical to file argument"
rapidbin2txt -o o.txt g.bin
same_file o.txt g.txt "rapidbin2txt: -o FILE"

# Appending to a file works (no seeking back to offset 0).
printf 'X' > app.bin
txt2rapidbin < g.txt >> app.bin
{ printf 'X'; cat file.bin; } > want.bin
same_file app.bin want.bin "txt2rapidbin >> file appends"

# A trace larger than the in-memory spool: spooled to $TMPDIR, which is
# left clean, and memory stays small.
mkdir spool
gen-rapidbin --events 1200000 --seed 22 --odd > big.bin
rapidbin2txt -q big.bin | TMPDIR=$PWD/spool txt2rapidbin > big2.bin
same_file big2.bin big.bin "1.2 M events through a spool file: byte-identical"
is "$(ls spool | wc -l | tr -d ' ')" 0 "the spool file is gone"
rapidbin2txt -q big.bin > big.txt
# AddressSanitizer's shadow memory is no measure of ours: no bound there.
if grep -q __asan_init "$(command -v txt2rapidbin)" 2>/dev/null; then
	skip "built with AddressSanitizer" "memory bounds"
elif [ -x /usr/bin/time ] && /usr/bin/time -f %M true 2> /dev/null; then
	kb=$( { /usr/bin/time -f %M txt2rapidbin big.txt > /dev/null; } 2>&1 | tail -1)
	[ "$kb" -lt 16384 ]; ok $? "txt2rapidbin: max RSS ${kb} KiB < 16 MiB"
	kb=$( { /usr/bin/time -f %M rapidbin2txt big.bin > /dev/null; } 2>&1 | tail -1)
	[ "$kb" -lt 16384 ]; ok $? "rapidbin2txt: max RSS ${kb} KiB < 16 MiB"
else
	skip "no GNU time" "memory bounds"
fi
TMPDIR=$PWD/no-such-dir txt2rapidbin big.txt > /dev/null 2> err.txt
is "$?" 2 "unusable \$TMPDIR for a big trace: exit 2"
like "$(cat err.txt)" "txt2rapidbin: *cannot create a spool file in $PWD/no-such-dir: *" "unusable \$TMPDIR: the diagnostic names it"

# A closed pipe ends the programs quietly.
rapidbin2txt big.bin 2> err.txt | head -1 > /dev/null
is "$(cat err.txt)" "" "rapidbin2txt | head -1: nothing on stderr"
rapidbin2txt -q big.bin | txt2std 2> err.txt | head -1 > /dev/null
is "$(cat err.txt)" "" "txt2std | head -1: nothing on stderr"
rapidbin2txt -q big.bin | txt2std -q | std2txt 2> err.txt | head -1 > /dev/null
is "$(cat err.txt)" "" "std2txt | head -1: nothing on stderr"

# gzip-compressed text.
if command -v gzip > /dev/null; then
	gzip -c g.txt > g.txt.gz
	txt2rapidbin g.txt.gz > gz.bin
	same_file gz.bin file.bin "txt2rapidbin reads gzip-compressed text"
	head -c 2000 g.txt.gz > cut.gz
	txt2rapidbin cut.gz > cut.bin 2> err.txt
	is "$?:$(wc -c < cut.bin | tr -d ' ')" "1:0" "truncated gzip: exit 1, nothing written"
else
	skip "no gzip" "gzip input"
	skip "no gzip" "truncated gzip"
fi

# --help and --version.
for p in rapidbin2txt:... txt2rapidbin: txt2std: std2txt:...; do
	files=${p#*:} p=${p%:*}
	$p --help > h.txt
	is "$?:$(head -1 h.txt)" "0:Usage: $p [OPTION]... [FILE]$files" "$p --help"
	like "$($p --version)" "$p (tracepipe) *" "$p --version"
done
done_testing
