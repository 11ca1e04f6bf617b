#!/bin/sh
# ucir2txt against text checked by hand: a replay frame holding every op
# of the spec, the reference's vectors of usercorn's trace format, and
# the generator's independent account of synthetic traces of every arch.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/ucir
unhex() { sed 's/#.*//' "$1" | xxd -r -p; }

unhex "$D/replay-ops.hex" | gen-ucir --wrap-replay 12 > replay.ucir
ucir2txt replay.ucir > replay.got
ok $? "replay frame of every op decodes"
same_file replay.got "$D/replay.txt" "replay frame: the text checked by hand"
txt2ucir "$D/replay.txt" > replay.re
same_file replay.re replay.ucir "replay frame: txt2ucir gives the file back byte for byte"

unhex "$D/trace-ops.hex" | gen-ucir --wrap-trace > trace.ucir
unhex "$D/trace-header.hex" > header.bin
head -c 74 trace.ucir > header.got
same_file header.got header.bin "trace header: the reference's 74 bytes"
is "$(od -An -tx1 -j 74 -N 10 trace.ucir | tr -d ' \n')" ff060000734e61507059 \
    "trace: the Snappy stream identifier at offset 74"
is "$(od -An -tx1 -j 88 -N 4 trace.ucir | tr -d ' \n')" 8079a58e \
    "trace: the chunk's masked CRC-32C is the reference's"
ucir2txt trace.ucir > trace.got
ok $? "trace vectors decode"
same_file trace.got "$D/trace.txt" "trace vectors: the text checked by hand"

for a in x86_64 x86 x86_16 arm arm64 mips sparc m68k; do
	gen-ucir --arch $a --frames 20 --ops 30 --seed 7 --quirks \
	    --text $a.want > $a.ucir
	ucir2txt $a.ucir > $a.got
	ok $? "replay $a decodes"
	same_file $a.got $a.want "replay $a: the generator's own text"
	gen-ucir --format trace --arch $a --frames 12 --ops 20 --seed 7 \
	    --text t$a.want > t$a.ucir
	ucir2txt t$a.ucir > t$a.got
	ok $? "trace $a decodes"
	same_file t$a.got t$a.want "trace $a: the generator's own text"
done
# Every op kind and record kind is there.
cat ./*.want | awk '{ print $1 }' | sort -u > kinds
is "$(tr '\n' ' ' < kinds)" "insn read ucir-exit ucir-frame ucir-header ucir-jmp ucir-map ucir-nop ucir-prot ucir-reg ucir-spreg ucir-syscall ucir-unmap write " \
    "the generated traces hold every record kind"
grep -q ' depth=2 ' x86_64.want; ok $? "syscalls nested two deep"
grep -q ' exec=abs' x86_64.want; ok $? "EXEC_ABS where EXEC_REL would do"
grep -q ' flag=0x80' x86_64.want; ok $? "a keyframe flag other than 1"
grep -q ' os_pad=' x86_64.want; ok $? "NUL padding holding garbage"
for l in 1 2 6 7; do
	grep -q "level=$l\$" x86_64.want; ok $? "a frame at zlib level $l"
done
done_testing
