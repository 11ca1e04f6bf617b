#!/bin/sh
# txt2trac on streams trac2txt did not write: no trac-header, no full dump
# first, records of other decoders, records a trace cannot hold (skipped
# and counted, or an error with --strict), and malformed text.
. "$srcdir/tests/tap.sh"

DEFJSON='{\"ver\":1,\"arch\":\"x64\",\"hashAlgorithm\":\"murmurhash\",\"hash\":\"0x0\",\"compression\":\"\",\"path\":\"\"}'

# No header, no full dump: the default header, and the first instruction
# becomes a full dump of the state known (rip from pc, the rest 0).
printf 'insn tid=5 pc=0x401000 bytes=90\ninsn tid=5 pc=0x401001 bytes=40 rax=0x1\n' > a.txt
txt2trac -v a.txt > a.trace 2> err.txt
ok $? "a stream without header encodes"
like "$(cat err.txt)" "*the first instruction was written as one*" "-v says a full dump was made"
trac2txt a.trace > out.txt
is "$(sed -n 1p out.txt)" "trac-header arch=x64 json=\"$DEFJSON\"" "default header (x64)"
is "$(sed -n 2p out.txt | awk '{ print NF, $2, $3, $4, $5, $6, $22, $23 }')" \
    "177 seq=0 tid=5 pc=0x401000 bytes=90 rax=0x0 rip=0x401000 rflags=0x0" \
    "first instruction: a full dump of 172 slots with rip = pc"
is "$(sed -n 3p out.txt)" "insn seq=1 tid=5 pc=0x401001 bytes=40 rax=0x1 rip=0x401001" \
    "pc without rip moves the instruction pointer"

txt2trac --arch x86 a.txt | trac2txt > out.txt
is "$(sed -n 2p out.txt | awk '{ print NF, $1, $5, $14, $15 }')" "221 insn bytes=90 eip=0x401000 eflags=0x0" \
    "--arch x86: 216 slots, eip = pc; rax is no x86 register and is ignored"
printf 'insn bytes=90 eax=0x100000000\n' | txt2trac --arch x86 > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2trac: <stdin>:1:19: field "eax": "0x100000000": does not fit in 32 bits (arch x86)' \
    "x86 slot values have 32 bits"

# A header but no full dump first; registers out of order.
cat > b.txt <<'TXT'
trac-header arch=x64
insn seq=7 tid=3 pc=0x10 bytes=90 rax=0x5 rip=0x10
insn seq=8 tid=3 pc=0x11 bytes=90 rip=0x11 rcx=0x1 rax=0x7
TXT
txt2trac b.txt | trac2txt > out.txt
is "$(sed -n 2p out.txt | awk '{ print NF, $2, $3, $4, $6, $22 }')" "177 seq=0 tid=3 pc=0x10 rax=0x5 rip=0x10" \
    "header without json: the first block is made a full dump"
is "$(sed -n 3p out.txt)" "insn seq=1 tid=3 pc=0x11 bytes=90 rax=0x7 rcx=0x1 rip=0x11" \
    "registers are sorted into slot order"
# A register twice is a key twice: malformed, as for every reader.
printf 'insn seq=8 tid=3 pc=0x11 bytes=90 rax=0x6 rax=0x7\n' > b2.txt
txt2trac b2.txt > /dev/null 2> err.txt
like "$?:$(cat err.txt)" "1:txt2trac: b2.txt:1:43: key \"*\" twice in one record" \
    "a register given twice is refused (trace-text(5))"

# Records of other decoders: other fields are ignored; what a trace
# cannot hold is skipped and counted.
cat > c.txt <<'TXT'
# made by hand

read tid=1 addr=0x1ff old=0x9
insn tid=1 pc=0x1000 bytes=90 mnemonic=nop
read tid=1 addr=0x2000 size=4 value=0x7
write tid=1 addr=0x2008 old=0x1 new=0x2
acquire tid=1 lock=3
insn tid=2 pc=0x1001 bytes=c3
write tid=2 addr=0x3000
insn tid=2 pc=0x1002
read tid=2 addr=0x4000 old=0x1
TXT
txt2trac c.txt > c.trace 2> err.txt
is "$? $(cat err.txt)" '0 txt2trac: 1 record skipped, not expressible in an x64dbg trace (first at line 3: read without an instruction before it)
txt2trac: 1 record skipped, not expressible in an x64dbg trace (first at line 7: record kind "acquire")
txt2trac: 2 records changed: an unknown field dropped (first at line 4: insn field "mnemonic")
txt2trac: 1 insn record without opcode bytes was given nop opcodes (90, one per byte of size=, else one) (first: line 10)' \
    "skipped records are counted, the first is named; so are unknown fields and insn records without bytes"
