#!/bin/sh
# txt2ucir on text it did not get from ucir2txt: a stream without header
# (--arch, --os), records of other decoders (x64dbg insn with opcode
# bytes, reads without data), hand-written records, the framing options,
# and malformed fields (each an error with line and column).
. "$srcdir/tests/tap.sh"

printf '%s\n' 'insn tid=0 pc=0x401000 size=3' 'insn tid=0 pc=0x401003 size=2' \
    'ucir-reg tid=0 reg=r0 value=0x5' > a.txt
txt2ucir --arch arm --os netbsd a.txt > a.ucir
ok $? "a stream without header encodes"
is "$(ucir2txt a.ucir)" "ucir-header format=replay version=0 uc_arch=arm uc_mode=0x0 arch=arm os=netbsd
ucir-frame tid=0 keyframe=false level=6
insn tid=0 pc=0x401000 size=3
insn tid=0 pc=0x401003 size=2
ucir-reg tid=0 reg=r0 value=0x5" "with the header of --arch and --os, in one frame made here"
is "$(od -An -tx1 -j 80 -N 6 a.ucir | tr -d ' \n')" 010000000003 \
    "one OP_FRAME, not a keyframe, of 3 ops"

# x64dbg's records (trac2txt): insn bytes give the size; reads without data.
gen-trac --blocks 30 --seed 2 > x.trace64
trac2txt x.trace64 > x.txt
txt2ucir x.txt > x.ucir 2> warn
ok $? "trac2txt's text encodes"
grep -q "records changed: a write's old value dropped (Usercorn writes hold the new bytes only) (first at line" warn
ok $? "what it cannot hold is counted: $(cat warn)"
is "$(ucir2txt x.ucir | grep -c '^insn')" "$(grep -c '^insn' x.txt)" "every x64dbg instruction"
ucir2txt x.ucir | grep '^insn' | sed 's/.* pc=\([^ ]*\) size=\([0-9]*\).*/\1 \2/' > got
grep '^insn' x.txt | sed 's/.* pc=\([^ ]*\) bytes=\([0-9a-f]*\).*/\1 \2/' |
    awk '{ print $1, length($2) / 2 }' > want
same_file got want "at its pc, with its opcode length as size"

# Framing options.
gen-ucir --frames 5 --ops 100 --seed 1 | ucir2txt | grep -v '^ucir-frame' > s.txt
txt2ucir --frame-ops 50 --level 1 s.txt | ucir2txt > s.back
ok $? "--frame-ops 50 --level 1"
grep '^ucir-frame' s.back | sort -u > fr
is "$(cat fr)" "ucir-frame tid=0 keyframe=false level=1" "frames made here at level 1"
is "$(grep -c '^ucir-frame' s.back)" \
    "$(awk '!/^ucir-header/ && !/ depth=/ { n++ } END { print int((n + 49) / 50) }' s.txt)" \
    "of 50 top-level ops each"

