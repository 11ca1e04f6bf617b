#!/bin/sh
# txt2dial9 on what other formats and merges give it: every WTF event
# (corpus and generated, legacy and v10) comes back from dial92txt with
# its name, time, thread and every argument with its kind, whatever its
# name (id, name, a list of negative numbers); a value's inferred type is
# kept while later values fit; an untimed event stays untimed; dial9
# traces of two eras merged (plain, --tag, --renumber-tids) decode back
# record by record.
. "$srcdir/tests/tap.sh"
W=$(corpus wtf)
D=$(corpus dial9)

# One line per event, the same spelling from both sides: name, ts, tid,
# then every argument as name=value in order, the value's text as it
# was (its kind: integers bare, strings quoted, floats with a point,
# lists in brackets, maps in braces with their keys quoted).  From
# wtf2txt: WTF's own fields (time=, wire=, scope=, an argument's .pad=
# and .chars=) left out, arg.X is argument X, a null inside a list or
# map "" (dial9 holds none there: txt2dial9 writes an empty string and
# says so).  From dial92txt: worker_id= beside tid= is the tid, id= and
# raw= (which schema of a name, wire details) left out, .HEX
# keys are names, a dynamic list's {type:value} elements their values, a
# dynamic map's [{type:key},{type:value}] pairs key:value.
norm() {	# wtf|dial9 < text
	awk -v side="$1" "$TV_AWK"'
	function qkey(k) { return substr(k, 1, 1) == "\"" ? k : "\"" k "\"" }
	# a dynamic element {type:value,...}: its value
	function elem(e,   s, n) {
		s = substr(e, 2, length(e) - 2); n = tv_len(s, ",:")
		s = substr(s, n + 2); n = tv_len(s, ",")
		return canon(substr(s, 1, n), 1)
	}
	function canon(v, depth,   c, s, n, t, k, out, sep, pair) {
		c = substr(v, 1, 1)
		if (c != "[" && c != "{")
			return (side == "wtf" && depth > 0 && v == "null") ? "\"\"" : v
		s = substr(v, 2, length(v) - 2); out = ""; sep = ""; pair = 0
		if (side == "dial9" && c == "[" && substr(s, 1, 2) == "[{") pair = 1
		while (s != "") {
			n = tv_len(s, c == "{" ? ",:" : ","); t = substr(s, 1, n); s = substr(s, n + 2)
			if (c == "{") {
				n = tv_len(s, ","); k = t; t = substr(s, 1, n); s = substr(s, n + 2)
				out = out sep qkey(k) ":" canon(t, depth + 1)
			} else if (pair) {
				t = substr(t, 2, length(t) - 2); n = tv_len(t, ",")
				out = out sep qkey(elem(substr(t, 1, n))) ":" elem(substr(t, n + 2))
			} else if (side == "dial9" && substr(t, 1, 1) == "{")
				out = out sep elem(t)
			else
				out = out sep canon(t, depth + 1)
			sep = ","
		}
		return (c == "{" || pair) ? "{" out "}" : "[" out "]"
	}
	function unhex(h,   i, o) {
		o = ""
		for (i = 1; i < length(h); i += 2)
			o = o sprintf("%c", (index("0123456789abcdef", substr(h, i, 1)) - 1) * 16 + index("0123456789abcdef", substr(h, i + 1, 1)) - 1)
		return o
	}
	$1 != "event" { next }
	{
		s = substr($0, 7); name = ""; ts = "-"; tid = "-"; args = ""; hastid = ($0 ~ / tid=/)
		while (s != "") {
			sub(/^ +/, "", s)
			p = index(s, "="); k = substr(s, 1, p - 1); s = substr(s, p + 1)
			v = substr(s, 1, tv_len(s, " "))
			s = substr(s, length(v) + 1)
			if (k == "name") { name = v; continue }
			if (k == "ts") { ts = v; continue }
			if (k == "tid") { tid = v; continue }
			if (side == "wtf") {
				if (k == "time" || k == "wire" || k == "scope" || k ~ /\.(pad|chars)$/) continue
				sub(/^arg\./, "", k)
			} else {
				if ((k == "worker_id" && hastid) || k == "id" || k == "raw") continue
				if (k ~ /^\./) { split(substr(k, 2), part, "."); k = unhex(part[1]) }
			}
			args = args " " k "=" canon(v, 0)
		}
		print name " ts=" ts " tid=" tid " |" args
	}'
}