trac2txt c.trace | sed -n '3,$p' > out.txt
is "$(cat out.txt)" "read tid=1 seq=0 pc=0x1000 addr=0x2000 size=8 old=0x0
write tid=1 seq=0 pc=0x1000 addr=0x2008 size=8 old=0x1 new=0x2
insn seq=1 tid=2 pc=0x1001 bytes=c3 tprev=none rip=0x1001
write tid=2 seq=1 pc=0x1001 addr=0x3000 size=8 old=0x0 new=0x0
insn seq=2 tid=2 pc=0x1002 bytes=90 rip=0x1002
read tid=2 seq=2 pc=0x1002 addr=0x4000 size=8 old=0x1" \
    "foreign insn, read and write records are encoded; missing old and new values are 0"
txt2trac -q c.txt > /dev/null 2> err.txt
is "$? $(cat err.txt)" "0 " "-q: no summary"
txt2trac --strict c.txt > /dev/null 2> err.txt
is "$? $(cat err.txt)" "1 txt2trac: c.txt:3: read without an instruction before it: not expressible in an x64dbg trace" \
    "--strict: the first record that cannot be expressed is an error"
sed -e 3d -e 's/ mnemonic=nop//' -e 's/ value=0x7//' c.txt | txt2trac --strict > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2trac: <stdin>:6: record kind "acquire": not expressible in an x64dbg trace' \
    "--strict names the line of a foreign record kind"

# 33 accesses: the 33rd is skipped.
{ echo 'insn tid=1 pc=0x1000 bytes=90'; i=0
  while [ $i -lt 33 ]; do echo "read addr=$i old=$i"; i=$((i + 1)); done; } > d.txt
txt2trac d.txt 2> err.txt | trac2txt > out.txt
is "$(grep -c '^read' out.txt) $(cat err.txt)" "32 txt2trac: 1 record skipped, not expressible in an x64dbg trace (first at line 34: read beyond 32 memory accesses of an instruction)" \
    "more than 32 accesses: the rest is skipped and counted"

# Two decoded traces in a row: the second header is dropped and the blocks
# follow as an appended recording session, as x64dbg appends to a file.
gen-trac --blocks 600 --threads 2 --seed 1 > s1.trace
gen-trac --blocks 700 --threads 3 --seed 2 > s2.trace
{ trac2txt s1.trace; trac2txt s2.trace; } | txt2trac > s.trace 2> err.txt
jlen=$(head -c 8 s2.trace | tail -c 4 | od -An -tu4 | tr -d ' ')
{ cat s1.trace; tail -c +$((8 + jlen + 1)) s2.trace; } > want.trace
same_file s.trace want.trace "concatenated texts encode as appended sessions"
like "$(cat err.txt)" "*1 record skipped*trac-header record after the first block*" "the second header is counted"

# Malformed text and bad values are errors with line and column.
printf 'insn tid=x bytes=90\n' | txt2trac > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2trac: <stdin>:1:10: field "tid": "x": not an unsigned 64-bit number' "a bad number"
printf 'insn bytes=90 rax="1\n' | txt2trac > /dev/null 2> err.txt
like "$? $(cat err.txt)" '1 txt2trac: <stdin>:1:*unterminated string' "a syntax error"
printf 'trac-header arch=arm\n' | txt2trac > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2trac: <stdin>:1:18: field "arch": "arm": unsupported arch (x64 or x86 expected)' "an unknown arch"
printf 'trac-header json="{\\"ver\\":1,\\"arch\\":\\"x86\\",\\"compression\\":\\"\\"}" arch=x64\n' | txt2trac > /dev/null 2> err.txt
like "$? $(cat err.txt)" '1 txt2trac: <stdin>:1:*disagrees with the JSON header*' "arch and JSON disagree"
printf 'insn bytes=90 rsvd=0x80\n' | txt2trac > /dev/null 2> err.txt
like "$? $(cat err.txt)" '1 txt2trac: <stdin>:1:*only flag bits 4-6 (0x70) are reserved' "rsvd outside bits 4-6"
printf 'insn bytes=90 tidstored=2\n' | txt2trac > /dev/null 2> err.txt
like "$? $(cat err.txt)" '1 *field "tidstored": "2": expected 0, 1 or noflag' "bad tidstored"
printf 'trac-user type=0x7f data=00\n' | txt2trac > /dev/null 2> err.txt
like "$? $(cat err.txt)" '1 *user block types are 0x80 to 0xff' "user block type below 0x80"

