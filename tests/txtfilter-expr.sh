#!/bin/sh
# txtfilter -e: every operator on a hand-written stream, precedence, the
# shorthands ANDed, -e repeated ORed, bad expressions as usage errors
# naming the column; then the issue's examples compared record by record
# with an independent selection by awk, on the real RapidBin traces and
# on generated x64dbg and event text.
. "$srcdir/tests/tap.sh"

cat > in.txt <<'END'
# a comment tid=1
rapidbin-header threads=4 locks=5 vars=8 events=9
write tid=0 var=5 loc=3
read tid=1 var=4 loc=-2
acquire tid=1 lock=3 loc=6
release tid=2 lock=4 loc=7
request tid=2 lock=5 loc=8
insn seq=7 tid=4660 pc=0x401000 bytes=4889e5
write tid=4661 seq=8 pc=0x401003 addr=0x601010 size=8 old=0x0 new=0x5
write tid=7 seq=9 pc=0x401003 addr=0x601018 size=8
event ts=1773850000000012345 tid=3 name="tokio.Poll" value="a tid=42 b"
event ts=1773849999999999999 tid=4 name=PollEnd value=null
event ts=1773850000000000001 tid=5 name="say \"hi\"\n" value=-9223372036854775808
END

# sel EXPR...: the first two fields of the shared-kind records selected.
sel() {
	txtfilter "$@" in.txt | awk '/^(insn|read|write|acquire|release|request|fork|join|begin|end|branch|event) /{ printf "%s%s", s, $1 " " $2; s = "," } END { print "" }'
}

is "$(sel -e 'var == 5')" "write tid=0" "== on a decimal field"
is "$(sel -e 'var == 5 or lock in 3-4')" "write tid=0,acquire tid=1,release tid=2" "or, in a range (edges included)"
is "$(sel -e 'lock in 4-')" "release tid=2,request tid=2" "in an open range"
is "$(sel -e 'var != 5')" "read tid=1" "!= is false where the field is absent"
is "$(sel -e 'not var == 5')" "read tid=1,acquire tid=1,release tid=2,request tid=2,insn seq=7,write tid=4661,write tid=7,event ts=1773850000000012345,event ts=1773849999999999999,event ts=1773850000000000001" "not: also the records without the field"
is "$(sel -e 'loc < 0')" "read tid=1" "< with a negative value"
is "$(sel -e 'loc >= -2 and loc <= 3')" "write tid=0,read tid=1" "negative literal, <= and >="
is "$(sel -e 'loc > 7')" "request tid=2" "> is strict"
is "$(sel -e 'value < -9223372036854775807')" "event ts=1773850000000000001" "the most negative 64-bit value"
is "$(sel -e 'pc == 4198400')" "insn seq=7" "a decimal literal against a hex value"
is "$(sel -e 'addr == 0x601010')" "write tid=4661" "a hex literal"
is "$(sel -e 'addr in 0x601000+0x18')" "write tid=4661" "START+LEN excludes START+LEN"
is "$(sel -e 'addr in 0x601000+0x19')" "write tid=4661,write tid=7" "START+LEN"
is "$(sel -e 'kind == write')" "write tid=0,write tid=4661,write tid=7" "kind =="
is "$(sel -e 'kind != write and kind != event')" "read tid=1,acquire tid=1,release tid=2,request tid=2,insn seq=7" "kind !="
is "$(sel -e 'kind in acquire,release')" "acquire tid=1,release tid=2" "kind in a list"
is "$(sel -e 'kind == write and addr in 0x601000+0x1000 and tid != 7')" "write tid=4661" "the issue's x64dbg example"
is "$(sel -e 'has(addr)')" "write tid=4661,write tid=7" "has()"
is "$(sel -e 'has(value)')" "event ts=1773850000000012345,event ts=1773850000000000001" "has(): null is absent"
is "$(sel -e 'has(old) and not has(new)')" "" "has() and not"
is "$(sel -e 'tid == 42')" "" "a field inside a quoted string is not a field"
is "$(sel -e 'value ~ "tid=42"')" "event ts=1773850000000012345" "~ on a quoted string"
is "$(sel -e 'name ~ "^tokio\\."')" "event ts=1773850000000012345" "~ with an escaped dot"
is "$(sel -e 'name ~ "Poll"')" "event ts=1773850000000012345,event ts=1773849999999999999" "~ on bare and quoted strings"
is "$(sel -e 'name !~ "Poll"')" "event ts=1773850000000000001" "!~"
is "$(sel -e 'name == "PollEnd"')" "event ts=1773849999999999999" "== on a bare string"
is "$(sel -e 'name == "say \"hi\"\n"')" "event ts=1773850000000000001" "== on a string with escapes"
is "$(sel -e 'name ~ "i.$"')" "" "a regex sees the unquoted string (ends in a newline)"
is "$(sel -e 'name ~ "hi\"\n$"')" "event ts=1773850000000000001" "a regex can match the escaped bytes"
is "$(sel -e 'name != "PollEnd"')" "event ts=1773850000000012345,event ts=1773850000000000001" "!= on strings"
is "$(sel -e 'name == 5')" "" "a number against a string value is false, no error"
is "$(sel -e 'pc ~ "^0x4010"')" "insn seq=7,write tid=4661,write tid=7" "~ on a number matches its text"
# Values longer than any line before them (the unquoting buffer grows).
s=$(head -c 600000 /dev/zero | tr '\0' a)
printf 'event ts=1 tid=1 name=short\nevent ts=2 tid=1 name="%sx\\""\nevent ts=3 tid=1 name=%sy\n' "$s" "$s" > long.txt
is "$(txtfilter -e 'name ~ "ax\"$" or name ~ "ay$" or name == "short"' long.txt | cut -c1-16 | tr '\n' ,)" \
    "event ts=1 tid=1,event ts=2 tid=1,event ts=3 tid=1," "a 600 KB string value, quoted and bare"
