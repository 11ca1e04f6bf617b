#!/bin/sh
# txt2wtf on text it did not get from wtf2txt: streams without a header
# or definitions, other formats' records, zone switches dropped, values
# written by hand; its diagnostics (line:column, field, what) and the
# skip-or---strict policy.
. "$srcdir/tests/tap.sh"

# A stream of events alone becomes a chunked trace: a header chunk with
# the timebase (the earliest ts in whole milliseconds), zones created and
# set from tid, definitions from all the values of a name (strings utf8,
# booleans bool, integers int32 or uint32 when all fit, other numbers,
# lists and maps any), times in microseconds from ts.
cat > in.txt <<'EOT'
event tid=2 ts=1700000000123456789 name=net#read fd=7 ok=true peer="10.0.0.1:80"
event tid=2 ts=1700000000123460000 name=net#read fd=8 ok=false peer=null
event tid=4 ts=1700000000123470000 name=net#close fd=7
EOT
txt2wtf in.txt > a.wtf 2> err.txt
is "$? $(cat err.txt)" "0 " "events alone encode"
wtf2txt a.wtf > a.txt
is "$(sed -n 3p a.txt)" 'wtf-part type=file_header json="{\"type\":\"file_header\",\"flags\":[\"has_high_resolution_times\"],\"timebase\":1700000000123,\"contextInfo\":{\"contextType\":\"script\",\"uri\":\"\",\"title\":\"txt2wtf\"},\"metadata\":{}}"' \
    "the header chunk: timebase of the first ts, a script context"
is "$(grep -v '^wtf-' a.txt)" 'event ts=1700000000123456000 time=456 name=wtf.zone#create zoneId=2 arg.name="tid 2" type="script" location=null
event tid=2 ts=1700000000123456000 time=456 name=wtf.zone#set zoneId=2
event tid=2 ts=1700000000123456000 time=456 name=net#read fd=7 ok=true peer="10.0.0.1:80"
event tid=2 ts=1700000000123460000 time=460 name=net#read fd=8 ok=false peer=null
event tid=2 ts=1700000000123470000 time=470 name=wtf.zone#create zoneId=4 arg.name="tid 4" type="script" location=null
event tid=4 ts=1700000000123470000 time=470 name=wtf.zone#set zoneId=4
event tid=4 ts=1700000000123470000 time=470 name=net#close fd=7' \
    "zones from tid, times from ts (microseconds after the timebase)"
is "$(grep '^wtf-define' a.txt | sed 's/.* wire=/wire=/')" 'wire=2 class=instance flags=0x0 name=net#read args="int32 fd, bool ok, utf8 peer"
wire=3 class=instance flags=0x28 name=wtf.zone#create args="uint16 zoneId, ascii name, ascii type, ascii location"
wire=4 class=instance flags=0x28 name=wtf.zone#set args="uint16 zoneId"
wire=5 class=instance flags=0x0 name=net#close args="int32 fd"' \
    "definitions: one per event name, the built-in zone events, each before its first use"
txt2wtf -v in.txt 2>&1 > /dev/null | grep -q "4 event definitions inferred"
ok $? "-v counts the inferred definitions"

# A field whose values are of several kinds, or that some events of its
# name lack, is any: every record is written, what changed is counted;
# another format's record is skipped; --strict makes either an error.
printf 'event name=e v="s" ts=5000\nevent name=e v=[1,2] ts=6000\nevent name=e v="t" w=1 ts=7000\ninsn tid=1 pc=0x10\n' > in.txt
txt2wtf in.txt > b.wtf 2> err.txt
is "$? $(cat err.txt)" '0 txt2wtf: 1 record skipped, not expressible in a WTF trace (first at line 4: record kind "insn")
txt2wtf: 2 records changed: a field the event lacks (others of its name have it) written as null (first at line 1: field "w")
txt2wtf: 2 records changed: a string in a field that holds other kinds too, stored as JSON text (wtf2txt gives that text) (first at line 1: field "v")' \
    "values of several kinds are written, the changes counted per cause"
is "$(wtf2txt b.wtf | grep '^event' | grep -v zone#)" 'event tid=1 ts=5000 time=5 name=e v="\"s\"" w=null
event tid=1 ts=6000 time=6 name=e v=[1,2] w=null
event tid=1 ts=7000 time=7 name=e v="\"t\"" w=1' "every record is written, the list and the integer as such"
txt2wtf --strict in.txt > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2wtf: in.txt:1: field "w": a field the event lacks (others of its name have it) written as null' \
    "--strict: the first record that changes is an error"
printf 'event name=e v="s"\ninsn tid=1 pc=0x10\n' | txt2wtf --strict > /dev/null 2> err.txt
like "$? $(cat err.txt)" '1 txt2wtf: <stdin>:1: no ts: an event without a time*' \
    "--strict: an event without a time is an error"
printf 'event name=e v="s" ts=1000\ninsn tid=1 pc=0x10\n' | txt2wtf --strict > /dev/null 2> err.txt
is "$? $(cat err.txt)" '1 txt2wtf: <stdin>:2: record kind "insn": not expressible in a WTF trace' \
    "--strict: another format's record kind is an error"

