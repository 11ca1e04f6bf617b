#!/bin/sh
# wtf2txt golden tests: two traces written by hand from the format
# reference (tests/data/wtf/*.hex, commented byte by byte) decoded and
# compared with text written by hand, and encoded back; then the corpus
# traces against the views of WTF's own wtf-dump kept beside them.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/wtf

for n in legacy v10; do
	sed 's/#.*//' "$D/$n.hex" | xxd -r -p > $n.wtf
	wtf2txt $n.wtf > out.txt 2> err.txt
	is "$? $(cat err.txt)" "0 " "$n: decodes without a word"
	same_file out.txt "$D/$n.txt" "$n: the text written by hand"
	txt2wtf "$D/$n.txt" > back.wtf
	same_file back.wtf $n.wtf "$n: the text encodes to the same bytes"
done
# What the legacy file shows: zone 7 from the zone#set on, the scope id
# on t#s and on the leave that closes it, the utf8 count kept (2 units
# for one), the native-order float.
grep -q '^event tid=7 ts=1000010000 time=10 name=t#s scope=1 a=-2 s="é" s.chars=2 f=1.5 v=\[1,258\]$' out.txt 2>/dev/null ||
    wtf2txt legacy.wtf | grep -q 's.chars=2 f=1.5 v=\[1,258\]$'
ok $? "legacy: every argument type of the record, as the reference reads it"
wtf2txt -v legacy.wtf 2>&1 >/dev/null | grep -q "legacy v3 trace: 6 records (3 definitions"
ok $? "legacy: -v counts the records and definitions"
wtf2txt -v v10.wtf 2>&1 >/dev/null | grep -q "chunked v10 trace: 3 records (1 definitions, 0 of a wire id defined before), 2 chunks, 3 parts"
ok $? "v10: -v counts records, chunks and parts"

C=$(corpus wtf)
if [ -z "$C" ]; then
	skip "no ../shared/corpus/wtf" "corpus traces against wtf-dump"
	done_testing
fi
# v10-js-alltypes: the values wtf-dump shows (v10-js-alltypes.wtf-dump.txt,
# lines 4, 5 and 6): time32 12.345 ms is 12345 us, "" and null apart; the
# any value x as the map its JSON text stands for.
wtf2txt "$C/v10-js-alltypes.wtf-trace" > a.txt
grep -q '^event tid=1 ts=976006964943 time=8864 name=test#allTypes b=true i8=-5 u8=250 i16=-1234 u16=54321 i32=-123456789 u32=4000000000 f=1.5 a="hello" u="héllo ☃" x={k:\[1,"two",null\]} c="Z" w="☃" t=12345$' a.txt
ok $? "alltypes: test#allTypes with every scalar type, as wtf-dump shows it at 8.86ms"
grep -q ' name=test#allTypes b=false i8=0 u8=0 i16=0 u16=0 i32=0 u32=0 f=0.0 a="" u=null x=null c="a" w="b" t=0$' a.txt
ok $? "alltypes: zero, empty and null values (a is \"\", u and x null)"
grep -q ' name=test#arrays ai8=\[-1,2,-3\] au8=\[1,2,3,4,5\] ai16=\[-300,300,7\] au16=\[65535\] ai32=\[-1,1\] au32=\[4294967295\] af=\[0.5,-2.25\] ca="abc" wa="é☃" nul=null$' a.txt
ok $? "alltypes: every array type, char[] and wchar[] as text, a null array"
# The zones wtf-dump names Script (1) and worker (2); the scope opened by
# wtf.scope#enter("outer") is the one the last leave closes.
is "$(grep -c '^event tid=2 ' a.txt) $(grep '^event .*name=wtf.scope#enter ' a.txt | sed 's/.*scope=\([0-9]*\).*/\1/') $(grep '^event .*name=wtf.scope#leave ' a.txt | tail -n 1 | sed 's/.*scope=//')" \
    "2 1 1" "alltypes: zone 2 (worker) has its set and timeStamp; outer is scope 1, closed last"
# v10-cpp-bindings: C++ sign-extends sub-word slots (kept as .pad), writes
# "" as null and stores each string once per chunk.
wtf2txt "$C/v10-cpp-bindings.wtf-trace" > c.txt
is "$(grep -c ' name=cpp#Types b=[a-z]* u8=250 u16=54321 u32=4000000000 i8=-5 i8.pad=ffffff i16=-1234 i16.pad=ffff i32=-123456789 f=1.5 s="hello"$' c.txt)" 5 \
    "cpp: the five cpp#Types records wtf-dump shows"
is "$(grep -c 'type=string_table unique=true' c.txt) $(grep -c ' name=cpp#Work scope=' c.txt)" "2 5" \
    "cpp: string tables of one entry per string; cpp#Work opens a scope"
# v10-js-multichunk: per event name, as many records as wtf-dump lines,
# and the (i, label, v) of every test#tick as it shows them.
wtf2txt "$C/v10-js-multichunk.wtf-trace" > m.txt
for name in test#work test#tick wtf.scope#leave; do
	is "$(grep -cE "^event .* name=$name( |\$)" m.txt)" \
	    "$(grep -c "] $name  *" "$C/v10-js-multichunk.wtf-dump.txt")" \
	    "multichunk: as many $name records as wtf-dump shows"
done
# (numbers compared as numbers: 40 is "40" in JSON and "4e+01" here)
num() { awk '{ printf "%s %s %.17g\n", $1, $2, $3 }' | sort; }
sed -n 's/.* test#tick  *{"i":\([0-9]*\),"label":"\([a-z0-9]*\)","v":\([-+0-9.e]*\),.*/\1 \2 \3/p' \
    "$C/v10-js-multichunk.wtf-dump.txt" | num > dump.ticks
sed -n 's/.* name=test#tick i=\([0-9]*\) label="\([a-z0-9]*\)" v=\([-+0-9.e]*\) .*/\1 \2 \3/p' m.txt | num > ours.ticks
[ "$(wc -l < ours.ticks)" -eq 600 ] && cmp -s dump.ticks ours.ticks
ok $? "multichunk: the 600 test#tick values, as wtf-dump shows them"
is "$(grep -c '^wtf-chunk' m.txt) $(grep -c 'type=string_table$' m.txt)" "9 8" \
    "multichunk: 9 chunks; JS string tables hold a string once per use"
# blk-client and blk-server (legacy): the record counts of SOURCES.md and
# the first record after the definitions.
for f in blk-client:458446 blk-server:315569; do
	n=${f#*:} f=${f%:*}
	wtf2txt "$C/$f.wtf-trace" > b.txt
	is "$(grep -c '^event \|^wtf-define ' b.txt)" "$n" "$f: $n records, as SOURCES.md counts them"
done
is "$(grep -m 1 '^event .*name=wtf.zone#create' b.txt | cut -d' ' -f2-)" \
    'ts=1356985232045976000 time=112636976 name=wtf.zone#create zoneId=1 arg.name="Script" type="script" location="/usr/local/bin/wtf-trace"' \
    "blk-server: the first zone, created before any zone is set (bytes at 0xfe7: 0003 06b6b430 0001 0006 Script ...)"
done_testing
