#!/bin/sh
# Events of other formats and of merged traces through txt2wtf, compared
# record by record with an independent decode: dial92txt's events against
# wtf2txt's reading of the WTF trace and against WTF's own loader (npm
# tracing-framework), every event with its name, its time to the us, its
# zone (the dial9 worker's "tid N", or a zone named for the event when it
# has no thread) and every field with its kind; merges of WTF traces with
# input= (txtmerge --tag) read by the loader with every zone's events as
# in its input.  The comparisons are node scripts (skipped without node).
. "$srcdir/tests/tap.sh"

if ! command -v node >/dev/null; then
	skip "node is needed" "events compared record by record"
	done_testing
fi

cat > cmp.js <<'EOJ'
// Record-by-record comparison of events across formats (wtf-cross.sh).
var fs = require('fs');
function unhex(h) { return parseInt(h, 16); }
// A text value (trace-text(5)) as {k: kind, v: value}.
function parseValue(s, i, stop) {
  var c = s[i];
  if (c === '"') {
    var bytes = [];
    for (i++; s[i] !== '"'; i++) {
      if (s[i] === '\\') {
        i++;
        var e = s[i];
        if (e === 'x') { bytes.push(unhex(s.substr(i + 1, 2))); i += 2; }
        else bytes.push({n: 10, r: 13, t: 9}[e] || e.charCodeAt(0));
      } else {
        var b = Buffer.from(s[i], 'utf8');
        for (var j = 0; j < b.length; j++) bytes.push(b[j]);
      }
    }
    return [{k: 's', v: Buffer.from(bytes).toString('utf8')}, i + 1];
  }
  if (c === '[' || c === '{') {
    var map = c === '{', items = [], obj = {};
    i++;
    while (s[i] !== (map ? '}' : ']')) {
      var key;
      if (map) {
        if (s[i] === '"') { var kr = parseValue(s, i); key = kr[0].v; i = kr[1]; }
        else { var k0 = i; while (s[i] !== ':') i++; key = s.slice(k0, i); }
        i++;
      }
      var r = parseValue(s, i, map ? ',}' : ',]');
      if (map) obj[key] = r[0]; else items.push(r[0]);
      i = r[1];
      if (s[i] === ',') i++;
    }
    return [map ? {k: 'm', v: obj} : {k: 'l', v: items}, i + 1];
  }
  var st = i;
  while (i < s.length && s[i] !== ' ' && (!stop || stop.indexOf(s[i]) < 0)) i++;
  var w = s.slice(st, i);
  if (w === 'null') return [{k: 'n', v: null}, i];
  if (w === 'true' || w === 'false') return [{k: 'b', v: w === 'true'}, i];
  if (/^-?[0-9]+$/.test(w) || /^0x[0-9a-fA-F]+$/.test(w)) return [{k: 'i', v: BigInt(w)}, i];
  if (/^(-?inf|nan)$/.test(w) || /^nan:/.test(w) || /^-?[0-9.]+([eE][-+]?[0-9]+)?$/.test(w))
    return [{k: 'f', v: w === 'inf' ? Infinity : w === '-inf' ? -Infinity :
        /^nan/.test(w) ? NaN : Number(w)}, i];
  return [{k: 's', v: w}, i];
}
function parseLine(line) {
  var sp = line.indexOf(' '), rec = {kind: sp < 0 ? line : line.slice(0, sp), f: {}, keys: []};
  var i = sp < 0 ? line.length : sp + 1;
  while (i < line.length) {
    var eq = line.indexOf('=', i), key = line.slice(i, eq);
    var r = parseValue(line, eq + 1, null);
    rec.f[key] = r[0]; rec.keys.push(key);
    i = r[1] + 1;
  }
  return rec;
}
// The WTF argument name txt2wtf gives a text key (txt2wtf(1)).
function argName(k) {
  if (/^[A-Za-z0-9_]{1,64}$/.test(k)) return k;
  var m = /^arg\.(tid|ts|name|time|wire|scope)$/.exec(k);
  if (m) return m[1];
  if (/^\.([0-9a-f]{2})+$/.test(k)) {
    var n = Buffer.from(k.slice(1), 'hex').toString('latin1');
    if (/^[A-Za-z0-9_]{1,64}$/.test(n)) return n;
  }
  return '_x' + Buffer.from(k, 'latin1').toString('hex');
}
var OWN = {name: 1, ts: 1, tid: 1, input: 1, time: 1, wire: 1, scope: 1};
// A typed value as a string; loose: numbers as JavaScript reads them.
function show(v, loose) {
  switch (v.k) {
  case 'i': return loose ? 'n:' + JSON.stringify(Number(v.v)) : 'i:' + v.v;
  case 'f': return (loose ? 'n:' : 'f:') + (isNaN(v.v) ? (loose ? 'null' : 'NaN') :
      !isFinite(v.v) ? (loose ? 'null' : String(v.v)) : Object.is(v.v, -0) && !loose ? '-0' : JSON.stringify(v.v));
  case 's': return 's:' + JSON.stringify(v.v);
  case 'b': return 'b:' + v.v;
  case 'n': return 'null';
  case 'l': return '[' + v.v.map(function(e) { return show(e, loose); }).join(',') + ']';
  case 'm': return '{' + Object.keys(v.v).sort().map(function(k) {
      return JSON.stringify(k) + ':' + show(v.v[k], loose); }).join(',') + '}';
  }
}
function fromJson(x) {
  if (x === null) return {k: 'n', v: null};
  if (typeof x === 'number') return {k: 'f', v: x};
  if (typeof x === 'boolean') return {k: 'b', v: x};
  if (typeof x === 'string') return {k: 's', v: x};
  if (Array.isArray(x)) return {k: 'l', v: x.map(fromJson)};
  var o = {};
  Object.keys(x).forEach(function(k) { o[k] = fromJson(x[k]); });
  return {k: 'm', v: o};
}
function lines(f) { return fs.readFileSync(f, 'utf8').split('\n').filter(function(l) { return l; }); }
// The events of a stream: zone, time in us from tb (ns), name, arguments.
function events(file, tbNs, loose, zoneOf) {
  var out = [];
  lines(file).forEach(function(l) {
    if (l.slice(0, 6) !== 'event ') return;
    var r = parseLine(l), name = r.f.name.v;
    if (/^wtf\.zone#/.test(name)) return;
    var ts = r.f.ts ? r.f.ts.v : null;
    var t = ts === null || ts < tbNs ? 0n : (ts - tbNs) / 1000n;
    var args = {};
    r.keys.forEach(function(k) { if (!OWN[k] && !/\.(pad|chars)$/.test(k)) args[argName(k)] = r.f[k]; });
    out.push(zoneOf(r) + '\t' + t + '\t' + name + '\t' + show({k: 'm', v: args}, loose));
  });
  return out;
}
function report(a, b, what) {
  a.sort(); b.sort();
  var bad = 0;
  for (var i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i] !== b[i]) {
      if (bad++ < 3) {
        var x = String(a[i]).split('\n'), y = String(b[i]).split('\n'), j = 0;
        while (j < x.length && x[j] === y[j]) j++;
        console.log('# ' + what + ' differ (line ' + j + '):\n#  ' + String(x[j]).slice(0, 300) + '\n#  ' + String(y[j]).slice(0, 300));
      }
    }
  console.log(bad ? 'DIFFER ' + bad : 'SAME ' + a.length);
}
// A timebase in milliseconds (a double) in nanoseconds, exactly.
function msToNs(ms) {
  var w = Math.floor(ms);
  return BigInt(w) * 1000000n + BigInt(Math.round((ms - w) * 1e6));
}
var mode = process.argv[2];
if (mode === 'text' || mode === 'loader') {
  // argv: ORIGINAL.txt (another format's events) and wtf2txt's text or
  // the loader's view; the timebase: the first ts of the WTF text, or the
  // loader's TB line.
  var orig = process.argv[3], got = process.argv[4], tb;
  var zoneName = function(r) {
    return (r.f.tid ? 'tid ' + r.f.tid.v : r.f.name.v) + (r.f.input && r.f.input.v > 0n ? ' (input ' + r.f.input.v + ')' : '');
  };
  if (mode === 'text') {
    var zones = {}, w = lines(got);
    var hdr = w.filter(function(l) { return /^wtf-part type=file_header/.test(l); })[0];
    tb = msToNs(JSON.parse(parseLine(hdr).f.json.v).timebase);
    w.forEach(function(l) {
      if (/^event .*name=wtf\.zone#create/.test(l)) { var r = parseLine(l); zones[r.f.zoneId.v] = r.f['arg.name'].v; }
    });
    report(events(orig, tb, false, zoneName),
        events(got, tb, false, function(r) { return zones[r.f.tid.v]; }), 'events');
  } else {
    var v = lines(got);
    tb = msToNs(Number(v[0].split('\t')[1]));
    var b = v.slice(1).map(function(l) {
      var c = l.split('\t');
      return c[0] + '\t' + c[1] + '\t' + c[2] + '\t' + show(fromJson(c[3] ? JSON.parse(c[3]) : {}), true);
    });
    report(events(orig, tb, true, zoneName), b, 'events');
  }
} else if (mode === 'zones') {
  // argv: MERGED.view INPUT.view...: every zone of the merged trace holds
  // the events of one zone of one input, in order, at the same times.
  var seqs = function(f) {
    var v = lines(f), tbus = Number(v[0].split('\t')[1]) * 1000, z = {};
    v.slice(1).forEach(function(l) {
      var c = l.split('\t');
      (z[c[0] + '#' + c[4]] = z[c[0] + '#' + c[4]] || []).push(Math.floor(tbus + Number(c[1]) + 1e-6) + ' ' + c[2].replace(/^invalid_[0-9]+$/, 'invalid') + ' ' + c[3]);
    });
    return Object.keys(z).map(function(k) { return z[k].join('\n'); });
  };
  var want = [];
  process.argv.slice(4).forEach(function(f) { want = want.concat(seqs(f)); });
  report(seqs(process.argv[3]), want, 'zones');
}
EOJ

cat > load.js <<'EOJ'
// WTF's loader: its timebase, then per zone (and the zone's index) the
// events: time in us, name, arguments as JSON.
var wtf = require(process.argv[2]);
var b = require('fs').readFileSync(process.argv[3]);
var u8 = new Uint8Array(b.length);
u8.set(b);
wtf.db.load(u8, function(db) {
  if (db instanceof Error) { console.log('ERROR ' + db); process.exit(1); }
  console.log('TB\t' + db.getTimebase());
  db.getZones().forEach(function(zone, zi) {
    for (var it = zone.getEventList().begin(); !it.done(); it.next()) {
      var a = it.getArguments();
      console.log(zone.getName() + '\t' + Math.round(it.getTime() * 1000) +
          '\t' + it.getName() + '\t' + (a ? JSON.stringify(a) : '') + '\t' + zi);
    }
  });
});
EOJ
M=
if command -v npm >/dev/null && npm install --prefix "$TMP/npm" --ignore-scripts \
    --omit=optional --no-audit --no-fund tracing-framework@2015.7.15-1 \
    >npm.log 2>&1; then
	M=$TMP/npm/node_modules/tracing-framework
fi
# view FILE: the loader's timebase and events (not its console warnings).
view() { node load.js "$M" "$1" 2>/dev/null | grep '	'; }

# cross NAME TEXT: TEXT (another format's events) through txt2wtf, read
# back by wtf2txt and by the loader: the same events, all of them.
cross() {
	n=$(grep -c '^event ' "$2")
	if ! txt2wtf -q "$2" > x.wtf; then
		ok 1 "$1: txt2wtf writes a trace"
		return
	fi
	wtf2txt x.wtf > x.txt
	is "$(node cmp.js text "$2" x.txt)" "SAME $n" \
	    "$1: wtf2txt reads the $n events back (name, time, zone, fields with their kinds)"
	if [ -n "$M" ]; then
		view x.wtf > x.view
		is "$(node cmp.js loader "$2" x.view)" "SAME $n" \
		    "$1: WTF's loader reads the $n events (name, time, zone, arguments)"
	else
		skip "npm install tracing-framework failed (offline?)" "$1: WTF's loader reads the events"
	fi
}

C=$(corpus dial9)
for f in annotations-2026-07.trc.gz block-in-place-small.trc.gz \
    multisegment-2026-03-28.trc.gz optional-fields-2026-04-16.trc \
    stackpool-2026-05-08.trc.gz upstream-head-2026-05-15.trc.gz \
    v1-seedera-2026-03-18.trc v1-seedera-symbols-2026-03-19.trc.gz; do
	if [ -z "$C" ]; then
		skip "no ../shared/corpus/dial9" "dial9 $f"
		continue
	fi
	dial92txt "$C/$f" > d.txt
	case $f in multisegment*)
		# Its SegmentMetadataEvent has a wall-clock time, 56 years
		# after the others: no WTF timebase holds both.
		txt2wtf d.txt > /dev/null 2> err.txt
		like "$? $(cat err.txt)" "1 txt2wtf: d.txt: the trace spans * s, from ts=1716576010023203 (line 12) to ts=1774629997592051768 (line 4): one WTF timebase holds 2^32 us*" \
		    "dial9 $f: refused, naming its first and last times"
		grep -v '^event name=SegmentMetadataEvent ts=1774629997592051768 ' d.txt > d2.txt
		mv d2.txt d.txt ;;
	esac
	cross "dial9 $f" d.txt