is "$(sel -e 'name ~ "Poll" and ts > 1773850000000000000')" "event ts=1773850000000012345" "the issue's event example"
is "$(sel -e 'tid == 1 or tid == 2 and lock == 5')" "read tid=1,acquire tid=1,request tid=2" "and binds tighter than or"
is "$(sel -e '(tid == 1 or tid == 2) and lock == 5')" "request tid=2" "parentheses"
is "$(sel -e 'tid==1&&lock==3||!has(tid)')" "acquire tid=1" "&& || ! and no blanks"
is "$(sel -e 'not not (var == 5)')" "write tid=0" "not not"
is "$(sel -e 'tid == 0' -e 'tid == 7')" "write tid=0,write tid=7" "-e repeated: or"
is "$(sel -e 'tid in 0-7' --type write)" "write tid=0,write tid=7" "-e and --type: and"
is "$(sel -e 'tid in 0-7' --tid 2-4)" "release tid=2,request tid=2,event ts=1773850000000012345,event ts=1773849999999999999" "-e and --tid: and"
is "$(sel -v -e 'tid in 0-4660')" "write tid=4661" "-v inverts -e"
is "$(txtfilter -e 'tid == 99' in.txt | grep -c -v '^\(write\|read\|acquire\|release\|request\|insn\|event\) ')" 2 "structure and comments pass with -e"
txtfilter -e 'tid == 99' in.txt > /dev/null
is "$?" 1 "nothing selected: status 1"