# The stream's own definitions: values are checked against their types.
gen-wtf --records 200 --seed 3 > g.wtf
wtf2txt g.wtf > g.txt
line=$(grep -n '^event .* name=test#scalars ' g.txt | head -n 1 | cut -d: -f1)
sed "${line}s/ i8=[-0-9]*/ i8=300/" g.txt > bad.txt
txt2wtf bad.txt > /dev/null 2> err.txt
like "$? $(cat err.txt)" "1 txt2wtf: bad.txt:$line:*: field \"i8\": \"300\": out of range for int8" \
    "a value out of its type's range is an error with line and column"
sed "${line}s/ f=[^ ]*/ f=1.25/" g.txt | txt2wtf | wtf2txt | sed -n "${line}p" | grep -q ' f=1.25 '
ok $? "a value written by hand is encoded (float32 1.25)"
# Zone switches dropped are put back where tid changes, from the zones the
# stream created; the rest is unchanged.
grep -v 'name=wtf.zone#set' g.txt | txt2wtf | wtf2txt > back.txt
grep -v 'name=wtf.zone#set' g.txt > want.txt
grep -v 'name=wtf.zone#set' back.txt > got.txt
same_file got.txt want.txt "zone switches put back: every other record as it was"
is "$(grep -c '^event .*name=wtf.zone#set' back.txt)" "$(awk '/^event tid=/ { t = $2; if (t != last) n++; last = t } END { print n }' want.txt)" \
    "one zone switch where tid changes"
# The generation follows the header record, except that a legacy header
# followed by events (its definitions filtered away) makes a chunked trace
# with inferred definitions; the legacy header's timebase, flags, context
# and metadata go into its file-header chunk.
gen-wtf --legacy --records 100 --seed 4 | wtf2txt > lg.txt
grep -v '^wtf-define' lg.txt | txt2wtf > l.wtf
is "$(od -An -tx1 -N4 l.wtf | tr -d ' ')" efbeadde "a legacy stream without definitions becomes chunked (little-endian magic)"
wtf2txt l.wtf > l.txt
ok $? "... and decodes"
is "$(sed -n 1p l.txt; sed -n 3p l.txt)" 'wtf-header version=10 build=2428123136
wtf-part type=file_header json="{\"type\":\"file_header\",\"flags\":[\"has_high_resolution_times\"],\"timebase\":1367885827385,\"contextInfo\":{\"contextType\":\"script\",\"uri\":\"gen-wtf\",\"title\":\"gen-wtf\"},\"metadata\":{\"now_time_ns\":115}}"' \
    "... its header chunk holds the legacy header's timebase, flags, context and metadata"
events() {	# tid, ts and name of each event
	awk '/^event / { t = "-"; for (i = 2; i <= NF; i++) { k = $i; sub(/=.*/, "", k)
		v = $i; sub(/^[^=]*=/, "", v); if (k == "tid") t = v; if (k == "ts") s = v
		if (k == "name") n = v } print t, s, n }' "$1"
}
events lg.txt > want.txt
events l.txt > got.txt
same_file got.txt want.txt "... with the same $(wc -l < want.txt) events (zone, time, name)"
C=$(corpus wtf)
if [ -n "$C" ]; then
	wtf2txt "$C/blk-client.wtf-trace" > blk.txt
	grep -v '^wtf-define' blk.txt | txt2wtf | wtf2txt > blk10.txt
	is "$(head -c 16 blk10.txt)" "wtf-header versi" "blk-client without definitions: a chunked trace that decodes"
	sed -n 1p blk10.txt | grep -q ' version=10 '
	ok $? "... of version 10"
	events blk.txt > want.txt
	events blk10.txt > got.txt
	same_file got.txt want.txt "... with the same $(wc -l < want.txt) events (zone, time, name)"
	grep '^event .* name=wtf\.\(scope\|flow\|zone\|trace\|timeRange\)#' blk.txt | sed 's/ wire=[0-9]*//' > want.txt
	grep '^event .* name=wtf\.\(scope\|flow\|zone\|trace\|timeRange\)#' blk10.txt | sed 's/ wire=[0-9]*//' > got.txt
	same_file got.txt want.txt "... WTF's built-in events as they were, their any values the same JSON"
else
	skip "no ../shared/corpus/wtf" "blk-client without definitions"
fi
printf 'wtf-header version=3 timebase=5\n' | txt2wtf | od -An -tx1 -N4 | tr -d ' ' > magic.txt
is "$(cat magic.txt)" deadbeef "a legacy header alone stays legacy"
printf 'wtf-header version=3 timebase=5\nwtf-define wire=1 class=0 flags=40 name=wtf.event#define args="uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args"\n' |
    txt2wtf | od -An -tx1 -N4 | tr -d ' ' > magic.txt
is "$(cat magic.txt)" deadbeef "a legacy header and a definition stay legacy"