done

# Generated dial9 traces, alone and two merged with input= (their workers
# and zones apart: "tid N (input 1)").
gen-dial9 --events 4000 --seed 1 | dial92txt > g1.txt
gen-dial9 --events 4000 --seed 2 | dial92txt > g2.txt
cross "gen-dial9" g1.txt
txtmerge --tag --sort g1.txt g2.txt > gm.txt
cross "two gen-dial9 traces merged with --tag" gm.txt

# Merged WTF traces: with input= every zone of the result holds the events
# of one zone of one input, at the same times, with the same arguments.
zones() {	# NAME MERGED INPUT...
	name=$1 merged=$2
	shift 2
	if [ -z "$M" ]; then
		skip "npm install tracing-framework failed (offline?)" "$name"
		return
	fi
	txt2wtf -q "$merged" > m.wtf && view m.wtf > m.view
	i=0 nz=0
	for t in "$@"; do
		view "$t" > in$i.view
		nz=$((nz + $(grep -v '^TB' in$i.view | cut -f 5 | sort -u | wc -l)))
		i=$((i + 1))
	done
	is "$(node cmp.js zones m.view in*.view | tail -n 1)" "SAME $nz" "$name ($nz zones)"
	rm -f in*.view
}
gen-wtf --records 3000 --zones 4 --seed 1 > w1.wtf
gen-wtf --records 3000 --zones 4 --seed 2 > w2.wtf
gen-wtf --legacy --records 2000 --zones 3 --seed 3 > w3.wtf
wtf2txt w1.wtf > w1.txt
wtf2txt w2.wtf > w2.txt
wtf2txt w3.wtf > w3.txt
txtmerge --tag w1.txt w2.txt > wm.txt
zones "gen-wtf v10 seeds 1 and 2 merged with --tag: each zone as in its input" wm.txt w1.wtf w2.wtf
W=$(corpus wtf)
for f in v10-js-alltypes v10-js-multichunk v10-cpp-bindings; do
	if [ -z "$W" ]; then
		skip "no ../shared/corpus/wtf" "corpus $f merged with itself"
		continue
	fi
	wtf2txt "$W/$f.wtf-trace" > c.txt
	txtmerge --tag c.txt c.txt > cm.txt
	zones "corpus $f merged with itself (--tag): two copies of each zone, apart" cm.txt "$W/$f.wtf-trace" "$W/$f.wtf-trace"