# bad EXPR COLUMN-AND-MESSAGE: status 2, the usage line, the column named.
bad() {
	txtfilter -e "$1" in.txt > out.txt 2> err.txt
	st=$?
	like "$st:$(head -1 err.txt):$(sed -n 2p err.txt)" "2:txtfilter: -e '$1': column $2:Usage: txtfilter *" "bad expression: $1"
	is "$(cat out.txt)" "" "bad expression: nothing written: $1"
}
bad 'tid ==' '7: expected a number or a quoted string at the end'
bad 'tid == x1' '8: expected a number (decimal, or hex with 0x; strings are quoted), not "x1"'
bad 'tid < "a"' '7: expected a number, not "\"a\""'
bad '(tid == 1' '10: expected ) at the end'
bad 'tid == 1)' '9: unbalanced ), not ")"'
bad 'tid = 1' '5: expected == != < <= > >= ~ !~ or in, not "="'
bad 'name ~ "(("' '8: bad regular expression *'
# One line: the expression, where, and regcomp's own words (glibc's here).
txtfilter -e 'name !~ "a{1"' in.txt > /dev/null 2> err.txt
is "$(head -1 err.txt)" "txtfilter: -e 'name !~ \"a{1\"': column 9: bad regular expression \"a{1\": $(printf 'Unmatched \\{')" \
    "a bad regular expression: one line with regcomp's error"
bad 'name ~ "^tok+++++++++++++++++++++++++++++++++++++++++++"' '8: a repetition of a repetition *'
bad 'name ~ "a*{2}"' '8: a repetition of a repetition *'
is "$(sel -e 'name ~ "[+*]+" or name ~ "o\\++" or name ~ "^(P+)+"')" "event ts=1773849999999999999" "a repeated group or bracket, an escaped + repeated"
bad 'name ~ 5' '8: expected a quoted regular expression, not "5"'
bad 'kind == foo' '9: expected a shared kind (insn, *), not "foo"'
bad 'kind in read,trac-header' '14: expected a shared kind *, not "trac-header"'
bad 'kind < 3' '6: expected ==, != or in after "kind", not "<"'
bad 'name == "abc' '9: unterminated string'
bad 'tid == 1 tid' '10: expected and, or or the end, not "tid"'
bad 'and' '1: expected a field name, kind, has(FIELD), not or (, not "and"'
bad 'has(1 == 2)' '7: expected ), not "=="'
bad 'tid == 1 and' '13: expected a field name, kind, has(FIELD), not or ( at the end'
bad 'tid @ 1' '5: expected == != < <= > >= ~ !~ or in, not "@"'
txtfilter -e 'name == "abc\q"' in.txt 2> err.txt
is "$?:$(head -1 err.txt)" "2:txtfilter: -e 'name == \"abc\\q\"': column 13: bad escape in a string (\\\\ \\\" \\n \\r \\t \\xHH)" "a bad escape in a string"
txtfilter -e 'tid in 5-1' in.txt 2> err.txt
is "$?:$(head -1 err.txt)" '2:txtfilter: -e: column 8: empty range "5-1" (start after end)' "a bad list names its column"
txtfilter -e '' in.txt 2> err.txt
is "$?:$(head -1 err.txt)" '2:txtfilter: -e: empty expression' "an empty expression"
keys=$(awk 'BEGIN { for (i = 0; i < 33; i++) printf "%sf%d == 1", i ? " or " : "", i }')
txtfilter -e "$keys" in.txt 2> err.txt
is "$?:$(head -1 err.txt)" "2:txtfilter: -e: column 375: more than 32 distinct fields, not \"f32\"" "at most 32 fields; a long expression is not repeated"
keys=$(awk 'BEGIN { for (i = 0; i < 31; i++) printf "%sf%d == 1", i ? " or " : "", i }')
txtfilter -e "$keys or tid == 7" in.txt > /dev/null
is "$?" 0 "32 fields are fine"

# ---- the issue's examples against an independent awk selection.
#
# pick: shared-kind records for which the awk condition COND holds, with
# f("key") the value of a field (these streams hold no quoted blanks), and
# every other line.
pick() {
	awk -v shared='^(insn|read|write|acquire|release|request|fork|join|begin|end|branch|event)$' '
	function f(k,   i, n) {
		for (i = 2; i <= NF; i++)
			if (index($i, k "=") == 1) return substr($i, length(k) + 2)
		return ""
	}
	function num(v,   i, x) {
		if (v !~ /^0x/) return v + 0
		for (i = 3; i <= length(v); i++)
			x = x * 16 + index("0123456789abcdef", substr(v, i, 1)) - 1
		return x
	}
	$1 !~ shared { print; next }
	'"$1"' { print }' "$2"
}