# Upstream's decoder, decode.js, where it can be had (DIAL9_DECODE_JS:
# see dial9-consumer.sh, which fetches it), reads the same events: xw.js
# prints wtf2txt's events and decode.js's as name|ts|thread|arg=kind:value.
have_js=
if command -v node > /dev/null 2>&1 && [ -f "${DIAL9_DECODE_JS:-}" ]; then
	have_js=1
	cat > xw.js <<'JS'
// wtf2txt's events (argv[2], text) or decode.js's (argv[3], a dial9 trace)
// as one line each: name|ts|tid|arg=kind:value;...
const fs = require('fs');
function unq(s) {	// a quoted string of the text stream, its bytes as UTF-8
	const b = [], cs = [...s.slice(1, -1)];
	for (let i = 0; i < cs.length; i++) {
		if (cs[i] !== '\\') { b.push(...Buffer.from(cs[i], 'utf8')); continue; }
		const c = cs[++i];
		if (c === 'n') b.push(10); else if (c === 'r') b.push(13);
		else if (c === 't') b.push(9);
		else if (c === 'x') { b.push(parseInt(cs[i + 1] + cs[i + 2], 16)); i += 2; }
		else b.push(c.charCodeAt(0));
	}
	return Buffer.from(b).toString('utf8');
}
function fnum(x) { return Object.is(x, -0) ? '-0' : String(x); }
function num(x) { return typeof x === 'bigint' || typeof x === 'string' ? BigInt(x).toString() : Number.isInteger(x) ? BigInt(x).toString() : String(x); }
function flt(x) {
	if (x.startsWith('nan')) return 'NaN';
	if (x === 'inf') return 'Infinity';
	if (x === '-inf') return '-Infinity';
	return Object.is(Number(x), -0) ? '-0' : String(Number(x));
}
// Lists and maps as decode.js can show them: it keeps no element types
// (varints are strings, maps lists of [key, value]) and dial9 has no null
// in a list (written as "", said as lost); so each element is compared as
// its text, a map as its pairs.
// Every loop is bounded by the line's end: a value cut short throws.
function parse(s, i, key) {	// a value (a map's key) at s[i]: [node, next index]
	const bad = (what) => { throw new Error(what + ' at column ' + (i + 1) + ': ' + s.slice(0, 80)); };
	if (i >= s.length) bad('a value expected');
	if (s[i] === '[' || s[i] === '{') {
		const map = s[i] === '{', close = map ? '}' : ']', items = [];
		i++;
		while (i < s.length && s[i] !== close) {
			let key, v;
			if (map) {
				[key, i] = parse(s, i, true);
				if (s[i] !== ':') bad('":" expected');
				i++;
			}
			[v, i] = parse(s, i);
			items.push(map ? [key, v] : v);
			if (s[i] === ',') i++;
			else if (s[i] !== close) bad('"," or "' + close + '" expected');
		}
		if (i >= s.length) bad('unclosed ' + (map ? 'map' : 'list'));
		return [{ k: map ? 'm' : 'l', v: items }, i + 1];
	}
	if (s[i] === '"') {
		let j = i + 1;
		while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
		if (j >= s.length) bad('unterminated string');
		return [{ k: 's', v: unq(s.slice(i, j + 1)) }, j + 1];
	}
	let j = i;
	// A float's NaN payload (nan:0x...) holds a ':', a map's key ends at one.
	while (j < s.length && !(key ? ',:]} ' : ',]} ').includes(s[j])) j++;
	if (j === i) bad('an empty value');
	return [{ k: 't', v: s.slice(i, j) }, j];
}
// A record's fields: [key, value text] each, read with parse(), so that
// a value with blanks inside quotes, lists or maps is one value.
function fields(s) {
	const out = [];
	let i = s.indexOf(' ');
	while (i >= 0 && i < s.length) {
		while (s[i] === ' ') i++;
		if (i >= s.length) break;
		const eq = s.indexOf('=', i);
		if (eq < 0) throw new Error('no "=" after column ' + (i + 1) + ': ' + s.slice(0, 80));
		const k = s.slice(i, eq);
		const [, end] = parse(s, eq + 1);
		out.push([k[0] === '"' ? unq(k) : k, s.slice(eq + 1, end)]);
		i = end;
	}
	return out;
}
function tnum(x) {	// a number's text as decode.js's String() gives it
	if (/^-?0x/.test(x)) return BigInt(x).toString();
	if (/[.e]|nan|inf/.test(x)) return flt(x);
	return BigInt(x).toString();
}
function loose(n) {
	if (n.k === 'l') return '[' + n.v.map(loose).join(',') + ']';
	if (n.k === 'm') return '[' + n.v.map(([a, b]) => '[' + JSON.stringify(a.v) + ',' + loose(b) + ']').join(',') + ']';
	if (n.k === 's') return JSON.stringify(n.v);
	if (n.v === 'true' || n.v === 'false') return n.v;
	if (n.v === 'null') return '""';
	if (/^-?(0x|[0-9]|nan|inf)/.test(n.v)) return JSON.stringify(tnum(n.v));
	return JSON.stringify(n.v);	// a bare string
}
function jloose(x) {	// the same of a value decode.js gives
	if (Array.isArray(x)) return '[' + x.map(jloose).join(',') + ']';
	if (typeof x === 'boolean') return String(x);
	if (typeof x === 'object' && x !== null) return '[' + Object.entries(x).map(([a, b]) => '[' + JSON.stringify(a) + ',' + jloose(b) + ']').join(',') + ']';
	if (typeof x === 'number') return JSON.stringify(fnum(x));
	return JSON.stringify(String(x));
}
function tval(v) {
	if (v === 'null') return 'null';
	if (v === 'true' || v === 'false') return 'b:' + v;
	if (v[0] === '"') return 's:' + JSON.stringify(unq(v));
	if (v[0] === '[' || v[0] === '{') return 'l:' + loose(parse(v, 0)[0]);
	if (/[.e]|nan|inf/.test(v)) return 'f:' + flt(v);
	return 'i:' + BigInt(v).toString();
}
if (process.argv[2] !== '-') {
	for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
		if (!line.startsWith('event ')) continue;
		let name = '', ts = '', tid = '', out = [];
		for (const [k, v] of fields(line)) {
			if (k === 'name') name = v[0] === '"' ? unq(v) : v;
			else if (k === 'ts') ts = v;
			else if (k === 'tid') tid = v;
			else if (['time', 'wire', 'scope'].includes(k) || /\.(pad|chars)$/.test(k)) continue;
			else out.push(k.replace(/^arg\./, '') + '=' + tval(v));
		}
		console.log(name + '|' + ts + '|' + tid + '|' + out.join(';'));
	}
} else {
	const { TraceDecoder } = require(process.env.DIAL9_DECODE_JS);
	const d = new TraceDecoder(fs.readFileSync(process.argv[3]));
	if (!d.decodeHeader()) process.exit(1);
	let f;
	while ((f = d.nextFrame()) !== null) {
		if (f.type !== 'event') continue;
		let tid = '', out = [];
		for (const fd of d.schemas.get(f.typeId).fields) {
			const v = f.values[fd.name], t = fd.fieldType & 0x7f;
			if (fd.name === 'worker_id') { tid = v === null ? '' : num(v); continue; }
			let s;
			if (v === null) s = 'null';
			else if (t === 3) s = 'b:' + v;
			else if (t === 4 || t === 7) s = 's:' + JSON.stringify(v);
			else if (Array.isArray(v) || typeof v === 'object') s = 'l:' + jloose(v);
			else if (t === 2) s = 'f:' + fnum(v);
			else s = 'i:' + num(v);
			out.push(fd.name + '=' + s);
		}
		console.log(f.name + '|' + (f.timestamp_ns ?? '') + '|' + tid + '|' + out.join(';'));
	}
}
JS
fi

