#!/bin/sh
# A dial9 trace cut into traces (dial9_split, formats/split.h): for every
# real trace of the corpus and generated ones, at several piece sizes,
# the event records of the pieces, decoded one by one and put end to end,
# are the event records of the whole, line for line (absolute ts, tid,
# every field; the structure records, which a piece restates, aside), and
# each piece round-trips byte for byte through dial92txt | txt2dial9.
# Upstream's decode.js (DIAL9_DECODE_JS, see dial9-consumer.sh) reads
# the pieces of two traces and sees the events of the whole.  A cut file:
# the pieces before the fault, then one line with its offset, exit 1.
. "$srcdir/tests/tap.sh"
C=$(corpus dial9)

FMT=dial9
. "$srcdir/tests/split-property.sh"

events() { grep '^event '; }

# The restated frames: every piece is a header first, and a piece cut in
# mid-segment starts its segment again with what its first event needs.
gen-dial9 --kinds > kinds.trc
for n in 1 2 3; do
	check "every-kind trace" kinds.trc -l $n
done
check "every-kind trace" kinds.trc -b 1
pieces -l 1 kinds.trc
p=$(sed -n 4p pieces.list)
dial92txt "$p" | cut -d' ' -f1 | tr '\n' ' ' > kinds4.kinds
is "$(cat kinds4.kinds)" "dial9-header dial9-strings dial9-schema dial9-stacks dial9-strings dial9-strings dial9-strings dial9-reset event " \
    "a piece cut after a pool entry was defined again restates the schema, the entries and the base its event uses"
n=0
while read -r p; do
	[ "$(head -c 4 "$p" | od -An -c | tr -d ' ')" = 'TRC\0' ] || n=$((n + 1))
done < pieces.list
is "$n" 0 "every piece starts with a header"

gen-dial9 --events 120000 --seed 5 > gen.trc
for n in 2 3 4 5 6 7; do
	check "generated" gen.trc -n $n
done
check "generated" gen.trc -b 300000
check "generated" gen.trc -l 7777

if [ -n "$C" ]; then
	for f in "$C"/*.trc "$C"/*.trc.gz; do
		# (gzip read as upstream stores them)
		check "${f##*/}" "$f" -n 3
		check "${f##*/}" "$f" -l 5000
	done
	check "v1-seedera-2026-03-18.trc" "$C"/v1-seedera-2026-03-18.trc -l 13
	check "v1-seedera-2026-03-18.trc" "$C"/v1-seedera-2026-03-18.trc -b 1000
	zcat "$C"/block-in-place-small.trc.gz > bip.trc
	check "block-in-place-small.trc.gz" bip.trc -l 1
else
	skip "no ../shared/corpus/dial9" "corpus traces cut into pieces"
fi

# Upstream's decoder on the pieces: the same events (names, timestamps,
# values with pooled strings and stacks resolved) as on the whole.
if [ -n "$C" ] && [ -n "${DIAL9_DECODE_JS:-}" ] && command -v node >/dev/null 2>&1; then
	cat > ev.js <<'JS'
const { TraceDecoder } = require(process.argv[2]);
const fs = require('fs');
for (const f of process.argv.slice(3)) {
  const b = fs.readFileSync(f);
  const d = new TraceDecoder(new Uint8Array(b.buffer, b.byteOffset, b.length));
  if (!d.decodeHeader()) { console.error('bad header ' + f); process.exit(1); }
  for (const fr of d.decodeAll())
    if (fr.type === 'event')
      console.log(fr.name + '|' + fr.timestamp_ns + '|' + JSON.stringify(fr.values,
          (_, v) => typeof v === 'bigint' ? v.toString() : v));
}
JS
	# (decode.js at 6342350f reads no 0x06 annotations: not those)
	for t in stackpool-2026-05-08.trc.gz multisegment-2026-03-28.trc.gz; do
		zcat "$C/$t" > up.trc
		pieces -n 4 up.trc
		node ev.js "$DIAL9_DECODE_JS" up.trc > up.whole 2> up.err &&
		    node ev.js "$DIAL9_DECODE_JS" $(cat pieces.list) > up.cat 2>> up.err
		ok $? "$t: decode.js reads the 4 pieces"
		[ -s up.whole ] && cmp -s up.whole up.cat
		ok $? "$t: decode.js sees the whole's events in the pieces ($(wc -l < up.whole | tr -d ' '))"
	done
else
	skip "needs the corpus, node and DIAL9_DECODE_JS (upstream decode.js)" \
	    "decode.js reads the pieces"
fi

one_piece gen.trc

# A cut file: the pieces before the fault are whole traces whose events
# begin the events before the fault; one line names its offset; exit 1.
gen-dial9 --events 20000 --seed 9 > full.trc
head -c 150001 full.trc > cut.trc
cut_trace "a cut trace" cut.trc

done_testing