done
if [ -n "$W" ]; then
	wtf2txt "$W/blk-client.wtf-trace" > bc.txt
	wtf2txt "$W/blk-server.wtf-trace" > bs.txt
	txtmerge --tag bc.txt bs.txt | txt2wtf > /dev/null 2> err.txt
	like "$? $(cat err.txt)" "1 txt2wtf: <stdin>: the trace spans 10900723 s, from ts=1356985119532585000 (line *) to ts=1367885842903413000 (line *): one WTF timebase holds 2^32 us*" \
	    "blk-client and blk-server, 126 days apart: refused, naming the span"
	txtmerge --sort bc.txt bs.txt | txt2wtf > /dev/null 2> err.txt
	like "$? $(cat err.txt)" "1 txt2wtf: <stdin>:*: field \"ts\": *us from the timebase ts=*: one WTF timebase holds 2^32 us*" \
	    "... merged without input=: refused at the first record out of reach, never dropped"
else
	skip "no ../shared/corpus/wtf" "blk-client and blk-server merged"
fi

# WTF events whose structure was filtered away (grep '^event'): every event
# is written, .pad= fields and all, with definitions from the values.
gen-wtf --quirks --records 3000 --seed 5 | wtf2txt | grep '^event' > ev.txt
txt2wtf -q ev.txt > ev.wtf
is "$(wtf2txt ev.wtf | grep '^event' | grep -vc 'name=wtf\.zone#')" "$(grep -vc 'name=wtf\.zone#' ev.txt)" \
    "WTF events without their definitions (.pad= fields and all): every one written"