# wtf2txt's events against txt2dial9's, read back by dial92txt (and by
# decode.js).
# A null inside an any value (a JSON object's member) is the one thing
# said as lost: LOST is that message.
cross() {	# WTF-FILE LABEL [LOST]
	wtf2txt "$1" > w.txt || { ok 1 "$2: wtf2txt"; return; }
	txt2dial9 w.txt > w.trc 2> w.err
	is "$?:$(cat w.err)" "0:${3:-}" "$2: encodes, ${3:+only the nulls in maps said, }nothing else skipped or lost"
	dial92txt w.trc > w.back
	norm wtf < w.txt > want.txt
	norm dial9 < w.back > got.txt
	same_file got.txt want.txt "$2: all $(wc -l < want.txt) events, name, time, thread, every argument and its kind"
	if [ -n "$have_js" ]; then
		node xw.js w.txt > a.txt && node xw.js - w.trc > b.txt
		ok $? "$2: decode.js reads it"
		same_file b.txt a.txt "$2: decode.js: the same $(wc -l < a.txt) events"
	else
		skip "no node or no DIAL9_DECODE_JS (see dial9-consumer.sh)" "$2: decode.js reads the same events"
	fi
}

if [ -n "$W" ]; then
	nulls='a null in a list or map, written as an empty string (a dial9 dynamic list or map holds no null)'
	for f in "$W"/*.wtf-trace; do
		case $f in
		*/blk-client.*) lost="txt2dial9: 2 records changed: $nulls (first at line 223: field \"props\")" ;;
		*/v10-js-alltypes.*) lost="txt2dial9: 1 record changed: $nulls (first at line 37: field \"x\")" ;;
		*) lost= ;;
		esac
		cross "$f" "${f##*/}" "$lost"
	done
