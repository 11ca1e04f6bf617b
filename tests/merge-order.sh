#!/bin/sh
# txtmerge: ts order with ties in input order, lines without ts in place,
# --tag, --renumber-tids, a million records against sort -m, memory that
# does not grow with the inputs, and merged event traces that encode.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/merge

txtmerge "$D/a.txt" "$D/b.txt" > ab.txt
same_file ab.txt "$D/ab.txt" "two small streams: the merge written by hand"
txtmerge --tag --renumber-tids "$D/a.txt" "$D/b.txt" > abt.txt
same_file abt.txt "$D/ab.tagged.txt" "--tag --renumber-tids: the merge written by hand"
# Renumbered inputs are tagged too: the encoders keep the inputs' other
# id spaces (workers, zones, schema ids) apart by input=.
txtmerge --renumber-tids "$D/a.txt" "$D/b.txt" > abr.txt
same_file abr.txt "$D/ab.tagged.txt" "--renumber-tids alone tags every record with input=N, as --tag does"
txtmerge --sort --renumber-tids --run-size 20 "$D/a.txt" "$D/b.txt" > abrs.txt
same_file abrs.txt "$D/ab.tagged.txt" "--sort --renumber-tids, a run a record: tagged the same"
cat "$D/a.txt" | txtmerge - "$D/b.txt" > ab2.txt
same_file ab2.txt "$D/ab.txt" "- is standard input"
gzip -c "$D/b.txt" > b.txt.gz
txtmerge "$D/a.txt" b.txt.gz > ab3.txt
same_file ab3.txt "$D/ab.txt" "gzip input"
txtmerge "$D/a.txt" > a.txt
same_file a.txt "$D/a.txt" "one input comes out as it went in"

# Streams without time (RapidBin, x64dbg) are concatenated.
rapidbin2txt "$srcdir/tests/data/rapidbin/allops.bin" > r1.txt
gen-rapidbin --events 500 --seed 3 | rapidbin2txt > r2.txt
txtmerge r1.txt r2.txt > r12.txt
cat r1.txt r2.txt > r12.want
same_file r12.txt r12.want "streams without ts: one after the other"

# Three streams of 400,000 records, with ties and comments, against an
# independent merge: sort -m -s on ts (the lines without ts left out).
gen() {	# SEED RECORDS THREADS [LATE: ts up to LATE ns early]
	# %.0f: mawk's %d stops at 2^31 - 1; these ts stay below 2^53.
	awk -v seed="$1" -v n="$2" -v tids="$3" -v late="${4:-0}" 'BEGIN {
		srand(seed); ts = 1773850000000000
		print "hdr src=" seed
		for (i = 0; i < n; i++) {
			ts += int(rand() * 3)
			printf "ev ts=%.0f tid=%d seq=%d src=%d\n", late ? ts - int(rand() * late) : ts, int(rand() * tids), i, seed
			if (i % 99991 == 7) print "# mark " seed " " i
		}
	}'
}
gen 1 400000 4 > s1.txt
gen 2 400000 4 > s2.txt
gen 3 400000 8 > s3.txt
txtmerge s1.txt s2.txt s3.txt > m.txt
is "$(wc -l < m.txt | tr -d ' ')" "$(cat s1.txt s2.txt s3.txt | wc -l | tr -d ' ')" "1.2 M records: every line written once"
for f in s1 s2 s3; do grep '^ev' $f.txt > $f.ev; done
LC_ALL=C sort -m -s -t= -k2,2n s1.ev s2.ev s3.ev > want.ev
grep '^ev' m.txt > got.ev
same_file got.ev want.ev "1.2 M records: the order of sort -m -s (ties in input order)"
# A line without ts comes right after the record it followed in its input.
awk '/^# mark/ { if (prev !~ (" seq=" $4 " src=" $3 "$")) bad++; n++ }
	{ prev = $0 } END { print n + 0, bad + 0 }' m.txt > marks
is "$(cat marks)" "15 0" "each comment right after the record of its input it followed"
txtmerge --tag s1.txt s2.txt s3.txt > mt.txt
for s in 1 2 3; do
	grep " input=$((s - 1))\$" mt.txt | sed 's/ input=[0-9]*$//' > own.txt
	grep -v '^#' s$s.txt > own.want
	same_file own.txt own.want "--tag: input $((s - 1)) keeps its own order"
done
txtmerge --renumber-tids --tag s1.txt s2.txt s3.txt |
    awk '/^ev/ { split($3, t, "="); split($6, i, "=");
	if ((t[2] in owner) && owner[t[2]] != i[2]) bad++; owner[t[2]] = i[2] }
	END { print bad + 0 }' > shared
is "$(cat shared)" 0 "--renumber-tids: no tid is used by two inputs"