# Errors in the structure records.
check() {
	printf '%b' "$1" | txt2wtf > /dev/null 2> err.txt
	is "$? $(cat err.txt)" "1 txt2wtf: <stdin>:$2" "$3"
}
# A second header (traces merged without input=): their zones and names
# are fused, which is said; --strict refuses it.
printf 'wtf-header version=10\nwtf-header version=10\n' | txt2wtf > /dev/null 2> err.txt
is "$? $(cat err.txt)" "0 txt2wtf: 1 record changed: traces merged without input= (txtmerge --tag): their zones of equal ids and events of equal names fused (first at line 2: a second wtf-header)" \
    "a second header: what is fused is said"
printf 'wtf-header version=10\nwtf-header version=10\n' | txt2wtf --strict > /dev/null 2> err.txt
is "$? $(cat err.txt)" "1 txt2wtf: <stdin>:2: a second wtf-header: traces merged without input= (txtmerge --tag): their zones of equal ids and events of equal names fused" \
    "a second header with --strict: an error"
check 'wtf-header version=4\n' '1:20: field "version": "4": versions 3 (legacy) and 10 (chunked) are written' "an unknown version"
check 'wtf-header version=3\nwtf-chunk type=event_data\n' '2: a wtf-chunk in a legacy trace' "a chunk in a legacy trace"
check 'wtf-header version=10\nwtf-part type=string_table\n' '2: a wtf-part outside a wtf-chunk' "a part outside a chunk"
check 'wtf-chunk type=event_data\nwtf-part type=binary_resource\n' '2: wtf-part without its data= (or json= for a file header)' "a resource without its bytes"
check 'wtf-chunk type=event_data\nwtf-part type=string_table data=00\n' '2:33: field "data": "00": the first string table of a chunk is made from the records' "a string table given as bytes"
check 'wtf-define wire=70000 class=0 flags=0 name=x args=null\n' '1:17: field "wire": "70000": wire ids have 16 bits' "a wire id beyond 16 bits"
check 'wtf-define wire=5 class=0 flags=0 name=x args="int8 a, blob b"\n' '1:47: field "args": ""int8 a, blob b"": invalid signature argument type' "an unknown argument type"
check 'wtf-define wire=1 class=0 flags=0 name=x args=null\n' '1: wire id 1 (wtf.event#define) redefined as another event type' "wire 1 redefined"
check 'wtf-define wire=5 class=0 flags=0 name=e args="utf8 s"\nevent name=e s="a\\x00b"\n' '2:16: field "s": ""a\\x00b"": a NUL byte cannot be stored in a string table' "a NUL byte in a string"
# A legacy trace may define wtf.zone#set with a uint32 zoneId and set a
# zone beyond 16 bits (fuzz-wtf found one): the records in that zone carry
# it as tid and encode as they came; only a zone switch txt2wtf must write
# itself needs a 16-bit id.
cat > in.txt <<'EOT'
wtf-header version=3 build=1 context="{}" flags=0x1 timebase=1000 metadata=null
wtf-define ts=1000006000 time=6 wire=3 class=instance flags=0x28 name=wtf.zone#set args="uint32 zoneId"
event tid=458754 ts=1000008000 time=8 name=wtf.zone#set zoneId=458754
event tid=458754 ts=1000009000 time=9 name=wtf.zone#set zoneId=458754
EOT
txt2wtf in.txt > z.wtf 2> err.txt
is "$? $(cat err.txt)" "0 " "a legacy zone beyond 16 bits: no record skipped"
is "$(wtf2txt z.wtf)" "$(cat in.txt)" "... and the text comes back as it was"
printf 'event tid=458754 ts=1000 name=e\n' | txt2wtf 2> err.txt > z.wtf
is "$? $(cat err.txt) $(wtf2txt z.wtf | grep -c 'zoneId=1 arg.name="tid 458754"')" "0  1" \
    "a tid beyond 16 bits: a zone of another id, named for the tid"
# txt2wtf(1) MEMORY: about three times the longest line, also when the
# stream is rebuilt (read twice, through the spool): the input's buffer
# grown for the long line and the first pass's copy of it are not kept
# into the second (62 MB for a 12 MB line before, 38-40 MB now).
if command -v perl > /dev/null && rss_ok txt2wtf; then
	perl -e 'print "event ts=1 tid=1 name=big s=\"", "a" x 12000000, "\"\nevent ts=2 tid=1 name=big s=\"b\"\n"' > long.txt
	kb=$(/usr/bin/time -f %M txt2wtf long.txt 2>&1 > long.wtf)
	[ "$kb" -lt 49152 ]
	ok $? "txt2wtf rebuilding a 12 MB line: peak $kb KiB, under 48 MiB"
	is "$(wtf2txt long.wtf | grep '^event.* name=big ' | awk '{ print length($0) }' | tr '\n' ' ')" "12000037 38 " \
	    "... and the trace reads back, the 12 MB string whole"
else
	skip "no perl or GNU time, or a sanitizer build" "txt2wtf: peak memory rebuilding a long line"
fi
done_testing