# Malformed records: exit 1, line and column, nothing half-written.
bad() {
	printf '%s\n' "$1" > bad.txt
	txt2ucir bad.txt > bad.ucir 2> err
	rc=$?
	if [ $rc -eq 1 ] && grep -q -- "$2" err; then ok 0 "$3: $(cat err)"
	else ok 1 "$3"; echo "#   exit $rc: $(cat err)"; fi
}
bad 'ucir-frame keyframe=true level=10' 'bad.txt:1:.*a zlib level is 0 to 9' "level 10"
bad 'ucir-frame keyframe=false flag=0x3' "a keyframe's flag is not 0" "a frame flag that says keyframe"
# Typos: an unknown register name, an unknown field; --strict refuses.
printf 'ucir-reg tid=0 reg=xyzzy value=1\nucir-reg tid=0 reg=rax value=1 vlaue=2\ninsn tid=0 pc=0x10 size=1 rbxx=0x7\n' > typo.txt
txt2ucir typo.txt 2> err | ucir2txt > typo.back
grep -q '1 record changed: an unknown register name dropped (first at line 1: reg=xyzzy: no register of that name' err
ok $? "an unknown register name: counted and named: $(grep register err)"
grep -q '2 records changed: an unknown field dropped (first at line 2: field "vlaue")' err
ok $? "unknown fields: counted and the first named: $(grep field err)"
is "$(grep -c '^ucir-reg tid=0 reg=rax value=0x1$' typo.back)" 1 "the record with the typo is written without it"
txt2ucir --strict typo.txt > /dev/null 2> err
is $? 1 "--strict: exit 1"
grep -q 'typo.txt:1: .*no register of that name.*: an unknown register name dropped' err; ok $? "--strict names it: $(cat err)"
bad 'ucir-reg tid=0 reg=70000 value=1' 'does not fit in 16 bits' "a register number over 16 bits"
bad 'write tid=0 addr=0x10 size=3 data=0102' '2, but\|3, but data= holds 2 bytes' "size= and data= disagree"
bad 'insn tid=0 pc=0x10 size=4294967296' 'does not fit in 32 bits' "an instruction of 4 GiB"
bad 'ucir-map tid=0 addr=0x1000 size=4096 prot=rwz' 'prot' "a bad prot"
bad 'insn tid=0 pc=0x1 size=1 exec=far' 'abs or rel expected' "exec=far"
bad 'ucir-syscall tid=0 num=1 args=[1,x]' 'argument 2 is not a number' "a bad syscall argument"
bad 'ucir-header format=zip arch=x86' 'replay or trace expected' "format=zip"
bad 'ucir-header arch=x86_64_with_a_name_longer_than_32' 'longer than 32 bytes' "an arch name over 32 bytes"
bad 'ucir-header arch=x86 arch_pad=00' 'must be 28 bytes' "padding of the wrong length"
printf '%s\n' 'insn tid=0 pc=0x1 size=1' 'ucir-header arch=x86' > late.txt
txt2ucir late.txt > /dev/null 2> err
is $? 1 "a header after ops: exit 1"
grep -q 'late.txt:2:.*ucir-header after the first frame' err; ok $? "names its line: $(cat err)"
printf 'insn tid=0 pc=0x1 size=1\n' | txt2ucir -o out.ucir - && [ -s out.ucir ]
ok $? "-o writes the file"

# The one ambiguity of the magic (ucir2txt(1)): os padding that puts
# ff 06 00 00 73 4e at offset 74, the start of the trace format's Snappy
# stream identifier.  A header alone (80 bytes) is the replay it is: a
# trace needs 84 bytes for its identifier.
pad=0000000000000000000000000000000000000000ff060000734e
printf 'ucir-header format=replay version=0 uc_arch=x86 uc_mode=0x8 arch=x86_64 os=linux os_pad=%s\n' $pad > amb.txt
txt2ucir amb.txt > amb.ucir 2> err
ok $? "such a header alone is written"
is "$(wc -c < amb.ucir | tr -d ' ')" 80 "as 80 bytes"
ucir2txt amb.ucir > amb80.txt 2> err
ok $? "and reads back as a replay: $(cat err)"
same_file amb80.txt amb.txt "the same header comes back"
# 81 bytes that go on with the identifier: a trace cut inside it.
{ cat amb.ucir; printf 'a'; } > amb81.ucir
ucir2txt amb81.ucir > amb81.txt 2> err
is $? 1 "81 bytes going on with the identifier: a cut trace (exit 1)"
grep -q '^ucir-header format=trace ' amb81.txt; ok $? "after the header of a trace: $(cat err)"
printf 'ucir-frame tid=0 keyframe=true level=6\ninsn tid=0 pc=0x1000 size=2\n' >> amb.txt
txt2ucir amb.txt > amb.ucir && ucir2txt amb.ucir > amb.back
ok $? "with a frame after it, it is written and read as a replay"
same_file amb.back amb.txt "the same text comes back"
# A trace header's padding is not carried into the replay header: a
# trace with that padding at its bytes 66-71 makes no ambiguous replay.
printf 'ucir-header format=trace version=1 arch=x86_64 arch_pad=00000000000000000000000000000000000000000000000000ff os=linux os_pad=%s code_order=little data_order=little\n' $pad |
    txt2ucir | ucir2txt > tpad.txt
is "$(cat tpad.txt)" "ucir-header format=replay version=0 uc_arch=x86 uc_mode=0x8 arch=x86_64 os=linux" \
    "a trace header becomes a replay header with its names, not their padding"
txt2ucir --level 10 < /dev/null > /dev/null 2>&1
is $? 2 "--level 10 is a usage error"
txt2ucir --arch vax < /dev/null > /dev/null 2>&1
is $? 2 "--arch vax is a usage error"
done_testing
