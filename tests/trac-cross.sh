#!/bin/sh
# Usercorn -> x64dbg (ucir2txt | txt2trac), read back with trac2txt and
# compared record by record with what x64dbg must say, computed from
# ucir2txt's text alone by trac-cross.awk: every instruction at its pc
# with its bytes (from the memory the stream wrote, else nops of its
# size), every access value (x64dbg's pointer-sized old/new from
# Usercorn's bytes, a read without data from memory), the registers the
# stream sets at every instruction (the keyframe's in the first dump; in
# the trace format an instruction's changes come before it).  Then the
# hand-made traces checked line by line, unknown fields and register
# names warned and refused by --strict, other architectures refused.
. "$srcdir/tests/tap.sh"

D="$srcdir/tests/data/trac"
M="$srcdir/tests/trac-cross.awk"

# check NAME PS UCIRTEXT: the model against trac2txt's reading.
check() {
	awk -v ps="$2" -f "$M" "$3" > want.txt
	txt2trac -q "$3" > x.trace && trac2txt x.trace > back.txt &&
	    awk -v ps="$2" -v side=trac -f "$M" back.txt > got.txt
	ok $? "$1: encodes and reads back"
	ni=$(grep -c '^insn ' "$3")
	na=$(grep -c '^A ' want.txt)
	# A model that sees no instruction or no access would prove nothing.
	[ "$ni" -gt 0 ] && [ "$(grep -c '^I ' got.txt)" -eq "$ni" ] &&
	    [ "$na" -gt 0 ]
	ok $? "$1: every one of the $ni instructions is a block ($na accesses expected)"
	same_file got.txt want.txt "$1: pc, bytes, registers and access values as the model says"
}

# hand NAME PS UCIRTEXT: check, then out.txt is what trac2txt says with
# the header and the registers of value 0 left out, err.txt txt2trac's
# warnings.
hand() {
	check "$1" "$2" "$3"
	txt2trac "$3" 2> err.txt | trac2txt | sed 1d |
	    sed 's/ [a-z0-9_]*=0x0\>//g' > out.txt
}

for seed in 3 4; do
	for fmt in replay trace; do
		for arch in x86_64 x86; do
			ps=8; [ $arch = x86 ] && ps=4
			gen-ucir --format $fmt --arch $arch --frames 25 --ops 50 \
			    --seed $seed > g.ucir || exit 99
			ucir2txt g.ucir > g.txt || exit 99
			check "$fmt $arch seed $seed" $ps g.txt
		done
	done
done
# gen-ucir's values reach every kind of mapping the model follows.
grep -q '^ucir-spreg .*reg=xmm0' g.txt && grep -q '^ucir-reg .*reg=eflags' g.txt &&
    grep -q '^read .* size=[0-9]*$' g.txt && grep -q '^ucir-frame tid=42 ' g.txt
ok $? "the generated traces have xmm0, eflags, reads without data, another pid"

# The hand-made x86 trace (usercorn's trace format): a keyframe with
# esp, ebp, the code and a stack argument, then push ebp; mov ebp, esp;
# mov eax, [ebp+8]; nop; ret.
sed 's/#.*//' "$D/ucir-x86-trace.hex" | xxd -r -p | gen-ucir --wrap-trace --arch x86 > t86.ucir || exit 99
ucir2txt t86.ucir > t86.txt || exit 99
hand "hand-made x86 trace" 4 t86.txt
is "$(cat out.txt)" "insn seq=0 tid=0 pc=0x8048000 bytes=55 esp=0x7ffff000 ebp=0x1234 eip=0x8048000
write tid=0 seq=0 pc=0x8048000 addr=0x7fffeffc size=4 new=0x1234
insn seq=1 tid=0 pc=0x8048001 bytes=89e5 esp=0x7fffeffc eip=0x8048001
insn seq=2 tid=0 pc=0x8048003 bytes=8b4508 ebp=0x7fffeffc eip=0x8048003
read tid=0 seq=2 pc=0x8048003 addr=0x7ffff004 size=4 old=0x2a
insn seq=3 tid=0 pc=0x8048006 bytes=90 eax=0x2a eip=0x8048006
insn seq=4 tid=0 pc=0x8048007 bytes=c3 eip=0x8048007" \
    "hand-made x86 trace: the opcodes from the keyframe, the setup in the first dump, each change at the instruction after it"
