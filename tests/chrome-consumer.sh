#!/bin/sh
# txt2chrome's output read by a real consumer: the Chrome DevTools trace
# engine (npm @paulirish/trace_engine, the model of the Performance
# panel), run by node from a scratch directory.  Skipped when node, npm or
# the package cannot be had.
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/data/chrome/each-trace.sh"

if ! command -v node > /dev/null 2>&1 || ! command -v npm > /dev/null 2>&1; then
	skip "node and npm are not installed" "DevTools trace engine"
	done_testing
fi
if ! npm install --prefix "$TMP/npm" --no-audit --no-fund \
    @paulirish/trace_engine@0.0.65 > npm.log 2>&1; then
	skip "npm could not install @paulirish/trace_engine (offline?)" "DevTools trace engine"
	done_testing
fi
# The engine's model of the trace file argv[2], in d; its errors.
cat > "$TMP/npm/engine.mjs" <<'JS'
import fs from 'node:fs';
import * as Trace from '@paulirish/trace_engine';
globalThis.DOMRect ??= class { constructor(x, y, w, h) { Object.assign(this, { x, y, width: w, height: h }); } };
const errors = [];
console.error = (...a) => errors.push(a.join(' '));
console.warn = console.error;
const events = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')).traceEvents;
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const d = model.parsedTrace().data;
JS
# What the engine made of a trace: threads, slices, arrows, its errors.
{ cat "$TMP/npm/engine.mjs"; cat <<'JS'; } > "$TMP/npm/model.mjs"
let threads = 0, entries = 0;
const names = new Set();
for (const [, proc] of d.Renderer.processes)
	for (const [, th] of proc.threads) {
		threads++;
		entries += th.entries.length;
		for (const e of th.entries) names.add(e.name);
	}
console.log([threads, entries, d.Flows.flows.length, errors.length].join(' '));
console.log([...names].sort().join('|'));
if (errors.length) process.stderr.write(errors.slice(0, 3).join('\n') + '\n');
JS
model() { node "$TMP/npm/model.mjs" "$PWD/$1"; }

# The hand-made trace of every kind: 2 threads and the lane of the lock
# released while a later one is held, its 9 slices and 3 instants (the
# engine reads instants spelled I, not i), the fork and join arrows.
txt2chrome "$srcdir/tests/data/chrome/events.txt" > e.json
model e.json > e.model 2> e.err
is "$(head -1 e.model)" "3 12 2 0" "every kind: 3 tracks, 12 entries, 2 arrows, no error"
is "$(tail -1 e.model)" "Poll|block|fork|join|lock 1|lock 2|lock 3|read 7|release|wake up" \
    "every kind: the slices and instants by name"
# dial9 and WTF pairs: 5 threads, 8 slices and 3 instants.
txt2chrome "$srcdir/tests/data/chrome/pairs.txt" > pe.json
model pe.json > pe.model 2> pe.err
is "$(head -1 pe.model)" "5 11 0 0" "event pairs: 5 threads, 11 entries, no error"
is "$(tail -1 pe.model)" "Foo#bar|Poll|Span:app::f:src/a.rs:3|TaskSpawnEvent|WorkerPark|gf.Game|outer|wtf.scope#appendData|wtf.scope#leave|wtf.timing#frame" \
    "event pairs: the slices and instants by name"

