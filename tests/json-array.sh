#!/bin/sh
# json2txt reads a top-level JSON array, one record per element, as jq -s
# writes it: the array (jq -s, pretty and -c) gives the same text as the
# same objects as NDJSON, line for line, over a generated x64dbg trace, a
# stream of every value type and the real dial9 and WTF traces; jq -s
# 'sort_by(.ts)' gives the records in the order a separate sort (python,
# stable, untimed first as jq orders null) gives; arrays that are no list
# of records are one-line diagnostics with line and column, exit 1, after
# the records before them; jq 1.6's -0 keeps its sign.
. "$srcdir/tests/tap.sh"

nl='
'
# bad INPUT WANT-STDERR WANT-STDOUT NAME
bad() {
	printf '%s' "$1" | json2txt > out 2> err; rc=$?
	is "$rc:$(wc -l < err | tr -d ' ')" "1:1" "$4: exit 1, one line"
	like "$(cat err)" "$2" "$4: diagnostic"
	is "$(cat out)" "$3" "$4: the records before it written"
}
A='{"kind":"a"}'
B='{"kind":"b","x":1}'
printf '[]' | json2txt > out; is "$?:$(wc -c < out)" "0:0" "an empty array: no records"
printf '[\n]\n[ ]\n' | json2txt > out; is "$?:$(wc -c < out)" "0:0" "empty arrays over lines"
printf '[%s,%s]%s[%s]' "$A" "$B" "$A" "$B" | json2txt > out
is "$?:$(tr '\n' '|' < out)" "0:a|b x=1|a|b x=1|" "arrays and objects side by side"
bad "[[${A}]]" "json2txt: <stdin>:1:2: an array in the array*" "" "a nested array"
bad "[${A},${nl}[${B}]]" "json2txt: <stdin>:2:1: an array in the array*" "a" "a nested array after an element, line 2"
bad "[${A},${nl}${B}" "json2txt: <stdin>:1:1: truncated: the input ends inside this JSON array*" "a${nl}b x=1" "a truncated array: where it opened"
bad "${A}${nl}  [${A},${B},${nl}" "json2txt: <stdin>:2:3: truncated: *array*" "a${nl}a${nl}b x=1" "a truncated array on line 2"
bad "[${A},]" "json2txt: <stdin>:1:15: expected '{'*" "a" "a trailing comma"
bad "[${A} ${B}]" "json2txt: <stdin>:1:15: expected ',' or ']'*" "a" "no comma between elements"
bad "[${A},${nl}  1]" "json2txt: <stdin>:2:3: expected '{'*" "a" "a number in the array"
bad "[${A},\"s\"]" "json2txt: <stdin>:1:15: expected '{'*" "a" "a string in the array"
bad "${A},${B}" "json2txt: <stdin>:1:13: expected '{' or '['*" "a" "a comma between objects outside an array"
bad "]" "json2txt: <stdin>:1:1: expected '{' or '['*" "" "a ']' alone"
bad "[${A}]]" "json2txt: <stdin>:1:15: expected '{' or '['*" "a" "one ']' too many"

# jq 1.6 writes -0.0 as -0: json2txt keeps the sign (a float field of a
# schema reads it as -0.0 again).
is "$(echo '{"kind":"e","a":-0,"b":0,"c":-0.0}' | json2txt)" "e a=-0 b=0 c=-0.0" "-0 keeps its sign"

if ! command -v jq > /dev/null 2>&1; then
	skip "jq is not installed" "jq -s output read back"
	done_testing
fi