is "$(cat err.txt)" "txt2trac: 2 records skipped, not expressible in an x64dbg trace (first at line 5: write of a keyframe (the memory set up before the first instruction: its bytes give opcodes and old values))
txt2trac: 1 record changed: a write's old value not in the stream, 0 written (first at line 9: 4 of its 4 bytes at 0x7fffeffc unknown)" \
    "hand-made x86 trace: the keyframe's memory and the unknown old value are said"

# The hand-made x86_64 replay, through usercorn's replay format.
txt2ucir "$D/ucir-x64-replay.txt" > r64.ucir && ucir2txt r64.ucir > r64.txt || exit 99
hand "hand-made x86_64 replay" 8 r64.txt
is "$(cat out.txt)" "insn seq=0 tid=0 pc=0x401000 bytes=55 rbx=0x1122334455667788 rsp=0x7fff0000 rip=0x401000
write tid=0 seq=0 pc=0x401000 addr=0x7ffefff8 size=8 new=0x7fff0000
insn seq=1 tid=0 pc=0x401001 bytes=4889e5 rsp=0x7ffefff8 rip=0x401001
insn seq=2 tid=0 pc=0x401004 bytes=488b0548 rbp=0x7ffefff8 rip=0x401004
read tid=0 seq=2 pc=0x401004 addr=0x7ffeffe0 size=8 old=0xdeadbeef
insn seq=3 tid=0 pc=0x401008 bytes=c7000700000090 rax=0xdead11ef rip=0x401008 rflags=0xa46 gs_fs_es_ds=0x530000 regarea0=0x8000000000000000 regarea1=0x3fff xmm1_0=0x7766554433221100 xmm1_1=0xffeeddccbbaa9988 ymm1_0=0x7766554433221100 ymm1_1=0xffeeddccbbaa9988 flags_cpazstid=0x1000001000100 flags_o_x87r0_d0=0x1
write tid=0 seq=3 pc=0x401008 addr=0x7ffeffe0 size=8 old=0xdeadbeef new=0x7
write tid=0 seq=3 pc=0x401008 addr=0x7ffeffe8 size=8 new=0x1
insn seq=4 tid=0 pc=0x40100f bytes=c3 rip=0x40100f
insn seq=5 tid=0 pc=0x401010 bytes=90 rip=0x401010
insn seq=6 tid=0 pc=0x402000 bytes=9090 rip=0x402000" \
    "hand-made x86_64 replay: eax and ah into rax, fs packed, eflags and its flag bytes (p z i o), st0 in RegisterArea, xmm1 in its XMM and YMM slots, a 16-byte write in two"
like "$(cat err.txt)" "*1 record changed: a register x64dbg has no slot for, dropped (first at line 21: x86_64 register fs_base)*2 insn records without opcode bytes were given nop opcodes (90, one per byte of size=, else one) (first: line 25)*" \
    "hand-made x86_64 replay: the register without a slot and the instructions outside the image are counted"

# Misspelled fields and register names: named, counted, refused.
printf 'insn tid=1 pc=0x1000 bytes=90 rbxx=0x7\nwrite tid=1 pc=0x1000 addr=0x10 size=8 old=0x1 nwe=0x2\ninsn tid=1 pc=0x1001 bytes=c3 ctx.rsq=0x1\n' > typo.txt
txt2trac typo.txt 2> err.txt > /dev/null
is "$? $(cat err.txt)" '0 txt2trac: 3 records changed: an unknown field dropped (first at line 1: insn field "rbxx")' \
    "misspelled fields are counted and the first named"