# Values keep their kind: a type chosen from all the values of a field
# (null does not choose; "false" stays a string; 007 is the integer 7),
# floats that float32 holds exactly stay float32 (NaN, -0), others are
# JSON (a NaN there a string, counted), a field of several kinds any (its
# strings JSON text, counted), every any value valid JSON for the loader.
cat > k.txt <<'EOT'
event tid=1 ts=2000000 name=k s=null b=null f=1.5 d=0.1 i=1 w=7 x=007
event tid=1 ts=1000000 name=k s="false" b=true f=nan d=nan i=-5 w=+5 x="+5"
event tid=1 ts=3000000 name=k s="x" b=false f=-0.0 d=-inf i=4000000000 w=abc x=[1,"a",null,{k:2.5}]
event ts=1500000 name=q n=1
EOT
txt2wtf k.txt > k.wtf 2> err.txt
is "$? $(cat err.txt)" '0 txt2wtf: 2 records changed: a string in a field that holds other kinds too, stored as JSON text (wtf2txt gives that text) (first at line 2: field "w")
txt2wtf: 2 records changed: a NaN or infinity stored as a JSON string (JSON has no such number) (first at line 2: field "d")' \
    "NaN and infinities of a double field, strings among other kinds: counted"
wtf2txt k.wtf > k.back
is "$(grep '^event' k.back | grep -v zone#)" 'event tid=1 ts=2000000 time=1000 name=k s=null b=null f=1.5 d=0.1 i=1 w=7 x=7
event tid=1 ts=1000000 time=0 name=k s="false" b=true f=nan d="\"NaN\"" i=-5 w="\"+5\"" x="\"+5\""
event tid=1 ts=3000000 time=2000 name=k s="x" b=false f=-0.0 d="\"-Infinity\"" i=4000000000 w="\"abc\"" x=[1,"a",null,{k:2.5}]
event tid=2 ts=1500000 time=500 name=q n=1' \
    "values come back with their kinds; the earliest time is the timebase; no thread: a zone of its own"
