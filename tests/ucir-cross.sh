#!/bin/sh
# x64dbg traces into Usercorn (trac2txt | txt2ucir, replay and --trace),
# checked record by record against an independent decode of trac2txt's
# text (awk below, from the slot names alone): every instruction at its
# pc with its size, every access with its value as little-endian bytes
# of its size, and at every instruction the value of every mapped
# register (general, flags, segment, debug, x87 stack and words, MXCSR,
# MMX, XMM, YMM) as a Usercorn reader that applies the REG and SPREG ops
# has it, for x64 and x86 traces of several threads.
. "$srcdir/tests/tap.sh"

# The expected side: each thread's dump from its slots (stored, ctx.,
# reset by tprev=none), the slot order from the first full dump, and
# each Unicorn register read out of the dump's bytes by slot name.
cat > want.awk <<'AWK'
function le(v, n,   h, s, i) {	# v as n little-endian bytes (hex)
	h = substr(v, 3)
	while (length(h) < 2 * n) h = "0" h
	h = substr(h, length(h) - 2 * n + 1)
	s = ""
	for (i = length(h) - 1; i >= 1; i -= 2) s = s substr(h, i, 2)
	return s
}
function num(b,   i, s) {	# little-endian bytes as Usercorn's value=
	s = ""
	for (i = length(b) - 1; i >= 1; i -= 2) s = s substr(b, i, 2)
	sub(/^0+/, "", s)
	return "0x" (s == "" ? "0" : s)
}
function reg(name, slot, at, n, sp,   b) {
	b = substr(img, 2 * (idx[slot] * P + at) + 1, 2 * n)
	if (b ~ /^0*$/) return
	print "state " ni " " name "=" (sp ? b : num(b))
}
function regs(  i) {
	if (P == 8) {
		split("rax rcx rdx rbx rsp rbp rsi rdi r8 r9 r10 r11 r12 r13 r14 r15", g, " ")
		for (i = 1; i <= 16; i++) reg(g[i], g[i], 0, 8)
		reg("eflags", "rflags", 0, 8)
		reg("gs", "gs_fs_es_ds", 0, 2); reg("fs", "gs_fs_es_ds", 2, 2)
		reg("es", "gs_fs_es_ds", 4, 2); reg("ds", "gs_fs_es_ds", 6, 2)
		reg("cs", "cs_ss", 0, 2); reg("ss", "cs_ss", 2, 2)
		fw = "x87cw_sw_tw"; mx = "x87cr0npx_mxcsr"; mxo = 4; nx = 16
	} else {
		split("eax ecx edx ebx esp ebp esi edi", g, " ")
		for (i = 1; i <= 8; i++) reg(g[i], g[i], 0, 4)
		reg("eflags", "eflags", 0, 4)
		reg("gs", "gs_fs", 0, 2); reg("fs", "gs_fs", 2, 2)
		reg("es", "es_ds", 0, 2); reg("ds", "es_ds", 2, 2)
		reg("cs", "cs_ss", 0, 2); reg("ss", "cs_ss", 2, 2)
		fw = "x87cw_sw"; mx = "mxcsr"; mxo = 0; nx = 8
	}
	split("dr0 dr1 dr2 dr3 dr6 dr7", d, " ")
	for (i = 1; i <= 6; i++) reg(d[i], d[i], 0, P)
	for (i = 0; i < 8; i++) reg("st" i, "regarea0", 10 * i, 10, 1)
	reg("fpcw", fw, 0, 2); reg("fpsw", fw, 2, 2)
	if (P == 8) reg("fptag", fw, 4, 2); else reg("fptag", "x87tw", 0, 2)
	reg("mxcsr", mx, mxo, 4)
	for (i = 0; i < nx; i++) reg("xmm" i, "xmm" i "_0", 0, 16, 1)
	for (i = 0; i < nx; i++) reg("ymm" i, "ymm" i "_0", 0, 32, 1)
	for (i = 0; i < 8; i++) reg("mm" i, P == 8 ? "mm" i : "mm" i "_0", 0, 8)
}
$1 == "trac-header" { P = $2 == "arch=x64" ? 8 : 4 }
$1 == "insn" {
	tid = ""; fresh = 0
	for (i = 2; i <= NF; i++) {
		k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v)
		if (k == "seq") seq = v
		else if (k == "tid") tid = v
		else if (k == "pc") pc = v
		else if (k == "bytes") size = length(v) / 2
		else if (k == "tprev") fresh = v == "none"
	}
	if (!nslots) {	# the first full dump names the slots in order
		for (i = 2; i <= NF; i++) {
			k = $i; sub(/=.*/, "", k)
			if (k !~ /^(seq|tid|pc|bytes|tprev|tidstored|rsvd)$/)
				{ idx[k] = nslots; name[nslots++] = k }
		}
	}
	if (fresh || !(tid in seen))
		for (s = 0; s < nslots; s++) val[tid, name[s]] = "0x0"
	seen[tid] = 1
	for (i = 2; i <= NF; i++) {
		k = $i; sub(/=.*/, "", k); sub(/^ctx\./, "", k)
		v = $i; sub(/^[^=]*=/, "", v)
		if (k in idx) val[tid, k] = v
	}
	img = ""
	for (s = 0; s < nslots; s++) img = img le(val[tid, name[s]], P)
	print "insn " pc " " size
	ni = nins++	# the instruction's index in the stream
	regs()
}
$1 == "read" || $1 == "write" {
	for (i = 2; i <= NF; i++) {
		k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v)
		f[k] = v
	}
	print $1 " " f["addr"] " " f["size"] " " le($1 == "read" ? f["old"] : f["new"], f["size"])
}
AWK