dir=$(corpus rapidbin)
if [ -n "$dir" ]; then
	n=0 bad=0 sel=0
	for d in "$dir"/spd-deadlock-benchmarks/*.data; do
		rapidbin2txt "$d" > r.txt || exit 99
		txtfilter -e 'var == 5 or lock in 3-4' r.txt > got.txt
		pick '(f("var") != "" && f("var") + 0 == 5) || (f("lock") != "" && f("lock") + 0 >= 3 && f("lock") + 0 <= 4)' r.txt > want.txt
		cmp -s got.txt want.txt || { bad=$((bad + 1)); echo "# differs: $d"; }
		sel=$((sel + $(txtfilter -c -e 'var == 5 or lock in 3-4' r.txt)))
		n=$((n + 1))
	done
	is "$bad/$n" "0/$n" "RapidBin corpus: var == 5 or lock in 3-4 selects as awk does ($sel records)"
	rapidbin2txt "$dir"/spd-deadlock-benchmarks/jigsaw.data > j.txt || exit 99
	txtfilter -e 'kind in acquire,release and tid != 1 and (lock < 100 or lock >= 1600)' j.txt > got.txt
	pick '($1 == "acquire" || $1 == "release") && f("tid") + 0 != 1 && (f("lock") + 0 < 100 || f("lock") + 0 >= 1600)' j.txt > want.txt
	same_file got.txt want.txt "jigsaw: three fields and a kind list, as awk ($(wc -l < want.txt) lines)"
else
	skip "no corpus" "RapidBin corpus examples"
	skip "no corpus" "jigsaw three fields"
fi

gen-trac --arch x64 --threads 8 --blocks 40000 --seed 5 > x.trace64 || exit 99
trac2txt x.trace64 > x.txt || exit 99
lo=0x14f000	# gen-trac's stack page: most writes go there
txtfilter -e "kind == write and addr in $lo+0x1000 and tid != 7" x.txt > got.txt
pick '$1 == "write" && num(f("addr")) >= num("'"$lo"'") && num(f("addr")) < num("'"$lo"'") + 4096 && f("tid") + 0 != 7' x.txt > want.txt
same_file got.txt want.txt "x64dbg text: kind == write and addr in $lo+0x1000 and tid != 7, as awk ($(grep -c '^write' want.txt) writes)"
tid=$(awk '/^insn /{ print substr($3, 5); exit }' x.txt)
txtfilter -c -e "tid == $tid and seq >= 1000 and pc < 0x7ff6a0080000" x.txt > got.txt
pick '$1 ~ /^(insn|read|write)$/ && f("tid") + 0 == '"$tid"' && f("seq") + 0 >= 1000 && num(f("pc")) < num("0x7ff6a0080000")' x.txt | grep -c '^\(insn\|read\|write\) ' > want.txt
same_file got.txt want.txt "x64dbg text: three numeric fields counted as awk does ($(cat want.txt))"

# Event text: names from a small vocabulary, times around the bound.
awk 'BEGIN {
	split("tokio.Poll PollEnd spawn tokio.park wake", nm, " ")
	for (i = 0; i < 50000; i++)
		printf "event ts=%s%09d tid=%d name=\"%s\"\n", i % 3 ? "1773850000" : "1773849999", i * 7919 % 1000000000, i % 5, nm[i % 7 % 5 + 1]
}' > ev.txt
txtfilter -e 'name ~ "Poll" and ts > 1773850000000000000' ev.txt > got.txt
awk '{ ts = substr($2, 4) } $4 ~ /Poll/ && ts > "1773850000000000000"' ev.txt > want.txt
same_file got.txt want.txt "event text: name ~ \"Poll\" and ts > T as awk ($(wc -l < want.txt) records)"

done_testing