# -o FILE: written only on success; a failure leaves nothing behind.
txt2trac -o good.trace a.txt
cmp -s good.trace a.trace
ok $? "-o FILE"
printf 'insn tid=x bytes=90\n' > bad.txt
txt2trac -o bad.trace bad.txt 2> /dev/null
is "$? $(ls bad.trace* 2>/dev/null)" "1 " "-o FILE: nothing is left after an error"

# A user block without data= is an empty one (found by libFuzzer: the
# empty payload was copied from a null buffer).
txt2trac "$srcdir/tests/data/trac/regress-user-nodata.txt" | trac2txt > out.txt
is "$(tail -n 1 out.txt)" "trac-user type=0x80 data=" "trac-user without data"

# An empty stream is a trace with a header and no blocks.
txt2trac < /dev/null | trac2txt > out.txt
is "$(cat out.txt)" "trac-header arch=x64 json=\"$DEFJSON\"" "empty text: header only"
# The minimal records of other decoders (an insn with tid and pc only, a
# write with size, old and new): encoded, the opcode made a nop; a record
# of another kind is skipped and counted.
printf 'insn tid=1 pc=0x401000\nwrite tid=1 addr=0x10 size=8 old=0 new=1\nacquire tid=0 lock=3 loc=1\n' > m.txt
txt2trac m.txt 2> err.txt | trac2txt > out.txt
is "$(cat err.txt)" 'txt2trac: 1 record skipped, not expressible in an x64dbg trace (first at line 3: record kind "acquire")
txt2trac: 1 insn record without opcode bytes was given nop opcodes (90, one per byte of size=, else one) (first: line 1)' \
    "minimal records: the skipped one and the missing opcode are reported"
is "$(sed -n 2p out.txt | cut -d' ' -f1-5) $(sed -n 2p out.txt | awk '{ print NF }')" \
    "insn seq=0 tid=1 pc=0x401000 bytes=90 177" "minimal insn: a full dump with a nop"
is "$(sed -n '3,$p' out.txt)" "write tid=1 seq=0 pc=0x401000 addr=0x10 size=8 old=0x0 new=0x1" \
    "minimal write: encoded as it was"
txt2trac --strict m.txt > /dev/null 2> err.txt
is "$? $(cat err.txt)" "1 txt2trac: m.txt:1: insn record without opcode bytes: an x64dbg trace needs 1 to 15" \
    "--strict: an insn without opcode bytes is an error"

# Thread ids: stored (flag 0x80) on the first block, when tid changes and
# not otherwise; an insn without tid keeps the thread.  Checked in the
# bytes: the blocks start after the default header (8 + 91 bytes), the
# full dump is 4 + 4 + 1 + 172 + 172 * 8 = 1557 bytes, a block with rip
# only 4 + 1 + 1 + 8 = 14, with a thread id 18.
printf 'insn tid=1 pc=0x10 bytes=90\ninsn tid=1 pc=0x11 bytes=90\ninsn tid=2 pc=0x12 bytes=90\ninsn pc=0x13 bytes=90\n' |
    txt2trac > t.trace
flags() { od -An -tx1 -j "$1" -N 4 t.trace | tr -d ' \n'; }
is "$(wc -c < t.trace | tr -d ' ') $(flags 99) $(flags 1656) $(flags 1670) $(flags 1688)" \
    "1702 00ac0081 00010001 00010081 00010001" \
    "thread ids are stored on the first block and when they change"
is "$(trac2txt t.trace | awk '$1 == "insn" { print $3 }' | tr '\n' ' ')" "tid=1 tid=1 tid=2 tid=2 " \
    "and read back for every block"

# Accesses belong to the insn before them: one whose seq, tid or pc
# differs (both records having the field) is skipped and counted.
cat > acc.txt <<'TXT'
insn seq=4 tid=1 pc=0x1000 bytes=90
read seq=4 tid=1 pc=0x1000 addr=0x10 old=0x1
read seq=5 tid=1 pc=0x1000 addr=0x18 old=0x1
write seq=4 tid=2 pc=0x1000 addr=0x20 old=0x1 new=0x2
write seq=4 tid=1 pc=0x1001 addr=0x28 old=0x1 new=0x2
TXT
txt2trac acc.txt 2> err.txt | trac2txt | grep -c '^read\|^write' > out.txt
is "$(cat out.txt) $(cat err.txt)" "1 txt2trac: 1 record skipped, not expressible in an x64dbg trace (first at line 3: read with seq=5 after an insn with seq=4)
txt2trac: 1 record skipped, not expressible in an x64dbg trace (first at line 4: write with tid=2 after an insn with tid=1)
txt2trac: 1 record skipped, not expressible in an x64dbg trace (first at line 5: write with pc=0x1001 after an insn with pc=0x1000)" \
    "accesses of another instruction are skipped"
