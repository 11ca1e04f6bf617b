#!/bin/sh
# txt2json and json2txt on bad input: a one-line diagnostic with line and
# column, exit 1, and the records before the fault on standard output.
. "$srcdir/tests/tap.sh"

# bad PROGRAM INPUT WANT-STDERR-PATTERN NAME: exit 1, the first (good) line
# written whole, one diagnostic line.
bad() {
	printf '%s' "$2" | $1 > out 2> err
	rc=$?
	is "$rc" 1 "$4: exit 1"
	like "$(cat err)" "$3" "$4: diagnostic"
	is "$(wc -l < err | tr -d ' ')" 1 "$4: one line"
	case $1 in
	json2txt) is "$(cat out)" "${5:-ok}" "$4: the records before are written" ;;
	txt2json) is "$(cat out)" '{"kind":"ok"}' "$4: the records before are written" ;;
	esac
}
nl='
'
J='{"kind":"ok"}'"$nl"
bad json2txt "$J"'{"kind":"a",}' "json2txt: <stdin>:2:13: invalid JSON: *" "trailing comma"
bad json2txt "$J"'[1]' "json2txt: <stdin>:2:2: expected '{'*" "a list of no records (an array is read as records: its element is at fault)"
bad json2txt "$J"'  {"x":1}' "json2txt: <stdin>:2:3: object without \"kind\"" "no kind"
bad json2txt "$J"'{"kind":"a b"}' "json2txt: <stdin>:2:1: \"kind\" is not a record kind*" "bad kind"
bad json2txt "$J"'{"kind":3}' "json2txt: <stdin>:2:1: \"kind\" is not a record kind*" "kind not a string"
bad json2txt "$J"'{"kind":"a","b c":1}' "json2txt: <stdin>:2:1: key \"b c\" is not a trace-text key*" "bad key"
bad json2txt "$J"'{"kind":"a","@x":1}' "json2txt: <stdin>:2:1: key \"@x\" is not*" "unknown @ key"
bad json2txt "$J"'{"kind":"a","x":1' "json2txt: <stdin>:2:1: truncated: *" "truncated object"
bad json2txt "$J"'{"kind":"a","x":{"@text":"1 2"}}' "json2txt: <stdin>:2:1: \"@text\" is not*" "raw text of two values"
bad json2txt "$J"'{"@comment":"x=1"}' "json2txt: <stdin>:2:1: \"@comment\" is not*" "a comment that is a record"
bad json2txt "$J"'{"kind":"a","x":"\ud800"}' "json2txt: <stdin>:2:*: invalid JSON: invalid Unicode*" "lone surrogate"
bad json2txt "$J"'{"kind":"a","@quoted":["x\udfff"],"x":"1"}' "json2txt: <stdin>:2:26: invalid JSON: invalid Unicode*" "lone surrogate in a string no field takes"
bad json2txt "$J"'{"kind":"a","x":1,"x":2}' "json2txt: <stdin>:2:*: invalid JSON: duplicate object key*" "duplicate key"
bad json2txt "$J"'{"kind":"a","x":123456789012345678901234}' "json2txt: <stdin>:2:*: invalid JSON: too big integer*" "integer beyond 64 bits"
bad json2txt "$J"'{"kind":"a"} x' "json2txt: <stdin>:2:14: expected '{'*" "garbage after an object" "ok${nl}a"
bad json2txt "$J"'{"kind":"a",'"$nl"'"x":'"$nl"'[1,]}' "json2txt: <stdin>:4:4: invalid JSON: *" "error line and column inside an object over lines"
printf '%s{"kind":"a","x":%s1%s}\n' "$J" "$(printf '%070d' 0 | tr 0 '[')" "$(printf '%070d' 0 | tr 0 ']')" > deep.json
json2txt deep.json > out 2> err; rc=$?
is "$rc:$(cat err)" "1:json2txt: deep.json:2:1: nested deeper than trace text allows (64)" "deeper than the text nests"
printf '\377\376{}' | json2txt > out 2> err
is "$?" 1 "a UTF-16 byte order mark is refused"

T='ok'"$nl"
bad txt2json "$T"'a x=1 x=2' "txt2json: <stdin>:2:7: key \"x\" twice in one record" "text: duplicate key"
bad txt2json "$T"'a b' "txt2json: <stdin>:2:4: expected key=value" "text: malformed line"
bad txt2json "$T"'a x="\xff' "txt2json: <stdin>:2:10: unterminated string" "text: unterminated string"
bad txt2json "$T$(printf '# \377')" "txt2json: <stdin>:2:3: comment is not valid UTF-8*" "text: comment not UTF-8"
bad txt2json "$T$(printf 'a x="\377"')" "txt2json: <stdin>:2:5: field \"x\": *not valid UTF-8*" "text: raw byte not UTF-8"

# Every prefix of a JSON stream: exit 0 or 1, and the text written is a
# prefix of the whole text, made of whole lines.
printf 'h a=1\nev x="a b" l=[1,{k:"v w"}] ts=5\n# c\nev y=0x10\n' > small.txt
txt2json small.txt > small.json
json2txt small.json > full.txt
size=$(wc -c < small.json)
fails=0 i=0
while [ $i -lt "$size" ]; do
	head -c $i small.json > cut.json
	json2txt cut.json > cut.txt 2> cut.err; rc=$?
	n=$(wc -c < cut.txt)
	if [ $rc -gt 1 ] || ! head -c "$n" full.txt | cmp -s - cut.txt ||
	    { [ $rc -eq 1 ] && ! grep -q '^json2txt: cut.json:[0-9]*:[0-9]*: ' cut.err; }; then
		fails=$((fails + 1)); echo "# prefix $i: exit $rc"
	fi
	i=$((i + 1))
done
is "$fails" 0 "every prefix of $size bytes: whole records of the text, then a diagnostic"
# Every prefix of a text line: whole records, or a line:col diagnostic.
size=$(wc -c < small.txt)
fails=0 i=0
while [ $i -lt "$size" ]; do
	head -c $i small.txt | txt2json > cut.json 2> cut.err; rc=$?
	if [ $rc -gt 1 ] || ! json2txt cut.json > /dev/null 2>&1; then
		fails=$((fails + 1)); echo "# prefix $i: exit $rc"
	fi
	i=$((i + 1))
done
is "$fails" 0 "every prefix of the text: JSON that json2txt reads"
done_testing
