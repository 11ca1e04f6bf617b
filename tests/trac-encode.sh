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

# A header but no full dump first; registers out of order and twice.
cat > b.txt <<'TXT'
trac-header arch=x64
insn seq=7 tid=3 pc=0x10 bytes=90 rax=0x5 rip=0x10
insn seq=8 tid=3 pc=0x11 bytes=90 rip=0x11 rcx=0x1 rax=0x6 rax=0x7
TXT
txt2trac b.txt | trac2txt > out.txt
is "$(sed -n 2p out.txt | awk '{ print NF, $2, $3, $4, $6, $22 }')" "177 seq=0 tid=3 pc=0x10 rax=0x5 rip=0x10" \
    "header without json: the first block is made a full dump"
is "$(sed -n 3p out.txt)" "insn seq=1 tid=3 pc=0x11 bytes=90 rax=0x7 rcx=0x1 rip=0x11" \
    "registers are sorted into slot order, the last of a repeated one wins"

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
is "$? $(cat err.txt)" '0 txt2trac: 4 records skipped that an x64dbg trace cannot hold (first: line 3, read without an instruction before it)' \
    "skipped records are counted, the first is named"
trac2txt c.trace | cut -d' ' -f1-4 | sed -n '3,$p' > out.txt
is "$(cat out.txt)" "read tid=1 seq=0 pc=0x1000
write tid=1 seq=0 pc=0x1000
insn seq=1 tid=2 pc=0x1001
write tid=2 seq=1 pc=0x1001" "foreign insn, read and write records are encoded"
is "$(trac2txt c.trace | grep '^write' | cut -d' ' -f5-)" "addr=0x2008 size=8 old=0x1 new=0x2
addr=0x3000 size=8 old=0x0 new=0x0" "missing old and new values are 0"
txt2trac -q c.txt > /dev/null 2> err.txt
is "$? $(cat err.txt)" "0 " "-q: no summary"
txt2trac --strict c.txt > /dev/null 2> err.txt
is "$? $(cat err.txt)" "1 txt2trac: c.txt:3: read without an instruction before it: not expressible in an x64dbg trace" \
    "--strict: the first record that cannot be expressed is an error"
sed 3d c.txt | txt2trac --strict > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2trac: <stdin>:6: record kind "acquire": not expressible in an x64dbg trace' \
    "--strict names the line of a foreign record kind"

# 33 accesses: the 33rd is skipped.
{ echo 'insn tid=1 pc=0x1000 bytes=90'; i=0
  while [ $i -lt 33 ]; do echo "read addr=$i old=$i"; i=$((i + 1)); done; } > d.txt
txt2trac d.txt 2> err.txt | trac2txt > out.txt
is "$(grep -c '^read' out.txt) $(cat err.txt)" "32 txt2trac: 1 records skipped that an x64dbg trace cannot hold (first: line 34, read beyond 32 memory accesses of an instruction)" \
    "more than 32 accesses: the rest is skipped and counted"

# Two decoded traces in a row: the second header is dropped and the blocks
# follow as an appended recording session, as x64dbg appends to a file.
gen-trac --blocks 600 --threads 2 --seed 1 > s1.trace
gen-trac --blocks 700 --threads 3 --seed 2 > s2.trace
{ trac2txt s1.trace; trac2txt s2.trace; } | txt2trac > s.trace 2> err.txt
jlen=$(head -c 8 s2.trace | tail -c 4 | od -An -tu4 | tr -d ' ')
{ cat s1.trace; tail -c +$((8 + jlen + 1)) s2.trace; } > want.trace
same_file s.trace want.trace "concatenated texts encode as appended sessions"
like "$(cat err.txt)" "*1 records skipped*trac-header record after the first block*" "the second header is counted"

# Malformed text and bad values are errors with line and column.
printf 'insn tid=x bytes=90\n' | txt2trac > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2trac: <stdin>:1:10: field "tid": "x": not an unsigned 64-bit number' "a bad number"
printf 'insn bytes=90 rax="1\n' | txt2trac > /dev/null 2> err.txt
like "$? $(cat err.txt)" '1 txt2trac: <stdin>:1:*unterminated string' "a syntax error"
printf 'trac-header arch=arm\n' | txt2trac > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2trac: <stdin>:1:18: field "arch": "arm": unsupported arch (x64 or x86 expected)' "an unknown arch"
printf 'trac-header json="{\\"ver\\":1,\\"arch\\":\\"x86\\"}" arch=x64\n' | txt2trac > /dev/null 2> err.txt
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
done_testing
