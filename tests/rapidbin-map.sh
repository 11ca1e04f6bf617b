#!/bin/sh
# txt2rapidbin on records from other formats: the id mapping and the
# Wasmgrind-style metadata (--meta).
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/rapidbin
C=$(corpus rapidbin)

# Hand-written x64dbg records mixed with native ones.
txt2rapidbin -q --meta m.json "$D/x64dbg.txt" > x.bin
ok $? "x64dbg-style text encodes"
rapidbin2txt x.bin > x.txt
same_file x.txt "$D/x64dbg.bin.txt" "x64dbg-style text: dense threads, variables and locations"
same_file m.json "$D/x64dbg.meta.json" "--meta: the mapping as Wasmgrind-style JSON"
is "$(tail -c 1 m.json | od -An -c | tr -d ' ')" "}" "--meta: no trailing newline (serde_json::to_string_pretty)"
if command -v python3 > /dev/null; then
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' m.json
	ok $? "--meta: valid JSON"
else
	skip "no python3" "--meta: valid JSON"
fi

# The same shape as Wasmgrind's metadata (numbers aside) for the
# records both have: threads, memory, locks.
printf '%s\n' "read tid=0 addr=0x150080 size=4 pc=0x10" \
    "write tid=1 addr=0x150080 size=8 pc=0x11" \
    "acquire tid=0 lock=0 pc=0x12" | txt2rapidbin --meta s.json > /dev/null
if [ -n "$C" ]; then
	sed -n '1,/location_records/p' s.json | sed 's/[0-9][0-9]*/N/g' > got.shape
	sed -n '1,/location_records/p' "$C/synthetic/wasmgrind_metadata.example.json" | sed 's/[0-9][0-9]*/N/g' > want.shape
	same_file got.shape want.shape "--meta: same shape as wasmgrind_metadata.example.json"
else
	skip "no shared corpus" "--meta shape"
fi
is "$(sed -n '/memory_records/,/lock_records/p' s.json | grep -c '"address": 1376384')" 2 \
    "--meta: (address, width) pairs listed, identity variables keep the address"
is "$(sed -n '/shared_variables/,$p' s.json | tr -d ' \n')" '"shared_variables":{"1376384":[0,1]}}' \
    "--meta: shared_variables: variables touched by more than one thread"

# Identity when every value fits, and the metadata lists every id.
printf '%s\n' "read tid=3 addr=0x20 size=4 pc=0x30" "write tid=3 addr=0x24 size=4" \
    | txt2rapidbin --meta i.json | rapidbin2txt > i.txt
is "$(cat i.txt)" "rapidbin-header threads=1 locks=0 vars=2 events=2
read tid=3 var=32 loc=48
write tid=3 var=36 loc=0" "identity: small tid, addr and pc are kept; no pc gives loc 0"
is "$(grep -c trace_id i.json)" 4 "identity: every id is in the metadata"
is "$(sed -n '/lock_records/p;/shared_variables/p' i.json | tr -d ' ')" '"lock_records":[],
"shared_variables":{}' "--meta: empty arrays and objects as serde writes them"

# Addresses keyed by (address, size) once renumbered.
printf '%s\n' "read tid=0 addr=0x400000000 size=4" "read tid=0 addr=0x400000000 size=8" \
    "read tid=0 addr=0x400000000 size=4" | txt2rapidbin | rapidbin2txt | cut -d' ' -f3 | tr '\n' ' ' > k.txt
is "$(cat k.txt)" "locks=0 var=0 var=1 var=0 " "dense variables: one per (address, size)"

# The real pipeline, checked event by event through the metadata.
if ! command -v gen-trac > /dev/null || ! command -v trac2txt > /dev/null; then
	skip "gen-trac or trac2txt not built" "trac2txt | txt2rapidbin"
	done_testing
fi
gen-trac --arch x64 --blocks 300 --seed 5 --threads 3 > a.trace64 || exit 99
trac2txt a.trace64 > t.txt
grep -E '^(read|write) ' t.txt > rw.txt
txt2rapidbin -q --meta t.json t.txt > t.bin
ok $? "trac2txt | txt2rapidbin: encodes"
rapidbin2txt t.bin | tail -n +2 > d.txt
is "$(wc -l < d.txt | tr -d ' ')" "$(wc -l < rw.txt | tr -d ' ')" "one RapidBin event per x64dbg read and write"