# The Usercorn side: a reader's register state at each instruction (the
# ops before it; --trace: before the STEP of the one before, shifted
# below), and each access.
# The Usercorn side: a reader's register state at each instruction and
# each access.  In a replay, the ops before an EXEC are the state it runs
# in.  In a trace, usercorn's writer lags one instruction: the REG ops
# before the STEP of instruction i are the state after it (at i + 1),
# but for those that open a frame (a thread switch: the frame of the
# thread's pid starts with its registers, before its JMP).
cat > got.awk <<'AWK'
function field(k,   i, v) {
	for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) { v = $i; sub(/^[^=]*=/, "", v); return v }
	return ""
}
function snap(   i, r) {
	for (i = 0; i < ORDERN; i++) {
		r = O[i]
		if ((r in st) && st[r] != "0x0" && st[r] !~ /^0*$/)
			print "state " seq + 0 " " r "=" st[r]
	}
	seq++
	pending = 0
}
BEGIN {
	ORDERN = split(ORDER, O, " ")
	for (i = 1; i <= ORDERN; i++) O[i - 1] = O[i]
	pending = inframe = 1
}
$1 == "ucir-frame" { inframe = 1 }
$1 == "ucir-reg" || $1 == "ucir-spreg" {
	if (TRACE && pending && !inframe) snap()
	st[field("reg")] = $1 == "ucir-reg" ? field("value") : field("data")
}
$1 == "ucir-jmp" { if (pending) snap() }
$1 == "insn" {
	if (!TRACE || pending) snap()
	print "insn " field("pc") " " field("size")
	pending = 1; inframe = 0
}
$1 == "read" || $1 == "write" {
	if (TRACE && pending) snap()
	print $1 " " field("addr") " " field("size") " " field("data")
}
AWK
order64="rax rcx rdx rbx rsp rbp rsi rdi r8 r9 r10 r11 r12 r13 r14 r15 eflags gs fs es ds cs ss dr0 dr1 dr2 dr3 dr6 dr7 st0 st1 st2 st3 st4 st5 st6 st7 fpcw fpsw fptag mxcsr xmm0 xmm1 xmm2 xmm3 xmm4 xmm5 xmm6 xmm7 xmm8 xmm9 xmm10 xmm11 xmm12 xmm13 xmm14 xmm15 ymm0 ymm1 ymm2 ymm3 ymm4 ymm5 ymm6 ymm7 ymm8 ymm9 ymm10 ymm11 ymm12 ymm13 ymm14 ymm15 mm0 mm1 mm2 mm3 mm4 mm5 mm6 mm7"
order86="eax ecx edx ebx esp ebp esi edi eflags gs fs es ds cs ss dr0 dr1 dr2 dr3 dr6 dr7 st0 st1 st2 st3 st4 st5 st6 st7 fpcw fpsw fptag mxcsr xmm0 xmm1 xmm2 xmm3 xmm4 xmm5 xmm6 xmm7 ymm0 ymm1 ymm2 ymm3 ymm4 ymm5 ymm6 ymm7 mm0 mm1 mm2 mm3 mm4 mm5 mm6 mm7"