sed 3d acc.txt | txt2trac --strict 2> err.txt > /dev/null
is "$? $(cat err.txt)" "1 txt2trac: <stdin>:3: write with tid=2 after an insn with tid=1: not expressible in an x64dbg trace" \
    "--strict: an access of another thread is an error"
sed '3,4d' acc.txt | txt2trac --strict 2> err.txt > /dev/null
is "$? $(cat err.txt)" "1 txt2trac: <stdin>:3: write with pc=0x1001 after an insn with pc=0x1000: not expressible in an x64dbg trace" \
    "--strict: an access of another pc is an error"

# Sizes: x64dbg stores pointer-sized values, and an operand larger than a
# pointer as several accesses at consecutive addresses.
cat > sz.txt <<'TXT'
insn tid=1 pc=0x1000 bytes=90
read addr=0x40 size=2 old=0xffff
write addr=0x30 size=16 old=0x1122334455667788 new=0x99
write addr=0x50 size=8 old=0x1111111122222222 new=0x1111111133333333
TXT
txt2trac sz.txt | trac2txt | grep -v '^insn\|^trac' | cut -d' ' -f1,5- > out.txt
is "$(cat out.txt)" "read addr=0x40 size=8 old=0xffff
write addr=0x30 size=8 old=0x1122334455667788 new=0x99
read addr=0x38 size=8 old=0x0
write addr=0x50 size=8 old=0x1111111122222222 new=0x1111111133333333" \
    "x64: a smaller operand in one access, a 16-byte one in two (the unchanged half a read)"
txt2trac --arch x86 sz.txt | trac2txt | grep -v '^insn\|^trac' | cut -d' ' -f1,5- > out.txt
is "$(cat out.txt)" "read addr=0x40 size=4 old=0xffff
write addr=0x30 size=4 old=0x55667788 new=0x99
write addr=0x34 size=4 old=0x11223344 new=0x0
read addr=0x38 size=4 old=0x0
read addr=0x3c size=4 old=0x0
write addr=0x50 size=4 old=0x22222222 new=0x33333333
read addr=0x54 size=4 old=0x11111111" \
    "x86: 16 bytes in four accesses, 8 in two, low part first"
printf 'insn bytes=90\nwrite addr=0x50 old=0x100000000 new=1\n' | txt2trac --arch x86 > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2trac: <stdin>:2:21: field "old": "0x100000000": does not fit in 32 bits (arch x86)' \
    "x86: a pointer-sized value of more than 32 bits is an error"
printf 'insn bytes=90\nread addr=0x50 size=0\nread addr=0x60 size=257\nread addr=0x70 size=256\n' | txt2trac 2> err.txt | trac2txt | grep -c '^read' > out.txt
is "$(cat out.txt) $(cat err.txt)" "32 txt2trac: 1 record skipped, not expressible in an x64dbg trace (first at line 2: read of size 0)
txt2trac: 1 record skipped, not expressible in an x64dbg trace (first at line 3: read beyond 32 memory accesses of an instruction)" \
    "size 0 and more than 32 accesses are skipped; 256 bytes are 32 accesses"

# One file holds one architecture: a second header of another is an error.
{ trac2txt s1.trace; gen-trac --arch x86 --blocks 3 | trac2txt; } | txt2trac > /dev/null 2> err.txt
like "$? $(cat err.txt)" '1 txt2trac: <stdin>:*: field "arch": "x86": arch x86 after blocks of arch x64: one trace file holds one architecture' \
    "a second header of another arch is an error"

# JSON headers that x64dbg and trac2txt would refuse are not written.
for j in '{\"ver\":1,\"arch\":\"x64\"}|no "compression" key' \
    '{\"ver\":2,\"arch\":\"x64\",\"compression\":\"\"}|"ver" is not the number 1' \
    '{\"ver\":1,\"arch\":\"x64\",\"compression\":\"\"}}|the JSON: more data after the value, at its byte 39' \
    '{\"ver\":1,\"arch\":\"arm\",\"compression\":\"\"}|the JSON'"'"'s arch is not "x64" or "x86"'; do
	printf 'trac-header json="%s"\n' "${j%%|*}" | txt2trac > /dev/null 2> err.txt
	like "$? $(cat err.txt)" "1 txt2trac: <stdin>:1:18: field \"json\": *: ${j#*|}" "JSON refused: ${j#*|}"
done

