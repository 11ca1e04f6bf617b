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
gen() {	# SEED RECORDS THREADS
	awk -v seed="$1" -v n="$2" -v tids="$3" 'BEGIN {
		srand(seed); ts = 1773850000000000000
		print "hdr src=" seed
		for (i = 0; i < n; i++) {
			ts += int(rand() * 3)
			printf "ev ts=%d tid=%d seq=%d src=%d\n", ts, int(rand() * tids), i, seed
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

# Two event traces merged encode into one valid trace with all events in
# time order (dial9, WTF), once those formats exist.
for fmt in dial9 wtf; do
	c=$(corpus $fmt)
	if ! command -v ${fmt}2txt > /dev/null 2>&1 || ! command -v txt2$fmt > /dev/null 2>&1; then
		skip "${fmt}2txt and txt2$fmt do not exist yet" "$fmt: two traces merged encode"
		continue
	fi
	if [ -z "$c" ]; then
		skip "no ../shared corpus" "$fmt: two traces merged encode"
		continue
	fi
	set --
	for f in "$c"/*; do
		${fmt}2txt "$f" > "in$#.txt" 2>/dev/null && set -- "$@" "in$#.txt"
		[ $# -eq 2 ] && break
	done
	# Known gaps, TODO (XFAIL) until fixed: the real dial9 traces are
	# not sorted by ts themselves, and txt2wtf refuses the second input's
	# wtf-header in the merged stream.
	todo() {	# STATUS NAME
		tap_n=$((tap_n + 1))
		if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"
		else echo "not ok $tap_n - $2 # TODO merged $fmt streams (see the comment)"; fi
	}
	txtmerge -q "$@" | txt2$fmt > merged.bin && ${fmt}2txt merged.bin > merged.txt
	todo $? "$fmt: two traces merged encode with txt2$fmt and decode"
	[ "$(grep -c '^event ' merged.txt)" = "$(cat "$@" | grep -c '^event ')" ]
	todo $? "$fmt: the merged trace holds every event"
	grep '^event ' merged.txt | sed 's/.* ts=\([0-9]*\).*/\1/' > ts.got
	sort -n ts.got | cmp -s - ts.got
	todo $? "$fmt: its events in time order"
done
done_testing