# The same objects as NDJSON and as an array: one made by sed (no jq:
# the text comes back exactly), and jq -s's, pretty and -c, against the
# same objects as jq -c '.[]' writes them one per line (jq 1.6 rewrites
# floats, see below, the same way in both).
same_three() {
	txt2json "$1" > nd.json || { ok 1 "$2: txt2json"; return; }
	{ echo '['; sed '$!s/$/,/' nd.json; echo ']'; } | json2txt > sed.txt; rc=$?
	is "$rc:$(cmp sed.txt "$1" 2>&1)" "0:" "$2: an array of txt2json's objects gives the text back"
	jq -s . nd.json > arr.json && jq -c '.[]' arr.json > objs.json || { ok 1 "$2: jq"; return; }
	json2txt objs.json > nd.txt
	json2txt arr.json > pretty.txt; rc1=$?
	jq -c . arr.json | json2txt > compact.txt; rc2=$?
	is "$rc1:$rc2:$(wc -l < pretty.txt)" "0:0:$(wc -l < "$1")" "$2: jq -s arrays read, a line per record"
	same_file pretty.txt nd.txt "$2: jq -s (pretty) = the same objects as NDJSON, line for line"
	same_file compact.txt nd.txt "$2: jq -s -c = the same objects as NDJSON, line for line"
}
gen-trac --arch x64 --blocks 400 --threads 2 --seed 4 | trac2txt > x64.txt || exit 99
same_three x64.txt "generated x64dbg"
printf '%s\n' '# a comment' '' \
	'event ts=5 tid=1 name="a\tb" u="\xff\xfe" l=[1,"x",null,[true,-0.0]] m={k:1.5,n:-2}' \
	'dial9-schema id=0 name=E ts=1 fields={x:f64}' \
	'event ts=3 f=1.0 g=-0.0 h=nan big=18446744073709551615 neg=-9223372036854775808 s="12" e=' > types.txt
same_three types.txt "every value type"
d=$(corpus dial9)
if [ -n "$d" ]; then
	for f in "$d"/block-in-place-small.trc.gz "$d"/optional-fields-2026-04-16.trc; do
		dial92txt "$f" > d.txt && same_three d.txt "dial9 $(basename "$f")"
	done
else
	skip "no corpus" "dial9 traces"
fi
w=$(corpus wtf)
if [ -n "$w" ]; then
	wtf2txt "$w"/v10-js-alltypes.wtf-trace > w.txt && same_three w.txt "wtf v10-js-alltypes"
else
	skip "no corpus" "WTF traces"
fi

# The issue's pipeline: sorted by ts with jq, as python sorts the lines
# (stable; a comment or untimed record, ts null in jq, first).
if command -v python3 > /dev/null 2>&1; then
	python3 -c '
import random
random.seed(7)
for i in range(300):
    print("event ts=%d tid=%d n=%d" % (random.randrange(1000), i % 3, i))
    if i % 50 == 0: print("# mark %d" % i)
print("event tid=1 n=untimed")
' > shuffled.txt
	txt2json shuffled.txt | jq -s 'sort_by(.ts)' | json2txt > sorted.txt; rc=$?
	python3 -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
def key(l):
    m = re.search(r" ts=(\d+)", l)
    return (0, 0) if m is None else (1, int(m.group(1)))
for l in sorted(lines, key=key): print(l)
' shuffled.txt > want.txt
	is "$rc" 0 "txt2json | jq -s 'sort_by(.ts)' | json2txt runs"
	same_file sorted.txt want.txt "jq -s 'sort_by(.ts)': the records in python's stable order"
else
	skip "no python3" "jq -s sort_by(.ts)"
fi

# What jq 1.6 does to floats (json2txt(1)): 1.0 becomes 1 and -0.0 -0,
# integers in the text; a schema's float field reads them as floats again.
if jq --version 2>/dev/null | grep -q '^jq-1\.6'; then
	printf 'dial9-header version=1\ndial9-schema id=0 name=E ts=1 fields={x:f64}\nevent name=E ts=100 x=1.0\nevent name=E ts=200 x=-0.0\n' > f.txt
	txt2json f.txt | jq -c . | json2txt > fj.txt
	is "$(sed -n '3p;4p' fj.txt | tr '\n' '|')" "event name=E ts=100 x=1|event name=E ts=200 x=-0|" \
	    "jq 1.6: 1.0 and -0.0 come back as 1 and -0"
	txt2dial9 fj.txt | dial92txt > back.txt
	same_file back.txt f.txt "through a dial9 schema they are the floats again"
else
	skip "jq is not 1.6" "jq 1.6's floats"
fi

done_testing
