#!/bin/sh
# txt2json and json2txt: the mapping of every value class (checked by hand
# against txt2json(1)), the byte-exact round trip of every decoder's text,
# an independent decode of the JSON with jq, and jq edits.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/json

txt2json "$D/values.txt" > v.json
same_file v.json "$D/values.json" "every value class: the JSON written by hand"
json2txt "$D/values.json" > v.txt
same_file v.txt "$D/values.txt" "every value class: back to the same text"

# Round trips: text -> JSON -> text, byte for byte.
roundtrip() {	# NAME FILE
	txt2json "$2" > rt.json && json2txt rt.json > rt.txt
	same_file rt.txt "$2" "round trip: $1"
}
gen-trac --arch x64 --blocks 3000 --threads 3 --seed 5 | trac2txt > trac64.txt
gen-trac --arch x86 --blocks 500 --seed 6 | trac2txt > trac32.txt
roundtrip "x64dbg x64 text" trac64.txt
roundtrip "x64dbg x86 text" trac32.txt
roundtrip "RapidBin, every op" "$srcdir/tests/data/rapidbin/allops.txt"
roundtrip "RapidBin from x64dbg" "$srcdir/tests/data/rapidbin/x64dbg.txt"
c=$(corpus rapidbin)
if [ -n "$c" ]; then
	for f in "$c"/spd-deadlock-benchmarks/*.data; do
		rapidbin2txt "$f" > r.txt
		roundtrip "real RapidBin $(basename "$f")" r.txt
	done
else
	skip "no ../shared corpus" "real RapidBin traces"
fi
# The decoders of the event formats, once they exist.
for fmt in dial9 wtf; do
	c=$(corpus $fmt)
	if ! command -v ${fmt}2txt > /dev/null 2>&1; then
		skip "${fmt}2txt does not exist yet" "round trip: $fmt text"
	elif [ -z "$c" ]; then
		skip "no ../shared corpus" "round trip: $fmt text"
	else
		for f in "$c"/*; do
			${fmt}2txt "$f" > e.txt 2>/dev/null || continue
			roundtrip "real $fmt $(basename "$f")" e.txt
		done
	fi
done

# Big: a million lines, every buffer boundary crossed, gzip input.
gen-trac --arch x64 --blocks 250000 --threads 4 --seed 7 | trac2txt > big.txt
n=$(wc -l < big.txt)
[ "$n" -ge 1000000 ]; ok $? "big trace: $n lines"
txt2json big.txt > big.json
json2txt big.json > big.back
same_file big.back big.txt "big trace: round trip byte for byte"
gzip -1c big.json | json2txt > big.gz.back
same_file big.gz.back big.txt "big trace: gzip JSON input"
is "$(wc -l < big.json | tr -d ' ')" "$n" "one JSON object per line"

if command -v jq > /dev/null 2>&1; then
	# An independent decode: jq reads every object, and rebuilds each
	# line of integer and bare-string fields as the text has it.
	rapidbin2txt "$srcdir/tests/data/rapidbin/allops.bin" > ops.txt
	txt2json ops.txt | jq -r '[.kind] + [to_entries[] | select(.key != "kind") |
	    "\(.key)=\(.value)"] | join(" ")' > ops.jq
	same_file ops.jq ops.txt "jq reads the objects back into the same lines"
	txt2json trac64.txt | jq -c 'select(.kind == "insn") | .tid' | sort -u > jq.tids
	grep '^insn ' trac64.txt | sed 's/.* tid=\([0-9]*\).*/\1/' | sort -u > grep.tids
	same_file jq.tids grep.tids "jq sees the tids grep sees, as numbers"
	txt2json trac64.txt | jq 'select(.kind == "write")' | json2txt > w.txt
	grep '^write ' trac64.txt > w.want
	same_file w.txt w.want "jq select, pretty-printed, then json2txt: the writes"
	txt2json trac64.txt | jq -c 'if .kind == "insn" then .tid = 99 else . end' |
	    json2txt | txt2trac | trac2txt | grep '^insn' | grep -vc ' tid=99 ' > other
	is "$(cat other)" 0 "a jq edit goes through txt2trac into the binary"
	printf 'ev f=1.0\n' | txt2json | jq -c . | json2txt > f.txt
	like "$(cat f.txt)" "ev f=1*" "a float through jq reads back as a number (jq 1.6 drops .0)"
else
	for t in "jq decode" "jq tids" "jq select" "jq edit" "jq float"; do
		skip "jq not installed" "$t"
	done
fi

# Blanks and CRLF are the reader's; the writer's single spaces come back.
printf 'ev  a=1\tb=2  \r\n' | txt2json | json2txt > ws.txt
is "$(cat ws.txt)" "ev a=1 b=2" "runs of blanks and CRLF come back as the writer writes them"
# Several objects on one line, and one object over several lines.
printf '{"kind":"a"} {"kind":"b","x":1}{"kind":"c",\n"y":\n[1,\n2]}\n' | json2txt > multi.txt
is "$(cat multi.txt | tr '\n' '|')" "a|b x=1|c y=[1,2]|" "objects split and joined across lines"
# Keys in any order, "kind" anywhere.
printf '{"x":"a b","kind":"k","y":"0x10"}\n' | json2txt > ord.txt
is "$(cat ord.txt)" 'k x="a b" y=0x10' "kind may come last; fields keep their order"
# A key twice in a map (bare and quoted: one key to JSON) goes as its
# text; so a map of a million keys, checked in n log n both ways.
printf 'a m={a:1,"a":2}\n' | txt2json > twice.json
is "$(cat twice.json)" '{"kind":"a","m":{"@text":"{a:1,\"a\":2}"}}' "a map with a key twice, bare and quoted: its text"
is "$(json2txt twice.json)" 'a m={a:1,"a":2}' "a map with a key twice: back as it was"
awk 'BEGIN { printf "a m={"; for (i = 0; i < 1000000; i++) printf "%sk%d:%d", i ? "," : "", i, i; print "}" }' > wide.txt
timeout 120 txt2json wide.txt > wide.json && timeout 120 json2txt wide.json > wide.back
same_file wide.back wide.txt "a map of a million keys: through JSON and back (no quadratic key check)"
printf '{"kind":"a","m":{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k9":0}}\n' |
    json2txt > dup17.txt 2> dup17.err
like "$(cat dup17.err)" "json2txt: <stdin>:1:*: invalid JSON: duplicate object key" "json2txt: a key twice among 18 (sorted check)"
done_testing