# awk with exact 64-bit values: hex to decimal as digit strings.
cat > check.awk <<'AWK'
function hex2dec(h,   i, j, d, carry, n, out) {
	h = tolower(substr(h, 3)); n = 1; dig[1] = 0
	for (i = 1; i <= length(h); i++) {
		carry = index("0123456789abcdef", substr(h, i, 1)) - 1
		for (j = 1; j <= n; j++) {
			d = dig[j] * 16 + carry; dig[j] = d % 10; carry = int(d / 10)
		}
		while (carry > 0) { dig[++n] = carry % 10; carry = int(carry / 10) }
	}
	out = ""
	for (j = n; j >= 1; j--) out = out dig[j]
	return out
}
function val(line, key,   m) {
	if (match(line, " " key "=[^ ]*")) return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
	return ""
}
FILENAME == META {
	if ($0 ~ /"(thread|memory|lock|location)_records"/) { sect = $1; gsub(/[":]/, "", sect) }
	if ($0 ~ /"shared_variables"/) sect = ""
	if ($1 == "\"wasm_id\":" && $2 != "{") w = $2
	if ($1 == "\"address\":") w = $2
	if ($1 == "\"access_width\":") w = w "/" $2
	if ($1 == "\"pc\":") w = $2
	if ($1 == "\"trace_id\":") { gsub(/,/, "", w); map[sect, $2] = w }
	next
}
FILENAME == DEC { dec[++nd] = $0; next }
{
	e = dec[++i]
	if ($1 != substr(e, 1, index(e, " ") - 1)) { bad++; print "# kind " i; next }
	if (map["thread_records", val(e, "tid")] != val($0, "tid")) { bad++; print "# tid " i }
	if (map["memory_records", val(e, "var")] != hex2dec(val($0, "addr")) "/" val($0, "size")) { bad++; print "# addr " i }
	if (map["location_records", val(e, "loc")] != hex2dec(val($0, "pc"))) { bad++; print "# pc " i }
}
END { print bad + 0 }
AWK
is "$(awk -v META=t.json -v DEC=d.txt -f check.awk t.json d.txt rw.txt | tail -1)" 0 \
    "every event maps back to its x64dbg tid, (addr, size) and pc"

if command -v python3 > /dev/null; then
	python3 - t.json > py.out <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert list(m) == ["thread_records", "memory_records", "lock_records",
    "location_records", "shared_variables"], list(m)
shapes = {"thread_records": int, "lock_records": int,
    "memory_records": ["address", "access_width"], "location_records": ["pc"]}
for key, shape in shapes.items():
    ids = [r["trace_id"] for r in m[key]]
    assert ids == list(range(len(ids))), key
    for r in m[key]:
        assert list(r) == ["wasm_id", "trace_id"], r
        w = r["wasm_id"]
        assert isinstance(w, int) if shape is int else list(w) == shape, r
for var, threads in m["shared_variables"].items():
    assert int(var) < len(m["memory_records"]) and len(threads) > 1
print(len(m["thread_records"]), len(m["memory_records"]), len(m["location_records"]))
PY
	is "$?:$(cat py.out)" "0:3 $(awk '{ print $5 "/" $6 }' rw.txt | sort -u | wc -l | tr -d ' ') $(awk '{ print $4 }' rw.txt | sort -u | wc -l | tr -d ' ')" \
	    "x64dbg --meta: valid JSON, Wasmgrind's keys in order, dense trace ids, one record per thread, (addr, size) and pc"
else
	skip "no python3" "x64dbg --meta: valid JSON"
fi

# As the design writes it: select a thread with grep, then encode; the
# events and the metadata check out against that thread's x64dbg lines.
tid=$(grep -m1 '^read ' t.txt | sed 's/.*tid=\([0-9]*\).*/\1/')
trac2txt < a.trace64 | grep "tid=$tid " | txt2rapidbin -q --meta g.json > g.bin
ok $? "trac2txt < a.trac | grep tid=$tid | txt2rapidbin"
is "$(rapidbin2txt g.bin | head -1 | sed 's/.*threads=\([0-9]*\).*events=/\1 /')" \
    "1 $(grep "tid=$tid " rw.txt | wc -l | tr -d ' ')" "one thread, its reads and writes"
grep "tid=$tid " rw.txt > rw1.txt
rapidbin2txt g.bin | tail -n +2 > d1.txt
is "$(awk -v META=g.json -v DEC=d1.txt -f check.awk g.json d1.txt rw1.txt | tail -1)" 0 \
    "grep-selected thread: every event maps back to its x64dbg tid, (addr, size) and pc"
trac2txt < a.trace64 | txtfilter -s --tid "$tid" | txt2rapidbin -q --meta f.json > f.bin
ok $? "trac2txt < a.trac | txtfilter --tid $tid | txt2rapidbin"
cmp -s f.bin g.bin && cmp -s f.json g.json
ok $? "txtfilter and grep select the same: same RapidBin bytes and metadata"
gen-trac --arch x86 --blocks 100 --seed 6 > b.trace32 || exit 99
trac2txt b.trace32 | txt2rapidbin -q --meta b.json | rapidbin2txt > b.txt
ok $? "x86 trace encodes"

# More distinct code addresses than RapidBin's 32768 locations: the
# first 32767 keep their own, the rest share location 32767, said in one
# line (never silently); --strict refuses; --no-pc leaves them out.
awk 'BEGIN { for (i = 0; i < 40000; i++) printf "read tid=1 pc=0x%x addr=0x10 size=8\n", 4096 + i }' > many.txt
txt2rapidbin --strict many.txt > many.bin 2> many.err
is "$?:$(cat many.err)" "1:txt2rapidbin: many.txt:32769: strict: more than 32768 distinct locations: they do not fit RapidBin's 15-bit location (--no-pc leaves code addresses out)" \
    "too many locations, --strict: an error"
txt2rapidbin --meta many.json many.txt > many.bin 2> many.err
is "$?:$(cat many.err)" "0:txt2rapidbin: 40000 distinct locations: the first 32767 have their own, the other 7233 share location 32767 (7233 events; --strict refuses)" \
    "too many locations: folded, said in one line"
rapidbin2txt many.bin | awk -F'loc=' 'NR > 1 { n[$2 >= 32767 ? "shared" : "own"]++; if ($2 != NR - 2 && $2 != 32767) bad++ }
    END { print n["own"], n["shared"], bad + 0 }' > many.out
is "$(cat many.out)" "32767 7233 0" "locations 0-32766 by first appearance, the rest 32767"
grep -c '"trace_id": 32767$' many.json > many.cnt
is "$(cat many.cnt)" 7233 "the metadata maps every folded pc to location 32767"
txt2rapidbin --no-pc many.txt | rapidbin2txt | LC_ALL=C sort | uniq -c | sed 's/^ *//' > many.out
is "$(cat many.out)" "1 rapidbin-header threads=1 locks=0 vars=1 events=40000
40000 read tid=1 var=16 loc=0" "--no-pc: every event at location 0"
# README's headline pipeline on a 200k-block trace, default options: it
# works, every read and write of the thread is an event, and the folded
# locations are said in one line; --strict refuses.
gen-trac --threads 3 --blocks 200000 --seed 41 > big.trace
trac2txt big.trace > big.txt
t=$(sed -n 's/^insn seq=0 tid=\([0-9]*\) .*/\1/p' big.txt)
grep "tid=$t " big.txt | txt2rapidbin > b.data 2> b.err
is "$?" 0 "headline pipeline on 200000 blocks: exit 0"
n=$(grep "tid=$t " big.txt | grep -c -E '^(read|write) ')
is "$(rapidbin2txt b.data | sed -n '1s/.*events=//p')" "$n" "headline pipeline: every read and write of thread $t is an event ($n)"
like "$(cat b.err)" "txt2rapidbin: * records skipped, no RapidBin meaning (first at line 1: record kind \"insn\")
txt2rapidbin: * distinct locations: the first 32767 have their own, the other * share location 32767 (* events; --strict refuses)" \
    "headline pipeline: skipped records and folded locations are said, one line each"
grep "tid=$t " big.txt | grep -v '^insn' | txt2rapidbin --strict > /dev/null 2> b.err
like "$? $(cat b.err)" "1 txt2rapidbin: <stdin>:*: strict: more than 32768 distinct locations*" \
    "headline pipeline with --strict: refused"
done_testing
