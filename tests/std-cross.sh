#!/bin/sh
# Instruction traces into RAPID (issue 23): x64dbg and Usercorn text into
# txt2std and txt2rapidbin.  Each access becomes one event, checked record
# by record against the input text (its thread, (address, size) and pc
# mapped one to one) and against the other encoder through its decoder;
# unknown fields are counted, --strict refuses them; RAPID reads the STD
# where RAPID_HOME is set (as in std-rapid.sh).
. "$srcdir/tests/tap.sh"
if [ -n "${RAPID_HOME:-}" ] && [ -f "$RAPID_HOME/bin/MetaInfo.class" ] &&
    command -v java >/dev/null 2>&1; then
	have_rapid=1
else
	have_rapid=
fi
rapid() { (cd "$RAPID_HOME" && java -cp "bin:lib/*:lib/jgrapht/*" "$@" 2>&1); }

# The accesses of a text stream, one line each: r|w tid addr size pc.
cat > acc.awk <<'AWK'
$1 == "read" || $1 == "write" {
	delete f
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	print ($1 == "read" ? "r" : "w"), f["tid"], f["addr"], f["size"], f["pc"]
}
AWK
# Pasted with the STD lines (T<t>|r(V<v>)|<l>): the kind is the access's;
# thread, variable and location are functions of the input's tid,
# (addr, size) and pc, and no two tids, addresses or pcs share one.  Says
# "ok N" or the first line where that fails.
cat > check.awk <<'AWK'
function fail(why) { print "line " NR ": " why ": " $0; bad = 1; exit }
{
	split($6, s, "|"); t = substr(s[1], 2)
	op = s[2]; sub(/\(.*/, "", op)
	v = s[2]; sub(/^[a-z]*\(V/, "", v); sub(/\)$/, "", v)
	if (op != $1) fail("kind")
	if (($2 in thr) && thr[$2] != t) fail("thread not a function of tid")
	if (!($2 in thr)) { if (t in thr_of) fail("two tids, one thread"); thr[$2] = t; thr_of[t] = $2 }
	k = $3 "/" $4
	if ((k in var) && var[k] != v) fail("variable not a function of (addr, size)")
	if (!(k in var)) {
		if ((v in var_of) && var_of[v] != $3) fail("two addresses, one variable")
		var[k] = v; var_of[v] = $3
	}
	if (($5 in loc) && loc[$5] != s[3]) fail("location not a function of pc")
	if (!($5 in loc)) { if (s[3] in loc_of) fail("two pcs, one location"); loc[$5] = s[3]; loc_of[s[3]] = $5 }
}
END { if (!bad) print "ok " NR }
AWK

cross() {	# NAME: NAME.txt, the decoder's text
	n=$1
	awk -f acc.awk "$n.txt" > "$n.acc"
	nacc=$(wc -l < "$n.acc" | tr -d ' ')
	txt2std "$n.txt" > "$n.std" 2> "$n.err"
	is "$?:$(grep -c . "$n.std")" "0:$nacc" "$n: txt2std writes one event per access ($nacc)"
	paste -d ' ' "$n.acc" "$n.std" | awk -f check.awk > chk.txt
	is "$(cat chk.txt)" "ok $nacc" "$n: each STD event is its access: kind, and thread, variable, location one to one with tid, (addr, size), pc"
	# The same events through RapidBin, decoded by rapidbin2txt, and the
	# STD decoded by std2txt: record by record.
	txt2rapidbin -q --meta "$n.rb.json" "$n.txt" | rapidbin2txt | grep -v '^rapidbin-' > "$n.rb.txt"
	std2txt "$n.std" | grep -v '^std-header' > "$n.std.txt"
	same_file "$n.std.txt" "$n.rb.txt" "$n: std2txt of txt2std's output = rapidbin2txt of txt2rapidbin's, record by record"
	txt2std -q --meta "$n.std.json" "$n.txt" > /dev/null
	same_file "$n.std.json" "$n.rb.json" "$n: txt2std --meta writes txt2rapidbin's mapping"
	if [ -n "$have_rapid" ]; then
		rapid MetaInfo -f std -p "$TMP/$n.std" > info.txt
		want=$(awk '{ th[$2]; v[$3 "/" $4]; c[$1]++ } END {
		    m = 0; for (k in th) m++; w = 0; for (k in v) w++
		    printf "%d %d %d %d %d", m, w, NR, c["r"], c["w"] }' "$n.acc")
		got=$(sed -n 's/^Number of threads = //p; s/^Number of variables = //p; s/^Number of events = //p; s/^Number of read events = //p; s/^Number of write events = //p' info.txt | tr '\n' ' ')
		is "$(grep -c 'anot parse' info.txt):$got" "0:$want " "$n: RAPID's MetaInfo: threads, (addr, size) variables, events, reads, writes of the input"
		rapid HB -f std -p "$TMP/$n.std" > hb.txt
		like "$(grep -c 'anot parse' hb.txt):$(cat hb.txt)" "0:*Number of 'racy' events found = *" "$n: RAPID's HB runs on it"
	else
		skip "RAPID_HOME not set to a built RAPID" "$n: RAPID's MetaInfo"
		skip "RAPID_HOME not set to a built RAPID" "$n: RAPID's HB"
	fi
}

gen-trac --arch x64 --blocks 400 --seed 5 --threads 3 > x64.trace64 || exit 99
trac2txt x64.trace64 > x64.txt
is "$(awk '$1 == "read" || $1 == "write" { print $2 }' x64.txt | sort -u | wc -l | tr -d ' ')" 3 "x64dbg x64 text: three threads access memory"
cross x64
gen-trac --arch x86 --blocks 300 --seed 7 --threads 2 > x86.trace32 || exit 99
trac2txt x86.trace32 > x86.txt
cross x86
gen-ucir --frames 8 --ops 60 --seed 4 > u.ucir || exit 99
ucir2txt u.ucir > ucir.txt
cross ucir
gen-ucir --format trace --arch x86 --frames 6 --ops 40 --seed 2 > ut.ucir || exit 99
ucir2txt ut.ucir > ucirt.txt
cross ucirt

# What is not an access is counted, each cause once.
like "$(cat x64.err)" "txt2std: * records skipped, no RapidBin meaning (first at line 2: record kind \"insn\")" "x64dbg: the instructions are counted, not refused (the header is structure, rebuilt)"

# A field neither encoder knows in a record of its kinds (a typo): counted
# and named once per cause; --strict refuses it.
printf 'read tid=1 addr=0x10 size=4 pc=0x100\nwrite tid=1 adr=0x10 addr=0x10 size=4\nacquire tid=1 lock=2 lokc=3\n' > typo.txt
for p in txt2std txt2rapidbin; do
	$p typo.txt > /dev/null 2> err.txt
	is "$?:$(cat err.txt | grep unknown)" "0:$p: 2 records changed: an unknown field dropped (first at line 2: field \"adr\" in a write record)" "$p: unknown fields counted, the first named"
	$p --strict typo.txt > out 2> err.txt
	is "$?:$(cat err.txt):$(wc -c < out | tr -d ' ')" "1:$p: typo.txt:2: field \"adr\" in a write record: an unknown field dropped:0" "$p --strict: an unknown field is an error"
done
# The fields the decoders write that RAPID has no place for are known.
grep -E '^(read|write) ' ucir.txt > ucir.acc.txt
is "$(grep -c 'depth=' ucir.acc.txt):$(grep -c 'data=' ucir.acc.txt)" "11:109" "Usercorn's accesses carry depth= and data="
txt2std --strict ucir.acc.txt > /dev/null 2> err.txt
is "$?:$(cat err.txt)" "0:" "--strict: Usercorn's accesses (depth=, data=) pass"
txt2std --strict ucir.txt > /dev/null 2> err.txt
is "$?:$(cat err.txt)" "1:txt2std: ucir.txt:3: record kind \"insn\": no RapidBin meaning" "--strict: Usercorn's other records refused (its header and frames are structure)"
grep -E '^(read|write) ' x64.txt | txt2std --strict > /dev/null 2> err.txt
is "$?:$(cat err.txt)" "0:" "--strict: x64dbg's accesses (seq=, old=, new=) pass"
done_testing