# User blocks longer than 1 MiB come as trac-user with size= and then
# trac-user-data records; a missing piece is an error.
printf 'trac-user type=0x81 size=5 data=0102\ntrac-user-data data=03\ntrac-user-data data=0405\n' |
    txt2trac | od -An -tx1 -j 99 | tr -d ' \n' > out.txt
is "$(cat out.txt)" "81050000000102030405" "trac-user-data completes a user block"
printf 'trac-user type=0x81 size=5 data=0102\ntrac-user-data data=03\ninsn bytes=90\n' | txt2trac > /dev/null 2> err.txt
is "$? $(cat err.txt)" "1 txt2trac: <stdin>:3: the user block of line 1 (size=5) lacks 2 bytes: trac-user-data records expected" \
    "a user block cut by another record"
printf 'trac-user type=0x81 size=5 data=0102\n' | txt2trac > /dev/null 2> err.txt
is "$? $(cat err.txt)" "1 txt2trac: <stdin>:1: the user block of line 1 (size=5) lacks 3 bytes: trac-user-data records expected" \
    "a user block cut by the end of the input"
printf 'trac-user type=0x81 size=2 data=01\ntrac-user-data data=0203\n' | txt2trac > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2trac: <stdin>:2:21: field "data": "0203": 2 bytes, more than the 1 the user block of line 1 still needs' \
    "trac-user-data beyond the size"
printf 'trac-user-data data=01\n' | txt2trac > /dev/null 2> err.txt
is "$? $(cat err.txt)" "1 txt2trac: <stdin>:1: trac-user-data without a trac-user whose size= it completes" \
    "trac-user-data alone"
printf 'trac-user type=0x81 size=1 data=0102\n' | txt2trac > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2trac: <stdin>:1:26: field "size": "1": less than the 2 bytes of data' \
    "size smaller than the data"
# An empty result says so (unless -q); counts are singular or plural.
printf '# nothing\nacquire tid=1 lock=2\n' | txt2trac 2> err.txt > e.trace
is "$? $(cat err.txt)" '0 txt2trac: 1 record skipped, not expressible in an x64dbg trace (first at line 2: record kind "acquire")
txt2trac: no instruction written: the trace is a header only (the stream held no insn record)' \
    "no instruction: warned once"
printf '' | txt2trac -q 2> err.txt > e.trace
is "$? $(cat err.txt)" "0 " "-q: no warning"
printf 'insn tid=1 pc=0x1000 bytes=90\nread addr=0x10\n' | txt2trac -v 2>&1 >/dev/null | tail -n 1 > err.txt
is "$(cat err.txt)" "txt2trac: 2 records: 1 instruction, 1 memory access, 0 user blocks, 0 skipped" "-v: singular and plural"
printf 'insn tid=1 pc=0x1000 bytes=90\n' | txt2trac | trac2txt -v 2>&1 >/dev/null | tail -n 1 > err.txt
is "$(cat err.txt)" "trac2txt: arch x64: 1 block, 1 instruction (1 full dump), 0 memory accesses, 0 user blocks" "trac2txt -v: singular and plural"

# trac-sample refuses a negative count (strtoull took -5 for 2^64-5 and
# wrote without end), before it writes anything.
timeout 10 trac-sample --blocks -5 > neg.bin 2> /dev/null
is "$?:$(wc -c < neg.bin)" "2:0" "trac-sample --blocks -5: a usage error, nothing written"
timeout 10 trac-sample --size-mb -1 > neg.bin 2> /dev/null
is "$?:$(wc -c < neg.bin)" "2:0" "trac-sample --size-mb -1: a usage error, nothing written"
# A bad value is named, with its option, before the usage line.
for a in "--blocks abc:--blocks: 'abc' is not a number of 0 or more" \
    "--arch arm:--arch: 'arm' is not x64 or x86" \
    "--threads 17:--threads: '17' is not a number from 1 to 16" \
    "--frob:unknown option '--frob'"; do
	trac-sample ${a%%:*} > neg.bin 2> err.txt
	is "$?:$(head -1 err.txt):$(sed -n 2p err.txt | cut -c1-18)" \
	    "2:trac-sample: ${a#*:}:Usage: trac-sample" "trac-sample ${a%%:*}: says which value"
done
# Nor to a terminal (script(1) gives it one).
if command -v script > /dev/null && script -qc true /dev/null > /dev/null 2>&1; then
	script -qc 'trac-sample --blocks 1' /dev/null > tty.out 2>&1
	grep -q 'not written to a terminal' tty.out && [ "$(wc -c < tty.out)" -lt 200 ]
	ok $? "trac-sample to a terminal: refused, nothing binary written"
else
	skip "no script(1)" "trac-sample to a terminal"
fi
done_testing
