#!/bin/sh
# Corrupt x64dbg traces, each built byte by byte here: the exact diagnostic
# (offset of the block, block index, what is wrong), exit status 1 and the
# records before the fault.  And the JSON header checked as x64dbg's
# reader (Qt's QJsonDocument) checks it, reference section 1.3.
. "$srcdir/tests/tap.sh"

# Bytes as printf escapes: byte N..., u32 V (little-endian).
byte() { for b; do printf "\\$(printf %03o "$b")"; done; }
u32() { byte $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
u64() { u32 $(($1 & 0xffffffff)); u32 $(($1 >> 32 & 0xffffffff)); }
# header JSON: "TRAC", its length in bytes, the JSON.
header() { printf TRAC; u32 "$(printf '%s' "$1" | wc -c)"; printf '%s' "$1"; }
X64='{"ver":1,"arch":"x64","compression":""}'	# 39 bytes: blocks start at 0x2f
X86='{"ver":1,"arch":"x86","compression":""}'

# expect NAME DIAGNOSTIC: decode f (with -q: the files have no full dump).
expect() {
	trac2txt -q f > out.txt 2> err.txt
	is "$? $(cat err.txt)" "1 trac2txt: f: $2" "$1"
}
# A valid block: nop at rip 0x1000, 1 register (position 16): 4+1+1+8 = 14
# bytes, so the next block starts at 0x2f + 14 = 0x3d.
nop64() { byte 0 1 0 1 0x90 16; u64 0x1000; }

{ printf TRAX; u32 39; printf '%s' "$X64"; } > f
expect "bad magic" 'offset 0x0: bad magic: not an x64dbg trace (expected "TRAC")'

# ---------------------------------------------------------- JSON header
header '{"ver":1,"arch":"arm","compression":""}' > f
expect "bad arch" 'offset 0x8: JSON header: unsupported arch "arm" ("x64" or "x86" expected)'
header '{"ver":1,"arch":64,"compression":""}' > f
expect "arch not a string" 'offset 0x8: JSON header: unsupported arch 64 ("x64" or "x86" expected)'
# x64dbg's reader needs "ver", "arch" and "compression".
header '{"ver":1,"compression":""}' > f
expect "no arch" 'offset 0x8: JSON header has no "arch" key (x64dbg needs it)'
header '{"ver":1,"arch":"x64"}' > f
expect "no compression" 'offset 0x8: JSON header has no "compression" key (x64dbg needs it)'
header '{"arch":"x64","compression":""}' > f
expect "no ver" 'offset 0x8: JSON header: version not supported ("ver" must be the number 1)'
header '{"ver":"1","arch":"x64","compression":""}' > f
expect "ver as a string" 'offset 0x8: JSON header: version not supported ("ver" must be the number 1)'
header '{"ver":2,"arch":"x64","compression":""}' > f
expect "ver 2" 'offset 0x8: JSON header: version not supported ("ver" must be the number 1)'
header '{"ver":1,"arch":"x64","compression":"","ver":2}' > f
expect "ver twice: the last counts, as in Qt" 'offset 0x8: JSON header: version not supported ("ver" must be the number 1)'
header '{"ver":1,"arch":"x64"' > f
expect "JSON cut short: where it ends" "offset 0x1d: JSON header: expected ',' or '}' (the header ends there)"
header '{"ver":1,"arch":"x64","compression":""}x' > f
expect "garbage after the JSON: at the x (8 + 39)" 'offset 0x2f: JSON header: more data after the value'
header '{"ver":1,"arch":"x64","compression":"","n":01}' > f
expect "a number with a leading zero: at the number (8 + 43)" 'offset 0x33: JSON header: a malformed number'
header '{"ver":1,"arch":"x64","compression":"","t":tru}' > f
expect "a misspelt literal: at the t (8 + 43)" 'offset 0x33: JSON header: expected true, false or null'
header '[1]' > f
expect "an array, not an object" 'offset 0x8: JSON header: not an object'
{ printf TRAC; u32 0; } > f
expect "an empty JSON header" 'offset 0x8: JSON header: expected a value (the header ends there)'
header '{"ver":1,"arch":"x64","compression":"" "p":1}' > f
expect "a missing comma: at the second key (8 + 39)" "offset 0x2f: JSON header: expected ',' or '}'"
# Nesting: Qt's parser (x64dbg's reader) takes 1024 levels of arrays and
# objects, refuses 1025; so does trac2txt, at the 1025th bracket.
deep() { printf '{"ver":1,"arch":"x64","compression":"","d":'; i=0
	while [ $i -lt "$1" ]; do printf '['; i=$((i + 1)); done; i=0
	while [ $i -lt "$1" ]; do printf ']'; i=$((i + 1)); done; printf '}'; }
d=$(deep 1023)
header "$d" > f
trac2txt -q f > out.txt 2> err.txt
is "$?:$(grep -c '^trac-header arch=x64 json=' out.txt)" "0:1" \
    "1024 levels of nesting in the JSON header (Qt's limit): read"
d=$(deep 1024)
header "$d" > f
# 8 + 43 bytes before the first '[' (level 2); the 1024th '[' opens level 1025.
expect "1025 levels: refused at the bracket past Qt's limit" \
    "offset $(printf 0x%x $((8 + 43 + 1023))): JSON header: nested deeper than 1024 arrays and objects"
# x64dbg measures the JSON with strlen(): a NUL means a damaged header.
# 0x35 = 8 + 45, the NUL after "a; 0x2f = 8 + 39, right after the JSON.
{ printf TRAC; u32 48; printf '{"ver":1,"arch":"x64","compression":"","p":"a\000"}'; } > f
expect "a NUL byte in a string" 'offset 0x35: JSON header: a NUL byte (x64dbg writes none)'
{ printf TRAC; u32 40; printf '%s' "$X64"; printf '\000'; } > f
expect "a NUL terminator counted in the length" 'offset 0x2f: JSON header: a NUL byte (x64dbg writes none)'
# 0x34 = 8 + 44, the byte 0xff in the string "p".
{ printf TRAC; u32 47; printf '{"ver":1,"arch":"x64","compression":"","p":"\377"}'; } > f
expect "a string that is not UTF-8 (Qt refuses it)" 'offset 0x34: JSON header: not UTF-8 in a string'
{ printf TRAC; u32 0xffffffff; } > f
expect "negative JSON length" 'offset 0x4: JSON header length 0xffffffff is negative for x64dbg'
{ printf TRAC; u32 0x7fffffff; } > f
expect "huge JSON length" 'offset 0x4: JSON header length 2147483647, more than 8388608'
{ printf TRAC; u32 100; printf '{"ver":1}'; } > f
expect "JSON shorter than its length" 'offset 0x8: truncated JSON header: needs 100 bytes, only 9 left'

# What Qt accepts: ver 1.0, escapes in the arch, whitespace, a byte order
# mark, UTF-8 and control characters in strings.  The header is kept byte
# for byte.
n=0
for j in '{"ver":1.0,"arch":"x64","compression":""}' \
    ' { "ver" : 10e-1 , "arch" : "x\u0036\u0034" , "compression" : "" } ' \
    "$(printf '\357\273\277{"ver":1,"arch":"x86","compression":"","p":"\303\251\t"}')"; do
	n=$((n + 1))
	header "$j" > f
	trac2txt f > out.txt 2> err.txt
	is "$? $(cat err.txt)" "0 " "accepted header $n: $j"
	txt2trac out.txt | cmp -s - f
	ok $? "header $n is kept byte for byte"
done
header '{"ver":1,"arch":"x86","compression":"zlib"}' > f
trac2txt f > out.txt 2> err.txt
is "$? $(cat err.txt)" '0 trac2txt: the JSON header names a compression: x64dbg has none and reads the blocks as they are, as this program does' \
    "a compression is warned about"

# A JSON header longer than x64dbg accepts is only warned about.
pad=$(awk 'BEGIN { while (n++ < 20000) printf "x" }')
header "{\"ver\":1,\"arch\":\"x86\",\"compression\":\"\",\"pad\":\"$pad\"}" > f
trac2txt f > out.txt 2> err.txt
is "$? $(cat err.txt)" "0 trac2txt: JSON header of 20048 bytes: x64dbg refuses more than 16384" \
    "a 20048-byte JSON header is warned about"

# --------------------------------------------------------------- blocks
{ header "$X64"; byte 5 0 0 1 0x90; } > f
expect "block type 5" 'offset 0x2f, block 0: unsupported block type 0x05 (0 or 0x80-0xff expected)'
{ header "$X64"; nop64; byte 0x7f; } > f
expect "block type 0x7f after a good block" 'offset 0x3d, block 1: unsupported block type 0x7f (0 or 0x80-0xff expected)'
is "$(cat out.txt)" 'trac-header arch=x64 json="{\"ver\":1,\"arch\":\"x64\",\"compression\":\"\"}"
insn seq=0 tid=0 pc=0x1000 bytes=90 tidstored=0 rip=0x1000' "the block before the fault is printed"
# The opcode length has 4 bits: 0 is the only invalid value (x64dbg: "No opcode").
{ header "$X64"; byte 0 0 0 0; } > f
expect "opcode length 0" 'offset 0x2f, block 0: opcode length 0 (1 to 15 expected)'
{ header "$X64"; byte 0 0 0 0x0f 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14; } > f
trac2txt -q f > out.txt
is "$? $(tail -n 1 out.txt)" "0 insn seq=0 tid=0 pc=0x0 bytes=000102030405060708090a0b0c0d0e tidstored=0" \
    "opcode length 15 is valid"
{ header "$X64"; byte 0 173 0 1 0x90; } > f
expect "173 registers on x64" 'offset 0x2f, block 0: 173 register changes, more than the 172 slots of x64'
{ header "$X86"; byte 0 217 0 1 0x90; } > f
expect "217 registers on x86" 'offset 0x2f, block 0: 217 register changes, more than the 216 slots of x86'
{ header "$X64"; nop64; byte 0 1 0 1 0x90 200; u64 1; } > f
expect "position 200" 'offset 0x3d, block 1: register position 200 out of range (max 171)'
# Deltas: 100, then 100+1+71 = 172, one past the last slot.
{ header "$X64"; byte 0 2 0 1 0x90 100 71; u64 1; u64 2; } > f
expect "position 172 by delta" 'offset 0x2f, block 0: register position 172 out of range (max 171)'
{ header "$X86"; byte 0 1 0 1 0x90 216; u32 1; } > f
expect "position 216 on x86" 'offset 0x2f, block 0: register position 216 out of range (max 215)'
{ header "$X64"; byte 0 0 33 1 0x90; } > f
expect "33 memory accesses" 'offset 0x2f, block 0: 33 memory accesses, more than 32'
{ header "$X64"; byte 0 0 32 1 0x90; i=0; while [ $i -lt 32 ]; do byte 1; i=$((i + 1)); done
  i=0; while [ $i -lt 64 ]; do u64 $i; i=$((i + 1)); done; } > f
trac2txt -q f > out.txt
is "$? $(grep -c '^read' out.txt)" "0 32" "32 memory accesses are valid"
{ header "$X64"; nop64; byte 0x80; u32 100; byte 1 2 3; } > f
expect "user block cut" 'offset 0x3d, block 1: truncated user block: needs 105 bytes, only 8 left'
is "$(wc -l < out.txt | tr -d ' ')" 2 "a cut user block prints nothing of itself"
done_testing