else
	skip "no ../shared/corpus/wtf" "WTF corpus to dial9"
fi
for g in "" "--legacy" "--quirks" "--legacy --quirks"; do
	# shellcheck disable=SC2086
	gen-wtf $g --records 20000 --zones 4 --seed 7 > g.wtf || exit 99
	cross g.wtf "gen-wtf ${g:-(v10)}"
done

# Each kind by hand: an argument named id, name, ts, raw or tid is a
# field; a list of negative numbers or floats a list; NaN, -inf and -0.
cat > kinds.txt <<'TXT'
wtf-header version=10 build=1
event tid=1 ts=1000 time=0 name=a#b id=7 arg.name="n" arg.ts=3 raw=5 arg.tid=9 l=[-1,2] fl=[0.5,-2.25] e=[] f=nan g=-inf h=-0.0 s="x" z=null u=18446744073709551615 ok=true
TXT
txt2dial9 kinds.txt | dial92txt > kinds.back
is "$(grep '^event' kinds.back)" 'event name=a#b ts=1000 tid=1 worker_id=1 .6964=7 .6e616d65="n" .7473=3 .726177=5 .746964=9 l=[{i64:-1},{varint:2}] fl=[{f64:0.5},{f64:-2.25}] e=[] f=nan g=-inf h=-0.0 s="x" z=null u=18446744073709551615 ok=true' \
    "an argument of any name is a field, each value of its kind"
is "$(grep '^dial9-schema' kinds.back)" 'dial9-schema id=0 name=a#b ts=1 fields={worker_id:varint,id:varint,name:string,ts:varint,raw:varint,tid:varint,l:dyn-list,fl:dyn-list,e:stack,f:f64,g:f64,h:f64,s:string,z:opt-varint,u:varint,ok:bool}' \
    "...under a schema with the names and kinds of the arguments"

# A zone-less event (before any wtf.zone#set) gets no worker.
printf 'wtf-header version=10 build=1\nevent ts=5 time=0 name=wtf.zone#create zoneId=1 arg.name="Script"\nevent tid=1 ts=6 time=1 name=wtf.zone#create zoneId=2 arg.name="W"\n' |
    txt2dial9 | dial92txt | grep '^event' > zone.txt
is "$(cat zone.txt)" "$(printf 'event name=wtf.zone#create ts=5 zoneId=1 .6e616d65="Script"\nevent name=wtf.zone#create ts=6 tid=1 worker_id=1 zoneId=2 .6e616d65="W"')" \
    "an event without a thread stays without one"