# Memory does not grow with the inputs.
if grep -q __asan_init "$(command -v txtmerge)" 2>/dev/null; then
	skip "built with AddressSanitizer" "memory bound"
elif [ -x /usr/bin/time ] && /usr/bin/time -f %M true 2> /dev/null; then
	for s in 1 2 3; do head -n 40000 s$s.txt > h$s.txt; done
	/usr/bin/time -f %M -o small.kb txtmerge h1.txt h2.txt h3.txt > /dev/null
	/usr/bin/time -f %M -o big.kb txtmerge s1.txt s2.txt s3.txt > /dev/null
	small=$(tail -1 small.kb) big=$(tail -1 big.kb)
	[ "$big" -lt $((small + 512)) ]
	ok $? "peak memory: ${small} KB for 3 x 40,000 records, ${big} KB for 3 x 400,000"
else
	skip "no GNU time" "memory bound"
fi

# --sort: three unsorted streams of 400,000 records (each ts up to 1 us
# early), cut into runs of 1 MB, against sort -s (ties in input order).
gen 1 400000 4 1000 > u1.txt
gen 2 400000 4 1000 > u2.txt
gen 3 400000 8 1000 > u3.txt
txtmerge --sort --run-size 1000000 u1.txt u2.txt u3.txt > us.txt 2> us.err
is "$(wc -l < us.txt | tr -d ' '):$(cat us.err)" "$(cat u1.txt u2.txt u3.txt | wc -l | tr -d ' '):" \
    "--sort, 1.2 M unsorted records: every line written once, quietly"
cat u1.txt u2.txt u3.txt | grep '^ev' | LC_ALL=C sort -s -t= -k2,2n > uwant.ev
grep '^ev' us.txt > ugot.ev
same_file ugot.ev uwant.ev "--sort, 48 runs: the order of sort -s (ties in input order)"
# A line without ts goes with the record after it (definitions before use).
awk '/^# mark/ { want = " seq=" $4 + 1 " src=" $3 "$"; n++; next }
	want != "" { if ($0 !~ want) bad++; want = "" } END { print n + 0, bad + 0 }' us.txt > marks
is "$(cat marks)" "15 0" "--sort: each comment right before the record of its input it preceded"
txtmerge --sort u1.txt u2.txt u3.txt | cmp -s - us.txt
ok $? "--sort in one run per input: the same merge"
# Runs of 2 KB: some 8,000 an input, merged 16 at a time into longer
# ones (txtmerge(1)), so 128 open files are enough; the same merge as in
# one run, lines after the last record right after it.
{ cat u1.txt; echo "# after the last record"; } > u1t.txt
(ulimit -n 128 && txtmerge --sort --run-size 2000 u1t.txt u2.txt) > small.txt 2> small.err
txtmerge --sort u1t.txt u2.txt > one.txt
same_file small.txt one.txt "--sort, 16,000 runs of 2 KB, 128 files open at most: the merge of one run an input"
is "$(cat small.err)" "" "--sort, 16,000 runs: quietly"
is "$(grep -B1 '^# after the last record$' small.txt | sed 's/.* seq=//')" "399999 src=1
# after the last record" "--sort: the lines after an input's last record right after it"
# Memory: one run and a read buffer per run (txtmerge(1)), far below
# the 48 MB sorted.
if grep -q __asan_init "$(command -v txtmerge)" 2>/dev/null; then
	skip "built with AddressSanitizer" "--sort: memory bound"
elif [ -x /usr/bin/time ] && /usr/bin/time -f %M true 2> /dev/null; then
	/usr/bin/time -f %M -o sort.kb txtmerge --sort --run-size 4000000 u1.txt u2.txt u3.txt > /dev/null
	kb=$(tail -1 sort.kb)
	[ "$kb" -lt 24000 ]
	ok $? "--sort peak memory: $kb KB for 48 MB of text in 4 MB runs"
else
	skip "no GNU time" "--sort: memory bound"
fi

