#!/bin/sh
# A WTF trace cut into traces (wtf_split, formats/split.h): for every
# trace of the corpus (legacy v3 and chunked v10) and generated ones, at
# several piece sizes, the event records of the pieces, decoded one by
# one and put end to end, are the event records of the whole, line for
# line (absolute ts, zone as tid, every argument), and each piece
# round-trips byte for byte through wtf2txt | txt2wtf.  Set aside on both
# sides: the definitions and zone records (wtf-define, wtf.zone#create,
# #set, #delete), which a piece restates, and scope=, the decoder's count
# of scopes in the trace it reads, which starts again in each piece.
# WTF's own reader (npm tracing-framework, as wtf-consumer.sh installs
# it) loads the pieces of three traces and sees the whole's events.  A
# cut file: the pieces before the fault, one line with its offset, exit 1.
. "$srcdir/tests/tap.sh"
C=$(corpus wtf)

FMT=wtf
. "$srcdir/tests/split-property.sh"

events() {
	grep '^event ' | grep -v ' name=wtf\.zone#\(create\|set\|delete\) ' |
	    sed 's/ scope=[0-9]*//'
}

gen-wtf --records 40000 --zones 3 --quirks --seed 2 > g10.wtf-trace
gen-wtf --legacy --records 40000 --zones 3 --quirks --seed 3 > g3.wtf-trace
gen-wtf --records 20000 --zones 2 --chunk 4096 --seed 4 > gsmall.wtf-trace
for n in 2 3 4 5 6 7; do
	check "generated v10" g10.wtf-trace -n $n
	check "generated legacy" g3.wtf-trace -n $n
done
check "generated v10" g10.wtf-trace -b 300000
check "generated legacy" g3.wtf-trace -b 300000
check "generated v10, 4 KiB chunks" gsmall.wtf-trace -l 1
check "generated v10, 4 KiB chunks" gsmall.wtf-trace -b 9000
check "generated legacy" g3.wtf-trace -l 1111

# The decoder reads the parts of any chunk, whatever its type, and takes
# the timebase of every file-header part in turn: a file-header chunk
# with events is one piece's payload (not the head of every piece), and
# a timebase set in an event chunk holds in the pieces after it.
wtf2txt gsmall.wtf-trace |
    awk '/^wtf-chunk id=40 / { sub(/type=event_data/, "type=file_header")
	print; print "wtf-part type=file_header json=\"{\\\"timebase\\\":975998.5}\""; next }
	/^wtf-chunk id=70 / { print
	print "wtf-part type=file_header json=\"{\\\"timebase\\\":975998.7}\""; next }
	{ print }' | txt2wtf > tb.wtf-trace
is "$(wtf2txt tb.wtf-trace | grep -c 'type=file_header json=')" 3 \
    "a trace with timebases in two later chunks, one of type file_header"
check "later timebases" tb.wtf-trace -l 1
check "later timebases" tb.wtf-trace -n 3
check "later timebases" tb.wtf-trace -b 9000

# A zone created before its wire id is defined again as another event:
# a piece restates the zone's creation with the definition it was read
# with (and the new one after it), chunked and legacy.
late='wtf-define ts=TS time=1000 wire=3 class=instance flags=0x0 name=test#late args="uint32 a, uint32 b"'
for g in gsmall g3; do
	wtf2txt $g.wtf-trace > $g.txt
	ts=$(grep -m1 '^event .*name=wtf.zone#create' $g.txt | sed 's/.* ts=\([0-9]*\) .*/\1/')
	awk -v def="$(echo "$late" | sed "s/TS/$ts/")" -v ev="event tid=0 ts=$ts time=1000 name=test#late a=1 b=2" \
	    '/^event .*name=wtf.zone#set/ && !done { print def; print ev; done = 1 } { print }' \
	    $g.txt | txt2wtf > late-$g.wtf-trace
	is "$(wtf2txt late-$g.wtf-trace | grep -c 'wire=3 .*test#late\|name=test#late a=1')" 2 \
	    "$g: wire 3 (wtf.zone#create) defined again after the zones, and used"
	check "$g, zone#create redefined" late-$g.wtf-trace -n 5
done
check "g3, zone#create redefined" late-g3.wtf-trace -l 1111

# What a piece restates: after the file header (chunked: and its
# file-header chunk), the definitions, the zones and the zone set, then
# the input from the cut on.
pieces -n 3 gsmall.wtf-trace
p=$(sed -n 2p pieces.list)
wtf2txt gsmall.wtf-trace > whole.txt
wtf2txt "$p" > p2.txt
a=$(grep -c '^wtf-define' whole.txt)
b=$(awk '/^wtf-chunk/ { c++ } c == 2 && /^wtf-define/' p2.txt | wc -l | tr -d ' ')
is "$b" "$a" "the second piece's first event chunk restates the $a definitions"
z=$(awk '/^wtf-chunk/ { c++ } c == 2 && / name=wtf\.zone#/ { n++ } END { print n + 0 }' p2.txt)
[ "$z" -ge 2 ]
ok $? "and the zones and the zone set ($z records)"
sed -n 1,2p whole.txt > h.want
sed -n 1,2p p2.txt > h.got
same_file h.got h.want "it starts with the whole's header and file-header chunk"

if [ -n "$C" ]; then
	for f in blk-client blk-server v10-js-multichunk v10-js-alltypes \
	    v10-cpp-bindings; do
		check "$f" "$C/$f.wtf-trace" -n 3
		check "$f" "$C/$f.wtf-trace" -l 1000
	done
	check v10-js-multichunk "$C/v10-js-multichunk.wtf-trace" -l 1
	check blk-server "$C/blk-server.wtf-trace" -b 262145
else
	skip "no ../shared/corpus/wtf" "corpus traces cut into pieces"
fi

# WTF's own reader on the pieces: per zone, every event's time, name and
# arguments, as in the whole (sorted: the reader lists zone by zone).
. "$srcdir/tests/wtf-loader.sh"
if [ -z "$C" ] || ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	skip "needs the corpus, node and npm" "WTF's reader loads the pieces"
elif ! wtf_loader; then
	skip "npm install tracing-framework failed (offline?)" \
	    "WTF's reader loads the pieces"
else
	for f in blk-client v10-js-multichunk v10-cpp-bindings; do
		pieces -n 4 "$C/$f.wtf-trace"
		node load.js "$M" "$C/$f.wtf-trace" 2>/dev/null | grep '	' |
		    LC_ALL=C sort > whole.view
		: > cat.view
		bad=0
		while read -r p; do
			node load.js "$M" "$p" > p.view 2>/dev/null || bad=$((bad + 1))
			grep '	' p.view >> cat.view
		done < pieces.list
		is "$bad" 0 "$f: the reader loads every piece"
		LC_ALL=C sort cat.view > cat.sorted
		[ -s whole.view ] && cmp -s whole.view cat.sorted
		ok $? "$f: it sees the whole's events in them ($(wc -l < whole.view | tr -d ' '))"
	done
fi

one_piece g10.wtf-trace

# A cut file: the pieces before the fault are whole traces whose events
# begin the events before the fault; one line names its offset; exit 1.
for g in g10 g3; do
	head -c 200001 $g.wtf-trace > cut.wtf-trace
	cut_trace "$g cut" cut.wtf-trace
done

done_testing
