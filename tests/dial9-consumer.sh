#!/bin/sh
# txt2dial9's output read by upstream's own decoder, decode.js
# (dial9-trace-format/js/decode.js in github.com/dial9-rs/dial9-tokio-telemetry),
# through node: the same events (names, timestamps, every value) as
# dial92txt reads.  decode.js is not published on the npm registry
# (checked 2026-11-23; the repository's JavaScript packages are private),
# so the test gets it from upstream's public repository at a pinned
# commit, with git, into its scratch directory, and checks its blob id;
# DIAL9_DECODE_JS names a copy to use instead, DIAL9_GIT another clone
# URL of that repository.  decode.js at 6342350f knows no 0x06 annotation
# frames; the inputs here have none.  Skipped without node, or when the
# file cannot be had (git missing, no network).
. "$srcdir/tests/tap.sh"
C=$(corpus dial9)
name="upstream decode.js reads txt2dial9 output"

if ! command -v node >/dev/null 2>&1; then
	skip "node is not installed" "$name"
	done_testing
fi
rev=6342350f2befdfa2375d30f549daa82fe94e47d1
blob=22398fe570f34b2f20681c61ec688b5d2e9e08f2
path=dial9-trace-format/js/decode.js
# get_decode_js: $TMP/decode.js, or exit 1 (the reason in fetch.err).
get_decode_js() {
	if [ -n "${DIAL9_DECODE_JS:-}" ]; then
		cp "$DIAL9_DECODE_JS" decode.js 2> fetch.err
		return
	fi
	if ! command -v git >/dev/null 2>&1; then
		echo "git is not installed" > fetch.err
		return 1
	fi
	# A shallow fetch without blobs, then the one blob read on demand.
	git init -q up && git -C up remote add origin \
	    "${DIAL9_GIT:-https://github.com/dial9-rs/dial9-tokio-telemetry}" &&
	    GIT_TERMINAL_PROMPT=0 timeout 120 git -C up fetch -q --depth 1 \
	    --filter=blob:none origin "$rev" > fetch.err 2>&1 &&
	    [ "$(git -C up rev-parse "$rev:$path")" = "$blob" ] &&
	    GIT_TERMINAL_PROMPT=0 timeout 120 git -C up cat-file blob "$blob" \
	    > decode.js 2>> fetch.err
}
if ! get_decode_js; then
	skip "upstream's $path at $(echo "$rev" | cut -c1-8): $(tail -n 1 fetch.err)" "$name"
	done_testing
fi
DIAL9_DECODE_JS=$TMP/decode.js
export DIAL9_DECODE_JS