is "$(grep '^wtf-define.*name=[kq] ' k.back | sed 's/.* name=//')" 'k args="utf8 s, any b, float32 f, any d, any i, any w, any x"
q args="int32 n"' "types: one per field from all its values"
if [ -n "$M" ]; then
	view k.wtf > k.view
	is "$(cut -f 1-4 k.view)" 'TB	1
tid 1	0	k	{"s":"false","b":true,"f":null,"d":"NaN","i":-5,"w":"+5","x":"+5"}
tid 1	1000	k	{"s":null,"b":null,"f":1.5,"d":0.1,"i":1,"w":7,"x":7}
tid 1	2000	k	{"s":"x","b":false,"f":0,"d":"-Infinity","i":4000000000,"w":"abc","x":[1,"a",null,{"k":2.5}]}
q	500	q	{"n":1}' "WTF's loader reads every value (any values are valid JSON)"
else
	skip "npm install tracing-framework failed (offline?)" "WTF's loader reads every value"
fi

# A string that is not UTF-8 (or holds a NUL): valid JSON for the loader,
# invalid bytes U+FFFD, counted once per record.
printf 'event tid=1 ts=5000 name=a s="ok\\xff" t="n\\x00l"\n' > u.txt
txt2wtf u.txt > u.wtf 2> err.txt
is "$? $(cat err.txt)" '0 txt2wtf: 1 record changed: a string that is not UTF-8 (or holds NUL) stored as JSON text, invalid bytes as U+FFFD (first at line 1: field "s")' \
    "strings that are not UTF-8: counted"