for arch in x64 x86; do
	if [ $arch = x64 ]; then order=$order64; ua=x86_64; else order=$order86; ua=x86; fi
	gen-trac --arch $arch --threads 4 --blocks 1500 --seed 23 > $arch.trace
	trac2txt $arch.trace > $arch.txt
	awk -f want.awk $arch.txt > $arch.want
	grep -c '^state' $arch.want > /dev/null; ok $? "$arch: the expected side has register values"

	txt2ucir $arch.txt > $arch.ucir 2> $arch.warn
	ok $? "$arch: trac2txt's text encodes into a replay"
	ucir2txt $arch.ucir > $arch.back
	head -n 1 $arch.back | grep -q " arch=$ua "; ok $? "$arch: a header for arch $ua"
	awk -v ORDER="$order" -f got.awk $arch.back > $arch.got
	grep -v '^state' $arch.want > w.acc; grep -v '^state' $arch.got > g.acc
	same_file g.acc w.acc "$arch: every instruction (pc, size) and access (addr, size, value bytes)"
	grep '^state' $arch.want > w.st; grep '^state' $arch.got > g.st
	same_file g.st w.st "$arch: every register value at every instruction ($(wc -l < w.st) values)"
	grep -q 'records changed: a thread id dropped (the replay format has no threads)' $arch.warn
	ok $? "$arch: the threads a replay cannot hold are counted"
	grep -q "records changed: a write's old value dropped" $arch.warn; ok $? "$arch: and writes' old values"

	txt2ucir --trace $arch.txt > $arch.t.ucir 2> $arch.twarn
	ok $? "$arch: --trace"
	ucir2txt $arch.t.ucir > $arch.tback
	awk -v ORDER="$order" -v TRACE=1 -f got.awk $arch.tback > $arch.tgot
	grep '^insn' $arch.want > w.acc; grep '^insn' $arch.tgot > g.acc
	same_file g.acc w.acc "$arch: --trace: every instruction"
	grep '^write' $arch.want > w.acc; grep '^write' $arch.tgot > g.acc
	same_file g.acc w.acc "$arch: --trace: every write with its value"
	grep '^read' $arch.want | cut -d' ' -f1-3 > w.rd; grep '^read' $arch.tgot | cut -d' ' -f1-3 > g.rd
	same_file g.rd w.rd "$arch: --trace: every read (address and size: a trace's reads have no data)"
	# (the state after the last instruction is not in the trace)
	last=$(grep -c '^insn' $arch.want)
	awk -v last=$((last - 1)) '$1 == "state" && $2 < last' $arch.tgot > g.st
	awk -v last=$((last - 1)) '$1 == "state" && $2 < last' $arch.want > w.st
	same_file g.st w.st "$arch: --trace: every register value at every instruction but the last"
	ucir2txt $arch.t.ucir | grep '^ucir-frame' | sed 's/ keyframe=.*//' | uniq |
	    sed 's/.*tid=//' | sort -u > g.tid
	awk '$1 == "insn" { for (i = 2; i <= NF; i++) if ($i ~ /^tid=/) print substr($i, 5) }' $arch.txt |
	    sort -u > w.tid
	same_file g.tid w.tid "$arch: --trace: each thread in frames of its own pid"
	ucir2txt $arch.t.ucir | txt2ucir --trace | cmp -s - $arch.t.ucir
	ok $? "$arch: --trace: its text encodes back into the same bytes"
done

# One thread of the x64 trace (its ctx. fields make its state whole):
# its registers as the whole trace has them, nothing unknown; then with
# instructions missing, the registers that cannot be known are counted.
tid=$(awk '$1 == "insn" { for (i = 2; i <= NF; i++) if ($i ~ /^tid=/) { print substr($i, 5); exit } }' x64.txt)
grep -e '^trac-header' -e " tid=$tid " x64.txt > one.txt
awk -f want.awk one.txt | grep '^state' > w.st
txt2ucir one.txt 2> one.warn | ucir2txt | awk -v ORDER="$order64" -f got.awk | grep '^state' > g.st
same_file g.st w.st "one thread: every register value at every instruction"
! grep -q 'registers not known' one.warn; ok $? "one thread: nothing unknown"
awk '$1 == "insn" { n++ } !($1 == "insn" && n % 7 == 3)' x64.txt > gaps.txt
txt2ucir gaps.txt 2>&1 > /dev/null | grep -q 'records changed: registers not known (instructions of the thread are missing before it) (first at line [0-9]*: seq=3)'
ok $? "instructions missing: the registers not known are counted"

# Typos in x64dbg records: counted and named once; --strict refuses.
sed '3s/ rip=/ rbxx=0x7 rip=/' x64.txt > typo.txt
txt2ucir typo.txt 2> err > /dev/null
grep -q '1 record changed: an unknown field dropped (first at line 3: field "rbxx")' err
ok $? "an unknown x64dbg register name: counted and named: $(grep unknown err)"
txt2ucir --strict typo.txt > /dev/null 2> err
is $? 1 "--strict refuses it"
done_testing