txt2trac --strict typo.txt 2> err.txt > /dev/null
is "$? $(cat err.txt)" '1 txt2trac: typo.txt:1: insn field "rbxx": an unknown field dropped' \
    "--strict refuses a misspelled register field"
{ echo 'insn tid=1 pc=0x1000 bytes=90'; sed -n 2p typo.txt; } | txt2trac --strict 2> err.txt > /dev/null
is "$? $(cat err.txt)" '1 txt2trac: <stdin>:2: write field "nwe": an unknown field dropped' \
    "--strict refuses a misspelled access field"
{ sed -n 1,3p t86.txt; echo 'ucir-reg tid=0 reg=ebxx value=0x7'; sed -n '4,$p' t86.txt; } > rtypo.txt
txt2trac rtypo.txt 2> err.txt > /dev/null
like "$? $(cat err.txt)" "0 *1 record changed: an unknown register name dropped (first at line 4: x86 register ebxx)*" \
    "an unknown Usercorn register name is counted and named"
txt2trac --strict rtypo.txt 2> err.txt > /dev/null
like "$? $(cat err.txt)" "1 txt2trac: rtypo.txt:4: x86 register ebxx: an unknown register name dropped" \
    "--strict refuses it"

# Architectures x64dbg cannot hold.
for arch in arm x86_16; do
	gen-ucir --arch $arch --frames 2 --ops 5 > a.ucir || exit 99
	ucir2txt a.ucir | txt2trac > /dev/null 2> err.txt
	like "$? $(cat err.txt)" "1 txt2trac: <stdin>:1*a Usercorn trace of arch $arch: x64dbg traces hold x86 (x86) and x86_64 (x64) only" \
	    "arch $arch is refused with a message naming it"
done

# A Usercorn write of the instruction pointer that the next insn's pc
# contradicts: x64dbg's rip is where the instruction is, so pc= wins and
# the write is counted (it was stored as a second rip slot, a block
# trac2txt refused: register position out of range).
for r in rip eip ip; do
	printf '%s\n' 'ucir-header format=replay version=0 uc_arch=x86 uc_mode=0x8 arch=x86_64 os=linux' \
	    'ucir-frame tid=0 keyframe=true level=6' 'ucir-reg tid=0 reg=rsp value=0x7fff0000' \
	    'write tid=0 pc=0x0 addr=0x401000 size=3 data=909090' \
	    'ucir-frame tid=0 keyframe=false level=6' 'insn tid=0 pc=0x401000 size=1' \
	    "ucir-reg tid=0 reg=$r value=0x53" 'insn tid=0 pc=0x401001 size=1' \
	    'insn tid=0 pc=0x401002 size=1' > ip.txt
	txt2trac ip.txt 2> err.txt > ip.trac
	like "$? $(cat err.txt)" "0 *1 record changed: an instruction pointer the insn's pc contradicts, dropped (first at line 8: rip=0x53, pc=0x401001)*" \
	    "a Usercorn $r write the next pc contradicts is counted and named"
	trac2txt ip.trac > ip.out 2> err.txt
	is "$? $(cat err.txt) $(tr ' ' '\n' < ip.out | sed -n 's/^\(pc\|rip\)=//p' | tr '\n' ' ')" \
	    "0  0x401000 0x401000 0x401001 0x401001 0x401002 0x401002 " \
	    "... the trace decodes, each block's rip its pc ($r)"
done
# --strict refuses it (a stream with opcode bytes, as a keyframe's
# writes are refused by --strict before).
printf '%s\n' 'insn tid=0 pc=0x401000 bytes=90' 'ucir-reg tid=0 reg=rip value=0x53' \
    'insn tid=0 pc=0x401001 bytes=90' > ips.txt
txt2trac --strict ips.txt 2> err.txt > /dev/null
is "$? $(cat err.txt)" "1 txt2trac: ips.txt:3: rip=0x53, pc=0x401001: an instruction pointer the insn's pc contradicts, dropped" \
    "--strict refuses it"
# A write that agrees with the next pc is the same state: nothing said.
sed 's/reg=ip value=0x53/reg=rip value=0x401001/' ip.txt > ipok.txt
txt2trac ipok.txt 2> err.txt > ip.trac
is "$? $(grep -c 'instruction pointer' err.txt) $(trac2txt ip.trac | grep -c '^insn')" "0 0 3" \
    "a Usercorn rip write equal to the next pc is no change"

done_testing