# RapidBin: the synthetic traces, and the real ones when there.
check() {	# NAME TEXT
	txt2chrome "$2" > c.json
	model c.json > c.model 2> c.err
	# The threads with a slice or an instant, and those, as written.
	# (a slice of no length is a B and an E: one entry)
	tids=$(grep '"ph":"[XIB]"' c.json | sed 's/.*"tid":\([0-9]*\).*/\1/' |
	    sort -u | wc -l | tr -d ' ')
	entries=$(grep -c '"ph":"[XIB]"' c.json)
	flows=$(grep -c '^\(fork\|join\) .*child=' "$2")
	set -- $(head -1 c.model) "$1"
	is "$1 $2 $3 $4" "$tids $entries $flows 0" "$5: $tids threads, $entries entries, $flows arrows, no error"
}
rapidbin2txt "$srcdir/tests/data/rapidbin/allops.bin" > allops.txt
check "RapidBin, every op" allops.txt
c=$(corpus rapidbin)
if [ -n "$c" ]; then
	for f in "$c"/spd-deadlock-benchmarks/*.data; do
		rapidbin2txt "$f" > r.txt
		check "real RapidBin $(basename "$f")" r.txt
	done
else
	skip "no ../shared corpus" "real RapidBin traces"
fi
# x64dbg: instruction runs on their threads.
gen-trac --arch x64 --blocks 20000 --threads 3 --seed 12 | trac2txt > t.txt
txt2chrome t.txt > t.json
model t.json > t.model 2> t.err
set -- $(head -1 t.model)
is "$1 $4" "3 0" "x64dbg: 3 threads, no error"
is "$2" "$(grep -c '"ph":"X"' t.json)" "x64dbg: every run is an entry"
# Merged inputs are processes of their own (pid from --tag).
printf 'acquire ts=1000 tid=1 lock=1\nrelease ts=2000 tid=1 lock=1\n' > p1.txt
printf 'acquire ts=1500 tid=1 lock=1\nrelease ts=2500 tid=1 lock=1\n' > p2.txt
txtmerge --tag p1.txt p2.txt | txt2chrome > m.json
model m.json > m.model 2> m.err
is "$(head -1 m.model)" "2 2 0 0" "merged with --tag: two processes, one slice each"
# Every corpus trace (dial9, WTF, RapidBin), slice by slice: what the
# engine made of each slice (thread, name, start, duration, depth in its
# tree) against the slices the text says (tests/data/chrome/slices.awk).
# The depth of a slice of no length is the engine's own tie rule (it
# sorts a longer slice of the same start first and puts it in that one),
# so it is not compared.  Records without a thread are instants on
# tracks of their own, named by the event, none on a worker's track.
{ cat "$TMP/npm/engine.mjs"; cat <<'JS'; } > "$TMP/npm/slices.mjs"
const out = [], inst = new Map();
// Tracks from 2^32 up (records without a thread, overlapping slices) by
// their names.
const names = new Map();
for (const e of events)
	if (e.ph === 'M' && e.name === 'thread_name') names.set(e.pid + ' ' + e.tid, e.args.name.replace(/ /g, '_'));
const track = (pid, tid) => tid >= 4294967296 ? names.get(pid + ' ' + tid) : tid;
for (const [pid, proc] of d.Renderer.processes)
	for (const [tid, th] of proc.threads)
		for (const e of th.entries) {
			if (e.ph === 'I') {
				const k = [pid, track(pid, tid), e.name.replace(/ /g, '_')].join(' ');
				inst.set(k, (inst.get(k) ?? 0) + 1);
				continue;
			}
			const n = d.Renderer.entryToNode.get(e);
			const dur = (e.dur ?? 0).toFixed(3);
			out.push([pid, track(pid, tid), e.name.replace(/ /g, '_'), e.ts.toFixed(3), dur,
			    dur === '0.000' ? 'z' : n ? n.depth : '-'].join(' '));
		}
fs.writeFileSync(process.argv[3], out.join('\n') + (out.length ? '\n' : ''));
fs.writeFileSync(process.argv[4], [...inst].map(([k, n]) => k + ' ' + n).join('\n') + (inst.size ? '\n' : ''));
if (errors.length) { process.stderr.write(errors.slice(0, 3).join('\n') + '\n'); process.exit(1); }
JS
slices() {	# NAME TEXT
	txt2chrome "$2" > ev.json
	node "$TMP/npm/slices.mjs" "$PWD/ev.json" ev.got ev.inst 2> ev.err
	rc=$?
	slices_of "$2" | awk '{ if ($5 == "0.000") $6 = "z"; print }' | sort > ev.want
	sort ev.got > ev.have
	diff ev.want ev.have > ev.diff
	is "$rc $(wc -l < ev.diff | tr -d ' ')" "0 0" \
	    "$1: $(wc -l < ev.want | tr -d ' ') slices with their thread, name, start, duration and depth, no error"
	[ -s ev.diff ] && head -4 ev.diff | sed 's/^/# /'
	# Instants of records without tid: on their own tracks only.
	grep '^event ' "$2" | grep -v ' tid=' | sed 's/.* name=\([^ ]*\).*/\1/' |
	    sort | uniq -c | awk '{ print $2, $1 }' > nt.want
	awk '$2 == $3 { n[$3] += $4 } END { for (k in n) print k, n[k] }' ev.inst | sort > nt.have
	# and on the threads only those of the name that have a tid
	sed 's/ .*//' nt.want > nt.names
	awk 'NR == FNR { n[$1] = 1; next } $2 != $3 && ($3 in n) { c[$3] += $4 }
	    END { for (k in c) print k, c[k] }' nt.names ev.inst | sort > wk.have
	grep '^event ' "$2" | grep ' tid=' | sed 's/.* name=\([^ ]*\).*/\1/' |
	    awk 'NR == FNR { n[$1] = 1; next } ($1 in n) { c[$1]++ }
	    END { for (k in c) print k, c[k] }' nt.names - | sort > wk.want
	is "$(diff wk.want wk.have | wc -l | tr -d ' ') $(diff nt.want nt.have | wc -l | tr -d ' ')" "0 0" \
	    "$1: $(wc -l < nt.want | tr -d ' ') kinds of records without a thread on tracks of their own"
}
each_trace "in the trace engine" slices
# Two WTF traces merged with --tag: each input a process of its own,
# named for it, with its slices and zones (the same tid 1 in both).
c=$(corpus wtf)
if [ -n "$c" ]; then
	wtf2txt "$c/v10-js-multichunk.wtf-trace" > m1.txt
	wtf2txt "$c/v10-cpp-bindings.wtf-trace" > m2.txt
	txtmerge --tag m1.txt m2.txt > mt.txt
	slices "two WTF traces merged with --tag" mt.txt
	is "$(grep -c '^0 1 ' ev.have) $(grep -c '^1 1 ' ev.have)" \
	    "$(grep -c '^0 1 ' ev.want) $(grep -c '^1 1 ' ev.want)" "merged: each input's slices in its own process"
	is "$(grep -o '"name":"process_name","pid":[01],"tid":0,"args":{"name":"input [01]"}' ev.json | wc -l | tr -d ' ')" 2 \
	    "merged: the processes named input 0 and input 1"
else
	skip "no ../shared corpus" "two WTF traces merged with --tag"
fi
done_testing