# A WTF argument worker_id that is not the zone: the zone is the worker,
# and the lost value is said (and refused with --strict).
printf 'wtf-header version=10 build=1\nevent tid=1 ts=5 time=0 name=a worker_id=7\n' > wid.txt
txt2dial9 wid.txt 2> wid.err | dial92txt | grep '^event' > wid.out
is "$(cat wid.out):$(cat wid.err)" "event name=a ts=5 tid=1 worker_id=1:txt2dial9: 1 record changed: an argument worker_id other than the event's thread, replaced by the thread (first at line 2: worker_id=7, tid=1)" \
    "an argument worker_id other than the thread: counted as changed"
txt2dial9 --strict wid.txt > /dev/null 2>&1
is "$?" 1 "...and refused with --strict"
# A worker_id argument of another kind (WTF's any: a string) beside a
# zone: the worker field is an integer, the thread.
printf 'wtf-header version=10 build=1\nevent tid=2 ts=5 time=0 name=P worker_id="2" q="0"\nevent tid=3 ts=6 time=1 name=P worker_id="3" q="1"\n' |
    txt2dial9 -q | dial92txt > wids.txt
is "$?:$(grep -v '^dial9-header' wids.txt | tr '\n' '|')" '0:dial9-schema id=0 name=P ts=1 fields={worker_id:varint,q:string}|event name=P ts=5 tid=2 worker_id=2 q="0"|event name=P ts=6 tid=3 worker_id=3 q="1"|' \
    "a string worker_id beside a zone: the worker is the zone, one schema"

# Inference keeps a type while values fit: bytes 12 after ab stay bytes.
printf 'event name=B ts=1 b=ab\nevent name=B ts=2 b=12\n' | txt2dial9 | dial92txt > b.txt
is "$(grep -c '^dial9-schema' b.txt):$(grep '^event' b.txt | tr '\n' '|')" '1:event name=B ts=1 b=ab|event name=B ts=2 b=12|' \
    "bytes 12 after ab: still bytes, one schema"
# Values that alternate between kinds take the schemas made before.
printf 'event name=A x=1\nevent name=A x="s"\nevent name=A x=1\nevent name=A x="s"\nevent name=A x=2\n' | txt2dial9 | dial92txt > alt.txt
is "$(grep -c '^dial9-schema' alt.txt):$(grep '^event' alt.txt | sed 's/ id=[0-9]*//' | tr '\n' '|')" '2:event name=A x=1|event name=A x="s"|event name=A x=1|event name=A x="s"|event name=A x=2|' \
    "kinds that alternate: two schemas, not one per change"
# An untimed event stays untimed when its schema line is filtered away.
printf 'dial9-header version=1\ndial9-schema id=0 name=U ts=0 fields={a:varint}\nevent name=U a=1\n' |
    txt2dial9 | dial92txt > u1.txt
is "$(grep '^event' u1.txt)" "event name=U a=1" "an untimed event is written without ts="
grep -v '^dial9-schema' u1.txt | txt2dial9 | dial92txt > u2.txt
is "$(grep '^dial9-schema' u2.txt):$(grep '^event' u2.txt)" "dial9-schema id=0 name=U ts=0 fields={a:varint}:event name=U a=1" \
    "...and stays untimed without its schema line"

