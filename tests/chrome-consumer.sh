#!/bin/sh
# txt2chrome's output read by a real consumer: the Chrome DevTools trace
# engine (npm @paulirish/trace_engine, the model of the Performance
# panel), run by node from a scratch directory.  Skipped when node, npm or
# the package cannot be had.
. "$srcdir/tests/tap.sh"

if ! command -v node > /dev/null 2>&1 || ! command -v npm > /dev/null 2>&1; then
	skip "node and npm are not installed" "DevTools trace engine"
	done_testing
fi
if ! npm install --prefix "$TMP/npm" --no-audit --no-fund \
    @paulirish/trace_engine@0.0.65 > npm.log 2>&1; then
	skip "npm could not install @paulirish/trace_engine (offline?)" "DevTools trace engine"
	done_testing
fi
# What the engine made of a trace: threads, slices, arrows, its errors.
cat > "$TMP/npm/model.mjs" <<'JS'
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

# The hand-made trace of every kind: 2 threads holding its 9 slices and
# 3 instants (the engine reads instants spelled I, not i), the fork and
# join arrows.
txt2chrome "$srcdir/tests/data/chrome/events.txt" > e.json
model e.json > e.model 2> e.err
is "$(head -1 e.model)" "2 12 2 0" "every kind: 2 threads, 12 entries, 2 arrows, no error"
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
	tids=$(grep '"ph":"[XI]"' c.json | sed 's/.*"tid":\([0-9]*\).*/\1/' |
	    sort -u | wc -l | tr -d ' ')
	entries=$(grep -c '"ph":"[XI]"' c.json)
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
# The event formats' real traces: every thread that has an event, and
# every slice and instant written, on the engine's threads.
for fmt in dial9 wtf; do
	c=$(corpus $fmt)
	if [ -z "$c" ]; then
		skip "no ../shared corpus" "$fmt events in the trace engine"
		continue
	fi
	for f in "$c"/*.trc* "$c"/*.wtf-trace; do
		[ -f "$f" ] || continue
		${fmt}2txt "$f" > ev.txt 2> /dev/null || continue
		txt2chrome ev.txt > ev.json
		model ev.json > ev.model 2> ev.err
		tids=$(grep '"ph":"[XI]"' ev.json | sed 's/.*"pid":\([0-9]*\),"tid":\([0-9]*\).*/\1 \2/' |
		    sort -u | wc -l | tr -d ' ')
		entries=$(grep -c '"ph":"[XI]"' ev.json)
		set -- $(head -1 ev.model)
		is "$1 $2 $4" "$tids $entries 0" "$fmt $(basename "$f"): $tids threads, $entries entries, no error"
	done
done
done_testing
