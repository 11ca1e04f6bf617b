#!/bin/sh
# dial92txt golden tests: the text of the generated every-kind trace and
# of the 28 edge vectors, each checked by hand against the reference
# (../shared/corpus/dial9/edge/EXPECTED.md gives every vector's bytes),
# and the record counts of the 8 real traces against SOURCES.md.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/dial9
C=$(corpus dial9)

gen-dial9 --kinds > kinds.bin
dial92txt kinds.bin > kinds.txt
ok $? "the every-kind trace decodes"
head -n -1 kinds.txt > kinds.head
same_file kinds.head "$D/kinds.txt" "every field type, optional, pool, reset and odd name as checked by hand"
# The last record is a 3 MiB string (a frame three times the window).
last=$(tail -n 1 kinds.txt)
is "$(printf %s "$last" | cut -c1-60)" 'event name=Big ts=0 blob="abcdefghijklmnopqrstuvwxyzabcdefgh' "a 3 MiB frame decodes"
is "$(printf %s "$last" | wc -c)" $((27 + 3 * 1048576)) "all of its string is there"

if [ -n "$C" ]; then
	for f in "$C"/edge/*.trc; do
		b=${f##*/}
		(cd "$C/edge" && dial92txt "$b" > "$TMP/o" 2> "$TMP/e"; echo "== ${b%.trc} exit=$?" > "$TMP/h")
		cat h o
		sed 's/^/! /' e
	done > edge.out
	same_file edge.out "$D/edge.out" "28 edge vectors: text, diagnostics and exit status as documented"
	# Counts from SOURCES.md: headers schema event strings stacks reset annot back.
	while read -r name want; do
		f=$C/$name.trc
		[ -f "$f" ] || f=$f.gz
		got=$(dial92txt "$f" | awk '
		    $1 == "dial9-header" { h++; base = 0 }
		    $1 == "dial9-schema" { s++ }
		    $1 == "event" { e++; for (i = 2; i <= NF; i++) if ($i ~ /^ts=/) { base = substr($i, 4) } }
		    $1 == "dial9-strings" { p++ }
		    $1 == "dial9-stacks" { k++ }
		    $1 == "dial9-reset" { r++; t = substr($2, 4); if (length(t) < length(base) || (length(t) == length(base) && t < base)) b++; base = t }
		    $1 == "dial9-annotations" { a++ }
		    END { printf "%d,%d,%d,%d,%d,%d,%d,%d", h, s, e, p, k, r, a, b }')
		is "$got" "$want" "$name: headers, schemas, events, pools, resets, annotations, backwards resets"
	done <<'TABLE'
v1-seedera-2026-03-18 1,10,4625,8,0,49,0,27
v1-seedera-symbols-2026-03-19 1,10,135413,9,0,3252,0,3108
multisegment-2026-03-28 6,11,19255,858,0,1061,0,1047
optional-fields-2026-04-16 18,39,73976,542,0,250,0,219
stackpool-2026-05-08 14,86,127149,9971,374,1128,0,1078
upstream-head-2026-05-15 14,94,210639,10509,293,7678,0,6358
annotations-2026-07 22,209,516950,29354,2620,16123,6,15576
block-in-place-small 10,37,909,116,183,219,0,118
TABLE
else
	skip "no ../shared/corpus/dial9" "edge vectors"
	skip "no ../shared/corpus/dial9" "real trace counts"
fi

# tid= is the worker: every event with an integer worker_id= has a tid= of
# the same value (and no other event has one), so txtfilter --tid N
# selects worker N's events; the OS thread's field tid is .746964=.
gen-dial9 --events 20000 --seed 3 > tid.bin
for f in tid.bin ${C:+"$C/annotations-2026-07.trc.gz"}; do
	dial92txt "$f" | grep '^event' > tid.txt
	bad=$(awk '{ w = "-"; t = "-"
	    for (i = 2; i <= NF; i++) {
		if ($i ~ /^worker_id=[0-9]/) w = substr($i, 11)
		if ($i ~ /^tid=/) t = substr($i, 5)
	    }
	    if (w != t) n++ } END { print n + 0 }' tid.txt)
	is "$bad" 0 "${f##*/}: tid= is worker_id= on every event, and only there"
	is "$(txtfilter --tid 1 tid.txt | wc -l)" "$(grep -cE ' worker_id=1( |$)' tid.txt)" \
	    "${f##*/}: txtfilter --tid 1 selects worker 1's events"
	grep -q ' \.746964=[0-9]' tid.txt
	ok $? "${f##*/}: the OS thread ids are there as .746964="
done
done_testing