# Merges of two eras of dial9 traces.
if [ -n "$D" ]; then
	dial92txt "$D/v1-seedera-2026-03-18.trc" > a.txt
	dial92txt "$D/block-in-place-small.trc.gz" > b.txt
	# Event records without the wire details (which schema of a name,
	# which pool id), sorted: the multiset of events.
	evs() { grep '^event' | sed 's/ id=[0-9]*//; s/ raw={[^ ]*}$//' | LC_ALL=C sort; }
	cat a.txt b.txt | evs > want.txt
	txtmerge -q a.txt b.txt | txt2dial9 > m.trc
	is "$?" 0 "plain merge of two eras: encodes"
	dial92txt m.trc | evs > got.txt
	same_file got.txt want.txt "plain merge: every event of both with its own schema's fields ($(wc -l < want.txt))"
	txtmerge -q --sort a.txt b.txt | txt2dial9 | dial92txt | evs > got.txt
	same_file got.txt want.txt "sorted merge: the same"

	# --tag: one trace; each input's schemas, pools and workers apart.
	txtmerge -q --tag a.txt b.txt > t.txt
	txt2dial9 t.txt > t.trc 2> t.err
	is "$?:$(cat t.err)" "0:" "--tag merge: encodes"
	dial92txt t.trc | grep '^event' | sed 's/ id=[0-9]*//; s/ raw={[^ ]*}$//' > t.got
	grep '^event' t.txt | sed 's/ id=[0-9]*//; s/ raw={[^ ]*}$//' > t.want
	# Record by record: the same event but for its thread, and each
	# (input, thread) one output thread no other input has.
	paste -d '\n' t.want t.got | awk '
	function strip(l) { gsub(/ (tid|worker_id|input)=[0-9]+/, "", l); return l }
	function get(l, k,   m) { if (match(l, " " k "=[0-9]+")) return substr(l, RSTART + length(k) + 2, RLENGTH - length(k) - 2); return "" }
	NR % 2 == 1 { w = $0; next }
	{
		n++
		if (strip(w) != strip($0)) { print "differs: " w " | " $0; bad++; next }
		in_ = get(w, "input"); t = get(w, "tid"); o = get($0, "tid")
		if ((t == "") != (o == "")) { print "thread: " w " | " $0; bad++; next }
		if (t == "") next
		if (get($0, "worker_id") != o) { print "worker_id is not tid: " $0; bad++ }
		if ((in_ SUBSEP t) in map && map[in_, t] != o) { print "thread split: " w; bad++ }
		map[in_, t] = o
		if (o in owner && owner[o] != in_) { print "thread shared by inputs: " w; bad++ }
		owner[o] = in_
	}
	END { if (n == 0) bad++; print bad + 0 }' > t.check
	is "$(tail -n 1 t.check):$(wc -l < t.want)" "0:$(wc -l < t.got)" "--tag merge: every event back in order, threads of the inputs apart"

	# --renumber-tids: tid= is the truth over worker_id=; it tags the
	# records with input= too, which dial9 has no field for.
	txtmerge -q --renumber-tids a.txt b.txt > r.txt
	txt2dial9 r.txt | dial92txt | grep '^event' | sed 's/ id=[0-9]*//; s/ raw={[^ ]*}$//' > r.got
	grep '^event' r.txt | sed 's/ id=[0-9]*//; s/ raw={[^ ]*}$//; s/ input=[0-9]*//' |
	    sed 's/ tid=\([0-9]*\)\(.*\) worker_id=[0-9]*/ tid=\1\2 worker_id=\1/' > r.want
	same_file r.got r.want "--renumber-tids merge: each event's worker is its renumbered tid"
else
	skip "no ../shared/corpus/dial9" "merges of dial9 traces"
fi

# A WTF trace and a dial9 trace merged, plain and --tag: each event in
# the vocabulary of its own format (WTF's id= a field, dial9's its type id).
if [ -n "$W" ] && [ -n "$D" ]; then
	wtf2txt "$W/v10-js-alltypes.wtf-trace" > w1.txt
	norm wtf < w1.txt > want.txt
	grep '^event' a.txt | sed 's/ id=[0-9]*//; s/ raw={[^ ]*}$//' > want2.txt
	for m in "" "--tag"; do
		# shellcheck disable=SC2086
		txtmerge -q $m w1.txt a.txt | txt2dial9 | dial92txt > mix.txt
		grep '^event' mix.txt | grep 'name=\(wtf\.\|test#\)' | norm dial9 > got.txt
		same_file got.txt want.txt "WTF and dial9 merged ${m:-plain}: the WTF events as wtf2txt gave them"
		grep '^event' mix.txt | grep -v 'name=\(wtf\.\|test#\)' | sed 's/ id=[0-9]*//; s/ raw={[^ ]*}$//' |
		    sed 's/ tid=[0-9]* worker_id=[0-9]*//' > got2.txt
		sed 's/ tid=[0-9]* worker_id=[0-9]*//' want2.txt | cmp -s - got2.txt
		ok $? "WTF and dial9 merged ${m:-plain}: the dial9 events as they were"
	done
else
	skip "no ../shared/corpus/wtf or dial9" "a WTF and a dial9 trace merged"
fi
done_testing
