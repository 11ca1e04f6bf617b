#!/bin/sh
# txt2chrome's output read by speedscope's importer of Chrome traces
# (src/import/trace-event.ts of https://github.com/jlfwong/speedscope,
# bundled for node with esbuild): every slice that has a length, by
# thread, name, start, duration and depth, against the slices the text
# says (tests/data/chrome/slices.awk).  speedscope drops calls of no
# length (they weigh nothing) and joins back-to-back calls of one frame:
# the expected slices are joined the same way.  Set SPEEDSCOPE_SRC to a
# speedscope checkout; skipped without it, node or npm.
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/data/chrome/each-trace.sh"
D=$srcdir/tests/data/chrome

if [ -z "${SPEEDSCOPE_SRC:-}" ] || [ ! -f "$SPEEDSCOPE_SRC/src/import/trace-event.ts" ]; then
	skip "SPEEDSCOPE_SRC is not a speedscope checkout" "speedscope"
	done_testing
fi
if ! command -v node > /dev/null 2>&1 || ! command -v npm > /dev/null 2>&1; then
	skip "node and npm are not installed" "speedscope"
	done_testing
fi
if ! npm install --prefix "$TMP/npm" --no-audit --no-fund esbuild > npm.log 2>&1; then
	skip "npm could not install esbuild (offline?)" "speedscope"
	done_testing
fi
cp -R "$SPEEDSCOPE_SRC/src" "$TMP/npm/src"
cat > "$TMP/npm/entry.ts" <<'TS'
import {importTraceEvents} from './src/import/trace-event'
import * as fs from 'fs'
const warns: string[] = []
console.warn = (...a: any[]) => { warns.push(a.join(' ')) }
const raw = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
// speedscope starts each thread at 0: its first B, E or X.
const first = new Map<string, number>(), names = new Map<string, string>()
for (const e of raw.traceEvents) if (e.ph === 'M' && e.name === 'thread_name') names.set(e.pid + ' ' + e.tid, e.args.name.replace(/ /g, '_'))
for (const e of raw.traceEvents)
  if (e.ph === 'B' || e.ph === 'E' || e.ph === 'X') {
    const k = Number(e.pid) + ' ' + Number(e.tid)
    if (!first.has(k) || e.ts < first.get(k)!) first.set(k, e.ts)
  }
const g = importTraceEvents(raw)
const out: string[] = [], frames = new Set<string>()
for (const p of g.profiles) {
  const m = /pid (\d+)\)?, (?:.*\()?tid (\d+)/.exec(p.getName())
  if (!m) throw new Error('no pid and tid in ' + p.getName())
  const base = first.get(m[1] + ' ' + m[2])!
  // Tracks from 2^32 up (overlapping slices) by their names.
  const track = Number(m[2]) >= 4294967296 ? names.get(m[1] + ' ' + m[2]) : m[2]
  const stack: [string, number][] = []
  p.forEachCall((node, t) => { frames.add(node.frame.name); stack.push([node.frame.name, t]) },
    (node, t) => {
      const [n, s] = stack.pop()!
      // The frame is named by the event's name, then its args.
      const name = n.replace(/ \{.*\}$/, '').replace(/ /g, '_')
      out.push([m[1], track, name, (s + base).toFixed(3), (t - s).toFixed(3), stack.length].join(' '))
    })
}
fs.writeFileSync(process.argv[3], out.join('\n') + (out.length ? '\n' : ''))
fs.writeFileSync(process.argv[4], [...frames].join('\n') + '\n')
fs.writeFileSync(process.argv[5], g.profiles.map(p => p.getName()).join('\n') + '\n')
for (const w of warns) process.stderr.write(w + '\n')
TS
if ! "$TMP/npm/node_modules/.bin/esbuild" "$TMP/npm/entry.ts" --bundle \
    --platform=node --outfile="$TMP/npm/ss.js" --log-level=error > esb.log 2>&1; then
	skip "speedscope's importer does not build: $(head -1 esb.log)" "speedscope"
	done_testing
fi
join_calls() {
	sort -k1,1n -k2,2n -k3,3 -k6,6n -k4,4n | awk -f "$D/speedscope-join.awk" | sort
}
# check NAME TEXT: speedscope reads the text's slices, none left out.
check() {
	txt2chrome "$2" > s.json 2> s.err
	node "$TMP/npm/ss.js" "$PWD/s.json" s.got s.frames s.profiles 2> s.warn
	rc=$?
	slices_of "$2" | awk '$5 != "0.000"' | join_calls > s.want
	# (a call of no length speedscope makes where a slice ends at a
	# fraction of a us where the next starts: ts + dur in doubles)
	awk '$5 != "0.000"' s.got | join_calls > s.have
	n=$(wc -l < s.want | tr -d ' ')
	diff s.want s.have > s.diff
	# speedscope warns where slices of no length of one name share a
	# time (it matches ends by name there): told, not failed, as long
	# as every slice with a length comes out as the text says.
	is "$rc $(wc -l < s.diff | tr -d ' ')" "0 0" "$1: $n slices with their thread, name, start, duration and depth ($(wc -l < s.warn | tr -d ' ') warnings)"
	[ -s s.diff ] && head -4 s.diff | sed 's/^/# /'
	[ -s s.warn ] && head -2 s.warn | sed 's/^/# /'
	return 0
}

# Slices of no length where a longer one starts: they open and close in
# place (speedscope ended them before they began and kept the longer one
# open to the end); a scope's frame is its function (no scope id or raw
# time in the name).
cat > z.txt <<'T'
wtf-header version=10 build=1
event tid=1 ts=1000000 time=1000 name=a scope=1
event tid=1 ts=1000000 time=1000 name=b scope=2
event tid=1 ts=1000000 time=1000 name=wtf.scope#leave scope=2
event tid=1 ts=1000000 time=1000 name=c scope=3
event tid=1 ts=3000000 time=3000 name=wtf.scope#leave scope=3
event tid=1 ts=5000000 time=5000 name=wtf.scope#leave scope=1
event tid=1 ts=6000000 time=6000 name=a scope=4
event tid=1 ts=6000000 time=6000 name=a scope=5
event tid=1 ts=7000000 time=7000 name=wtf.scope#leave scope=5
event tid=1 ts=7000000 time=7000 name=wtf.scope#leave scope=4
event ts=8000000 name=TaskSpawnEvent task_id=3
event tid=2 ts=1000 name=PollStartEvent
event tid=2 ts=2000 name=WorkerParkEvent
event tid=2 ts=3000 name=PollEndEvent
event tid=2 ts=4000 name=WorkerUnparkEvent
T
check "slices of no length and shared starts" z.txt
is "$(grep -c '{' s.frames)" 0 "frame names are the scopes' functions"
is "$(cat s.got | sort | tr '\n' '|')" \
    "0 1 a 1000.000 4000.000 0|0 1 a 6000.000 1000.000 0|0 1 a 6000.000 1000.000 1|0 1 c 1000.000 2000.000 1|0 2 WorkerPark 2.000 2.000 0|0 2_overlap_1 Poll 1.000 2.000 0|" \
    "slice by slice (a poll that overlaps a park on a track of its own)"

each_trace "in speedscope" check
done_testing