if [ -n "$M" ]; then
	is "$(view u.wtf | sed -n 2p | cut -f 4)" '{"s":"ok�","t":"n\u0000l"}' "... and read by WTF's loader"
else
	skip "npm install tracing-framework failed (offline?)" "... and read by WTF's loader"
fi

# One timebase holds 2^32 us: a trace just within is written, one past it
# refused with its first and last times; never wrapped.
printf 'event tid=1 ts=4294968295000 name=a\nevent tid=1 ts=1000000 name=a\n' > t.txt
txt2wtf t.txt > t.wtf 2> err.txt
is "$? $(cat err.txt) $(wtf2txt t.wtf | grep -c 'time=4294967295 name=a')" "0  1" "a span of 2^32-1 us fits"
printf 'event tid=1 ts=4294968296000 name=a\nevent tid=1 ts=1000000 name=a\n' > t.txt
txt2wtf --strict t.txt > /dev/null 2> err.txt
is "$? $(cat err.txt)" "1 txt2wtf: t.txt: the trace spans 4295 s, from ts=1000000 (line 2) to ts=4294968296000 (line 1): one WTF timebase holds 2^32 us (71.6 minutes); split it (txtfilter, tracesplit) or convert each input alone" \
    "a span of 2^32 us is refused, naming it"

# A chunked trace has its file header: txt2wtf writes one for a header
# alone, wtf2txt refuses a trace cut right after its 12 bytes.
printf 'wtf-header version=10\n' | txt2wtf > e.wtf
wtf2txt e.wtf > e.txt
is "$? $(sed -n 2p e.txt)" "0 wtf-chunk id=1 type=file_header start=4294967295 end=4294967295" \
    "a v10 header alone: a trace with its file-header chunk"
head -c 12 e.wtf | wtf2txt > /dev/null 2> err.txt
is "$? $(cat err.txt)" "1 wtf2txt: <stdin>: offset 0xc, chunk 0: cut after the header: a chunked trace has at least its file-header chunk" \
    "a v10 trace of its 12 header bytes alone is cut"
done_testing
