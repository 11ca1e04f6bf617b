#!/bin/sh
# trac2txt golden tests: hand-made traces (tests/data/trac/*.hex, commented
# byte by byte) decoded and compared with text checked by hand against the
# x64dbg reference, and encoded back.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/trac

# The .hex files carry '#' comments; xxd -r -p reads the hex pairs.
unhex() { sed 's/#.*//' "$D/$1.hex" | xxd -r -p > "$1.bin"; }
for n in example37 x86 tidbug tidbug-dump; do unhex $n; done

# example37: the 50-byte block of the reference's section 3.7 (mov [rax],
# rcx: rax at position 0, rip at 0+1+15 = 16, one changed access with old
# and new value) as the first block, so tid is 0 and tidstored=0 says it
# was not stored although txt2trac would store it; then a block with the
# packed segment slot 18, padding garbage in slot 157 and lastError in the
# upper half of slot 171, with thread 0x99 = 153.
is "$(wc -c < example37.bin | tr -d ' ')" 133 "example37: 47 header + 50 + 36 bytes"
trac2txt example37.bin > out.txt 2> err.txt
ok $? "example37 decodes"
same_file out.txt "$D/example37.txt" "example37: worked example of section 3.7"
is "$(cat err.txt)" "trac2txt: the first instruction block is not a full register dump: x64dbg cannot show it" \
    "example37: missing full dump is warned about"
trac2txt -q example37.bin 2> err.txt > /dev/null
is "$(cat err.txt)" "" "example37: -q silences the warning"

# x86: 4-byte slots, full dump of 216 slots, a thread switch (flag 0x80),
# a tid stored again without need (tidstored=1), reserved flag bit 5
# (rsvd=0x20), memory flag bits (flags=0x3), user blocks 0x80 and 0xff.
trac2txt x86.bin > out.txt 2> err.txt
ok $? "x86 decodes"
same_file out.txt "$D/x86.txt" "x86: full dump, switch, user blocks, quirks"
is "$(cat err.txt)" "" "x86: no warning"
txt2trac "$D/x86.txt" > back.bin
ok $? "x86.txt encodes"
same_file back.bin x86.bin "x86: text encodes to the same bytes"
trac2txt < x86.bin | cmp -s - "$D/x86.txt"
ok $? "x86: stdin gives the same text as a file operand"

# tidbug: block 2 holds thread id 32 without flag 0x80 (x64dbg before PR
# #3920).  Read as the format says, its 4 tid bytes become opcode and
# positions and the reader loses sync at block 3 (offset 0x493 = 47 + 1089
# + 19 + 16): "00 20 40 00" is read as 32 registers and 64 accesses.  The
# diagnostic names block 2, which reads cleanly with a hidden thread id.
trac2txt tidbug.bin > out.txt 2> err.txt
is $? 1 "tidbug: exit 1 without --repair-tid"
is "$(cat err.txt)" "trac2txt: tidbug.bin: offset 0x493, block 3: 64 memory accesses, more than 32 (thread-id bug of x64dbg before PR #3920: block 2 at offset 0x483 holds a thread id without flag 0x80; try --repair-tid)" \
    "tidbug: the writer bug is named"
is "$(wc -l < out.txt | tr -d ' ')" 4 "tidbug: header and the blocks before the fault are printed"
trac2txt --repair-tid tidbug.bin > out.txt 2> err.txt
ok $? "tidbug: --repair-tid decodes"
same_file out.txt "$D/tidbug.txt" "tidbug: thread 32 read as tidstored=noflag"
txt2trac "$D/tidbug.txt" > back.bin
same_file back.bin tidbug.bin "tidbug: txt2trac writes the bug back byte for byte"
trac2txt -v -r tidbug.bin 2>&1 >/dev/null | grep -q "1 thread ids written without flag 0x80 were repaired"
ok $? "tidbug: -v counts the repaired thread ids"

# tidbug-dump: the thread changes right after a full dump, which has flag
# 0x80 anyway; block 1 at 0x644 (47 + 1557) holds thread id 36 without the
# flag.  Read as the format says, "24 00" becomes its opcode, rax and rcx
# take 16 bytes from the opcode on, and block 2 starts at 0x65c (0x644 +
# 24) inside rip, on a byte 01: an unknown block type.
trac2txt tidbug-dump.bin > out.txt 2> err.txt
is "$? $(cat err.txt)" "1 trac2txt: tidbug-dump.bin: offset 0x65c, block 2: unsupported block type 0x01 (0 or 0x80-0xff expected) (thread-id bug of x64dbg before PR #3920: block 1 at offset 0x644 holds a thread id without flag 0x80; try --repair-tid)" \
    "tidbug-dump: the bug after a full dump is named, with the block that holds it"
is "$(sed -n 3p out.txt)" "insn seq=1 tid=16 pc=0x140001000 bytes=2400 rax=0x70e01c88b rcx=0x4000200000000000" \
    "tidbug-dump: block 1 as the format reads it (00 02 00 02, 24 00, 00 00, ...)"
trac2txt --repair-tid tidbug-dump.bin > out.txt 2> err.txt
is "$? $(cat err.txt)" "0 " "tidbug-dump: --repair-tid decodes"
same_file out.txt "$D/tidbug-dump.txt" "tidbug-dump: block 1 read with thread 36, tidstored=noflag"
txt2trac "$D/tidbug-dump.txt" | cmp -s - tidbug-dump.bin
ok $? "tidbug-dump: txt2trac writes the bug back byte for byte"

# gzip input decodes the same.
gzip -c x86.bin > x86.bin.gz
trac2txt x86.bin.gz | cmp -s - "$D/x86.txt"
ok $? "gzip-compressed input"
done_testing