# Two event traces merged encode into one valid trace with all events in
# time order.  Real dial9 and WTF traces are not sorted by ts (dial9's
# threads write their buffers in batches; WTF's definitions and zones
# sit before older events), hence --sort.
# EVENTS FILE: the events, without what the merge may change: WTF's
# time= (microseconds from another timebase, so ts moves by less than
# 1 us), the zones (tid, and the zone records txt2wtf adds for tids
# renumbered) and the scope numbers wtf2txt counts in file order; the ts
# order is checked on its own.
events() {
	grep '^event ' "$@" | grep -v ' name=wtf\.zone#' |
	    sed 's/ time=[0-9]*//; s/ tid=[0-9]*//; s/ ts=[0-9]*//; s/ scope=[0-9]*//' |
	    LC_ALL=C sort
}
in_order() {
	grep '^event ' "$1" | sed 's/.* ts=\([0-9]*\).*/\1/' > ts.got
	sort -n ts.got | cmp -s - ts.got
}
keep() { cat; }
untag() { sed 's/ input=[0-9]*$//'; }
merged() {	# FMT OPTIONS NAME INPUT...
	fmt=$1 opts=$2 name=$3
	shift 3
	# --renumber-tids tags input=N; until txt2wtf keeps the inputs'
	# definitions apart by it (it refuses the field on a wtf-define
	# today) the field is taken out again for it, said in the log.
	strip=keep
	if [ "$fmt" = wtf ] && ! txtmerge --tag "$1" | txt2wtf --strict > /dev/null 2>&1; then
		echo "# txt2wtf does not read input= yet: taken out before it"
		strip=untag
	fi
	txtmerge $opts "$@" | $strip | txt2$fmt > merged.bin 2> enc.err && ${fmt}2txt merged.bin > merged.txt
	ok $? "$fmt, $name: merged, encoded with txt2$fmt, decoded"
	events merged.txt > got.ev
	cat "$@" | events > want.ev
	same_file got.ev want.ev "$fmt, $name: every event in the merged trace"
	in_order merged.txt
	ok $? "$fmt, $name: in time order"
}
c=$(corpus dial9)
if [ -n "$c" ]; then
	dial92txt "$c/annotations-2026-07.trc.gz" > d1.txt
	dial92txt "$c/block-in-place-small.trc.gz" > d2.txt
	merged dial9 --sort "two real traces" d1.txt d2.txt
	grep '^event ' merged.txt | LC_ALL=C sort > got.ev
	cat d1.txt d2.txt | grep '^event ' | LC_ALL=C sort > want.ev
	same_file got.ev want.ev "dial9: the events' text as it was, ts and tid too"
else
	for t in 1 2 3 4; do skip "no ../shared corpus" "dial9: two traces merged"; done
fi
c=$(corpus wtf)
if [ -n "$c" ]; then
	wtf2txt "$c/v10-js-alltypes.wtf-trace" > w1.txt
	wtf2txt "$c/v10-js-multichunk.wtf-trace" > w2.txt
	merged wtf "--sort --renumber-tids" "two chunked traces" w1.txt w2.txt
	wtf2txt "$c/blk-server.wtf-trace" > w3.txt
	merged wtf "--sort --renumber-tids" "a legacy trace twice" w3.txt w3.txt
	# Merged without input= the two are one stream: their equal zone
	# ids and event names fuse, said once at the second header (line 75
	# of the sorted merge, as grep finds it; the trace has one).
	txtmerge --sort w3.txt w3.txt | txt2wtf > fused.bin 2> fused.err
	is "$?:$(cat fused.err):$(grep -n '^wtf-header' w3.txt | cut -d: -f1)" \
	    "0:txt2wtf: 1 record changed: traces merged without input= (txtmerge --tag): their zones of equal ids and events of equal names fused (first at line 75: a second wtf-header):1" \
	    "wtf: a plain merge of one trace twice: fused, said at the second header"
	wtf2txt "$c/blk-client.wtf-trace" > w4.txt
	# blk-server (2013-01-01) is 126 days before blk-client (2013-05-07):
	# a plain merge keeps the first header's timebase (blk-client's) and
	# stops at blk-server's first timed record (line 124, a wtf-define);
	# --tag rebuilds one trace, whose span (10900723 s) is named with
	# the lines of its first and last events.  Nothing is written wrapped.
	txtmerge w4.txt w3.txt 2> /dev/null | txt2wtf > far.bin 2> far.err
	is "$?:$(cat far.err)" '1:txt2wtf: <stdin>:124:15: field "ts": "1356985232045817000": -10900595339183 us from the timebase ts=1367885827385000000: one WTF timebase holds 2^32 us (71.6 minutes) after it (merged traces: txtmerge --tag rebuilds them as one trace when they fit)' \
	    "wtf: traces four months apart, plain merge: refused at the first record before the timebase"
	txtmerge --tag w4.txt w3.txt 2> /dev/null | txt2wtf > far.bin 2> far.err
	is "$?:$(cat far.err)" '1:txt2wtf: <stdin>: the trace spans 10900723 s, from ts=1356985119532585000 (line 246) to ts=1367885842903413000 (line 774017): one WTF timebase holds 2^32 us (71.6 minutes); split it (txtfilter, tracesplit) or convert each input alone' \
	    "wtf: traces four months apart, --tag: refused, naming the span"
else
	for t in 1 2 3 4 5 6 7 8 9; do skip "no ../shared corpus" "wtf: two traces merged"; done
fi
done_testing
