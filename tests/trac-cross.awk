# What an x64dbg trace must say for a Usercorn trace, computed from
# ucir2txt's text alone (the model of trac-cross.sh), or (side=trac) what
# trac2txt says of the trace txt2trac wrote, in the same form:
#   I pc bytes          an instruction, then
#   R slot=value ...    the registers the test follows, at that instruction
#   A r addr old        an access x64dbg marks unchanged (every read)
#   A w addr old new    a write that changed memory
# ps is the pointer size (8 x64, 4 x86).  Addresses stay below 2^53
# (awk's numbers are doubles; memory is keyed by "%.0f", as mawk turns
# larger integers into "%.6g" keys).
function num(h,   i, v) {
	sub(/^0x/, "", h)
	v = 0
	for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}
function hex(v,   s, d) {
	if (v == 0)
		return "0x0"
	s = ""
	while (v > 0) {
		d = v % 16
		s = substr("0123456789abcdef", d + 1, 1) s
		v = (v - d) / 16
	}
	return "0x" s
}
# Little-endian hex bytes as x64dbg's value (minimal hex).
function leval(b,   i, s) {
	s = ""
	for (i = length(b) - 1; i >= 1; i -= 2)
		s = s substr(b, i, 2)
	sub(/^0+/, "", s)
	return "0x" (s == "" ? "0" : s)
}
# A 0x value as n little-endian bytes (the low ones).
function lebytes(v, n,   h, s, i) {
	h = substr(v, 3)
	while (length(h) < 16)
		h = "0" h
	h = substr(h, length(h) - 2 * n + 1)
	s = ""
	for (i = length(h) - 1; i >= 1; i -= 2)
		s = s substr(h, i, 2)
	return s
}
function zeros(n,   s) {
	s = ""
	while (n-- > 0)
		s = s "00"
	return s
}
function field(k,   i) {
	for (i = 2; i <= NF; i++)
		if (index($i, k "=") == 1)
			return substr($i, length(k) + 2)
	return ""
}
# Bytes b replace bytes from off of slot s.
function put(s, off, b) {
	reg[s] = substr(reg[s], 1, 2 * off) b substr(reg[s], 2 * off + length(b) + 1)
	reg[s] = substr(reg[s], 1, 2 * ps)
}
# Register name (as ucir2txt writes it) set to little-endian bytes b:
# gpr[name] is "slot:byte offset:length" (a sub-register keeps the rest).
function setreg(name, b,   k, part, where) {
	if (name ~ /^xmm0$/) {
		b = substr(b, 1, 32)
		for (k = 0; 2 * k * ps < length(b); k++) {
			part = substr(b, 2 * k * ps + 1, 2 * ps)
			put("xmm0_" k, 0, part)
			put("ymm0_" k, 0, part)
		}
	} else if (name in gpr) {
		split(gpr[name], where, ":")
		put(where[1], where[2], substr(b, 1, 2 * where[3]))
	}
}
function memput(a, b,   i) {
	for (i = 0; 2 * i < length(b); i++)
		mem[sprintf("%.0f", a + i)] = substr(b, 2 * i + 1, 2)
}
function memget(a, n,   i, s, k) {
	s = ""
	known = 0
	for (i = 0; i < n; i++) {
		k = sprintf("%.0f", a + i)
		if (k in mem) {
			s = s mem[k]
			known++
		} else {
			s = s "00"
		}
	}
	return s
}
function regs(   i, s) {
	s = "R"
	for (i = 1; i <= nslots; i++)
		s = s " " slots[i] "=" leval(reg[slots[i]])
	return s
}
function applypending(   i) {
	for (i = 1; i <= npend; i++)
		setreg(pname[i], pbytes[i])
	npend = 0
}
BEGIN {
	if (ps == 8) {
		nslots = split("rax rsp r15 rflags xmm0_0 xmm0_1 ymm0_0 ymm0_1", slots, " ")
		gpr["rax"] = "rax:0:8"; gpr["rsp"] = "rsp:0:8"
		gpr["r15"] = "r15:0:8"; gpr["eflags"] = "rflags:0:8"
		gpr["eax"] = "rax:0:4"; gpr["ah"] = "rax:1:1"
	} else {
		nslots = split("eax esp eflags xmm0_0 xmm0_1 xmm0_2 xmm0_3 ymm0_0 ymm0_1 ymm0_2 ymm0_3", slots, " ")
		gpr["eax"] = "eax:0:4"; gpr["esp"] = "esp:0:4"
		gpr["eflags"] = "eflags:0:4"; gpr["ah"] = "eax:1:1"
	}
	for (i = 1; i <= nslots; i++)
		reg[slots[i]] = zeros(ps)
}

# ------------------------------------------------------- trac2txt's text
side == "trac" && $1 == "insn" {
	for (i = 1; i <= nslots; i++)
		if ((v = field(slots[i])) != "")
			reg[slots[i]] = lebytes(v, ps)
	print "I " field("pc") " " field("bytes")
	print regs()
	next
}
side == "trac" && $1 == "read" { print "A r " field("addr") " " field("old"); next }
side == "trac" && $1 == "write" {
	print "A w " field("addr") " " field("old") " " field("new")
	next
}
side == "trac" { next }

# ------------------------------------------------ ucir2txt's text: model
$1 == "ucir-header" { trace = field("format") == "trace"; next }
$1 == "ucir-frame" { inkey = field("keyframe") == "true"; next }
$1 == "ucir-reg" || $1 == "ucir-spreg" {
	b = $1 == "ucir-reg" ? lebytes(field("value"), 8) : field("data")
	if (trace && !inkey) {
		pname[++npend] = field("reg")
		pbytes[npend] = b
	} else {
		setreg(field("reg"), b)
	}
	next
}
$1 == "insn" {
	inkey = 0
	haveinsn = 1
	pc = num(field("pc"))
	size = field("size") + 0
	bytes = ""
	if (size >= 1 && size <= 15) {
		b = memget(pc, size)
		bytes = known == size ? b : substr("909090909090909090909090909090", 1, 2 * size)
	} else {
		bytes = "90"
	}
	print "I " field("pc") " " bytes
	print regs()
	if (trace) {
		printf "%s", buf
		buf = ""
		applypending()
	}
	nmem = 0
	next
}
$1 == "read" || $1 == "write" {
	w = $1 == "write"
	addr = num(field("addr"))
	data = field("data")
	size = field("size") + 0
	setup = w && (inkey || field("depth") != "")
	count = int((size + ps - 1) / ps)
	if (setup || (!trace && !haveinsn) || size == 0 || nmem + count > 32) {
		memput(addr, data)
		next
	}
	old = w ? memget(addr, size) : data memget(addr + length(data) / 2, size - length(data) / 2)
	new = w ? data : old
	memput(addr, data)
	old = old zeros(count * ps - size)
	new = new zeros(count * ps - size)
	for (k = 0; k < count; k++) {
		o = leval(substr(old, 2 * k * ps + 1, 2 * ps))
		n = leval(substr(new, 2 * k * ps + 1, 2 * ps))
		line = (!w || o == n) ? "A r " hex(addr + k * ps) " " o : "A w " hex(addr + k * ps) " " o " " n
		if (trace)
			buf = buf line "\n"
		else
			print line
	}
	nmem += count
	next
}
