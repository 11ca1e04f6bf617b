#!/bin/sh
# Round trips: ucir2txt | txt2ucir gives replay files of every arch back
# byte for byte (zlib levels 1, 2, 6 and 7); the text round trip is exact
# also for frames of another deflater; a big trace (over a million ops,
# frames larger than the I/O buffers) decodes to the generator's text
# record by record and comes back byte for byte; streams without frame
# records, filtered streams and streams cut out of syscalls encode into
# valid replays holding the same ops.
. "$srcdir/tests/tap.sh"

for a in x86_64 x86 x86_16 arm arm64 mips sparc m68k; do
	gen-ucir --arch $a --frames 40 --ops 60 --seed 11 --quirks > $a.ucir
	ucir2txt $a.ucir | txt2ucir > $a.re
	same_file $a.re $a.ucir "$a: byte for byte"
done

gen-ucir --foreign --frames 30 --ops 60 --text f.want > f.ucir
ucir2txt f.ucir > f.txt
same_file f.txt f.want "another deflater's frames decode (level named by the header bits)"
txt2ucir f.txt > f.re
cmp -s f.re f.ucir; ok $((! $?)) "another deflater's frames do not come back byte for byte"
ucir2txt f.re > f.re.txt
same_file f.re.txt f.txt "but the text round trip is exact"
ucir2txt -v -c f.ucir 2>&1 >/dev/null | grep -q 'frames were not written by this zlib'
ok $? "-v -c says which frames zlib does not reproduce"

# Real size: 1.5 million ops, frames of up to 9000 ops.
gen-ucir --frames 250 --ops 6000 --seed 5 --text big.want > big.ucir
ucir2txt big.ucir > big.txt
ok $? "big trace decodes ($(wc -l < big.txt) records)"
same_file big.txt big.want "big trace: every record as the generator made it"
txt2ucir big.txt > big.re
same_file big.re big.ucir "big trace: byte for byte"
gzip -c big.ucir | ucir2txt | cmp -s - big.txt
ok $? "gzip-compressed input decodes the same"

# Without frame records the encoder frames; the ops are the same.
gen-ucir --frames 30 --ops 300 --seed 3 > s.ucir
ucir2txt s.ucir > s.txt
grep -v '^ucir-frame' s.txt > s.noframe
txt2ucir -n 1000 s.noframe > s.made
ok $? "a stream without ucir-frame encodes"
ucir2txt s.made > s.made.txt
ok $? "and decodes"
grep -v '^ucir-frame' s.made.txt | cmp -s - s.noframe
ok $? "holding the same ops"
top=$(grep -c -v -e '^ucir-header' -e ' depth=' s.noframe)
is "$(grep -c '^ucir-frame' s.made.txt)" $(( (top + 999) / 1000 )) \
    "in frames of 1000 top-level ops"

# Filtered by address: a valid replay of the ops that are left.
txtfilter --addr 0x7fff0000-0x7fff7fff s.txt > s.addr
txt2ucir s.addr > s.addr.ucir
ok $? "an address-filtered stream encodes"
ucir2txt s.addr.ucir > s.addr.back
ok $? "into a valid replay"
strip() { grep -v '^ucir-frame' "$1" | sed 's/^\(read\|write\)\( tid=[0-9]*\( depth=[0-9]*\)\?\) pc=0x[0-9a-f]*/\1\2/'; }
strip s.addr > a1; strip s.addr.back > a2
same_file a2 a1 "with the same ops (reads and writes take the pc of the insn before them)"
txtfilter --tid 1 s.txt | txt2ucir > s.tid.ucir
ok $? "a thread-filtered stream encodes"
ucir2txt s.tid.ucir > /dev/null; ok $? "into a valid replay"

# grep took the syscalls away: their ops go one level up, with a warning.
grep -v '^ucir-syscall' s.txt > s.nosys
txt2ucir s.nosys 2> warn > s.nosys.ucir
ok $? "a stream whose syscalls are gone encodes"
grep -q 'depth= whose syscall is not in the stream' warn; ok $? "and says so"
ucir2txt s.nosys.ucir | grep -v '^ucir-frame' > n2
grep -v '^ucir-frame' s.nosys | sed 's/ depth=[0-9]*//' > n1
same_file n2 n1 "with the same ops, unnested"
done_testing