# Both sides as one line per event: name|ts|field=value;... with numbers
# in decimal, strings as JSON, lists of addresses as decimal lists.
cat > ours.js <<'JS'
const fs = require('fs');
function unq(s) {	// a quoted string of the text stream
	let o = '';
	for (let i = 1; i < s.length - 1; i++) {
		if (s[i] !== '\\') { o += s[i]; continue; }
		const c = s[++i];
		if (c === 'n') o += '\n'; else if (c === 'r') o += '\r';
		else if (c === 't') o += '\t';
		else if (c === 'x') { o += String.fromCharCode(parseInt(s.substr(i + 1, 2), 16)); i += 2; }
		else o += c;
	}
	return o;
}
function key(k) {	// ".HEX[.N]" stands for a name that is no plain key
	if (k[0] !== '.') return k;
	const h = k.slice(1).split('.')[0];
	return Buffer.from(h, 'hex').toString('latin1');
}
function val(v) {
	if (v === 'null') return 'null';
	if (v === 'true' || v === 'false') return v;
	if (v[0] === '"') return JSON.stringify(unq(v));
	if (v[0] === '[') return '[' + v.slice(1, -1).split(',').filter(x => x).map(x => BigInt(x).toString()).join(',') + ']';
	if (v[0] === '{') {
		const o = {};
		for (const m of v.slice(1, -1).matchAll(/("(?:[^"\\]|\\.)*"|[^:,]+):("(?:[^"\\]|\\.)*")/g))
			o[m[1][0] === '"' ? unq(m[1]) : m[1]] = unq(m[2]);
		return JSON.stringify(o);
	}
	if (/[.e]|nan|inf/.test(v)) return String(Number(v));
	return BigInt(v).toString();
}
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
	if (!line.startsWith('event ')) continue;
	const f = [...line.matchAll(/ ([A-Za-z0-9_.-]+)=("(?:[^"\\]|\\.)*"|\[[^\]]*\]|\{[^}]*\}|\S+)/g)];
	let name = '', ts = '', out = [], skipTid = !line.match(/ worker_id=/) ? false : true;
	for (const [, k, v] of f) {
		if (k === 'name') name = v[0] === '"' ? unq(v) : v;
		else if (k === 'ts') ts = v;
		else if (k === 'tid' && skipTid && out.length === 0) continue;
		else out.push(key(k) + '=' + val(v));
	}
	console.log(name + '|' + ts + '|' + out.join(';'));
}
JS
cat > theirs.js <<'JS'
const { TraceDecoder } = require(process.env.DIAL9_DECODE_JS);
const buf = require('fs').readFileSync(process.argv[2]);
const d = new TraceDecoder(buf);
if (!d.decodeHeader()) { console.error('bad header'); process.exit(1); }
let f;
while ((f = d.nextFrame()) !== null) {
	if (f.type !== 'event') continue;
	const out = [];
	// Type ids belong to their segment: the schema in force now.
	for (const fd of d.schemas.get(f.typeId).fields) {
		const v = f.values[fd.name], t = fd.fieldType & 0x7f;
		let s;
		if (v === null) s = 'null';
		else if (typeof v === 'boolean') s = String(v);
		else if (Array.isArray(v)) s = '[' + v.map(x => BigInt(x).toString()).join(',') + ']';
		else if (t === 4 || t === 7) s = JSON.stringify(v);
		else if (typeof v === 'object') s = JSON.stringify(v);
		else if (typeof v === 'number' && !Number.isInteger(v)) s = String(v);
		else s = BigInt(v).toString();
		out.push(fd.name + '=' + s);
	}
	console.log(f.name + '|' + (f.timestamp_ns ?? '') + '|' + out.join(';'));
}
JS

compare() {	# BIN NAME
	dial92txt "$1" > ours.txt
	node ours.js ours.txt > a.txt 2> a.err
	node theirs.js "$1" > b.txt 2> b.err
	ok $? "$2: decode.js reads it"
	[ -s a.txt ] && same_file a.txt b.txt "$2: the same $(wc -l < a.txt) events"
}

# Schemas inferred by txt2dial9, no pools, canonical resets.
gen-dial9 --events 20000 --seed 13 > bulk.bin
dial92txt bulk.bin | grep '^event' | txt2dial9 > inferred.bin
compare inferred.bin "generated events, schemas inferred"
dial92txt bulk.bin | grep -v '^dial9-strings' | grep -v '^dial9-stacks' | txt2dial9 > pooled.bin
compare pooled.bin "generated events, pools rebuilt"
printf 'event name=Hand ts=3 s="caf\\xc3\\xa9 \\"q\\"" n=18446744073709551615 b=true m={k:"v"} st=[0x1,0xffffffffffffffff]\n' | txt2dial9 > hand.bin
compare hand.bin "a hand-written event"
if [ -n "$C" ]; then
	dial92txt "$C/upstream-head-2026-05-15.trc.gz" | txt2dial9 > head.bin
	compare head.bin "upstream-head-2026-05-15 re-encoded"
	dial92txt "$C/upstream-head-2026-05-15.trc.gz" | grep '^event' | txt2dial9 > head-inferred.bin
	compare head-inferred.bin "upstream-head-2026-05-15, schemas inferred"
else
	skip "no ../shared/corpus/dial9" "real traces through decode.js"
fi
done_testing
