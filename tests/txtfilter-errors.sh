#!/bin/sh
# txtfilter: exit statuses, malformed option values, bad input lines.
. "$srcdir/tests/tap.sh"

printf 'insn tid=1 pc=0x10\ninsn tid=2 pc=0x20\n' > in.txt

# usage ARGS...: expect status 2, nothing on stdout, a message on stderr.
usage() {
	txtfilter "$@" in.txt > out.txt 2> err.txt
	st=$?
	if [ "$st" -eq 2 ] && [ ! -s out.txt ] && [ -s err.txt ]; then
		ok 0 "usage error: $*"
	else
		ok 1 "usage error: $*"
		echo "#   status $st, stderr: $(head -1 err.txt)"
	fi
}

txtfilter -t 1 in.txt > /dev/null; is "$?" 0 "status 0 when a record is selected"
txtfilter -t 3 in.txt > /dev/null; is "$?" 1 "status 1 when none is"
printf '# only a comment\nrapidbin-header threads=1\n' | txtfilter > /dev/null
is "$?" 1 "status 1 for a stream without shared-kind records"
txtfilter < /dev/null > /dev/null; is "$?" 1 "status 1 for empty input"

usage --tid x
usage --tid ""
usage --tid 1,,2
usage --tid 9-1
usage --tid -
usage --tid 1-2-3
usage --tid 18446744073709551616
usage --tid 0x
usage --addr 0x10+0
usage --addr 0xg
usage --addr 0x20-0x10
usage --ts 1.5h	# 1.5 alone is seconds (timefmt.h); h is no unit
usage --ts -1-
usage --type foo
usage --type insn,
usage --type trac-header
usage --bogus
usage --tid
usage -Z

txtfilter --tid x in.txt 2> err.txt
like "$(cat err.txt)" "txtfilter: --tid: \"x\" is not a number*" "bad --tid value named"
txtfilter --type foo in.txt 2> err.txt
like "$(head -1 err.txt)" "txtfilter: --type: \"foo\" is not a shared kind (insn, read*" "bad --type lists the kinds"
txtfilter --addr 0x20-0x10 in.txt 2> err.txt
like "$(head -1 err.txt)" "txtfilter: --addr: empty range \"0x20-0x10\"*" "reversed range named"

txtfilter --help > help.txt; is "$?" 0 "--help: status 0"
like "$(head -1 help.txt)" "Usage: txtfilter *" "--help prints the usage"
like "$(txtfilter --version)" "txtfilter (tracepipe) *" "--version"

txtfilter no-such-file > out.txt 2> err.txt
is "$?" 2 "missing input file: status 2"
like "$(cat err.txt)" "txtfilter: no-such-file*" "missing input file named"

# A bad value in a field the decision needs: status 2, file:line:col.
printf 'insn tid=1 pc=0x10\ninsn tid=x1 pc=0x20\ninsn tid=1 pc=0x30\n' > bad.txt
txtfilter --tid 1 bad.txt > out.txt 2> err.txt
is "$?" 2 "bad tid value: status 2"
is "$(cat err.txt)" 'txtfilter: bad.txt:2:10: field "tid": "x1" is not a number' "bad tid value: where and what"
is "$(cat out.txt)" "insn tid=1 pc=0x10" "lines before the bad one are written"
txtfilter --tid 1 < bad.txt > /dev/null 2> err.txt
like "$(cat err.txt)" "txtfilter: <stdin>:2:*" "stdin named <stdin>"
txtfilter --addr 0x10 bad.txt > /dev/null 2>&1
is "$?" 0 "a bad value in a field not looked at is no error"
printf 'write tid=1 pc=zz addr=0x8\n' > badpc.txt
txtfilter --addr 0x8 badpc.txt > /dev/null 2> err.txt
is "$?:$(cat err.txt)" '2:txtfilter: badpc.txt:1:16: field "pc": "zz" is not a number' "bad pc value"
printf 'event tid=1 ts="5"\n' > badts.txt
txtfilter --ts 5 badts.txt > /dev/null 2> err.txt
is "$?" 2 "a quoted ts is not a number"
printf 'event tid=-1\n' | txtfilter --tid 1 > /dev/null 2>&1
is "$?" 2 "a negative tid is an error"

# -o: an error leaves no output file behind.
txtfilter --tid 1 -o out2.txt bad.txt 2> /dev/null
is "$? $(ls out2.txt* 2>/dev/null)" "2 " "-o: no file on error"
txtfilter --tid 1 -o out3.txt in.txt
is "$? $(cat out3.txt)" "0 insn tid=1 pc=0x10" "-o FILE"

# The line grammar txtfilter relies on: a NUL byte (binary data) or a kind
# that is no kind is an error with line and column, exit 2; a kind one
# letter from a shared kind passes, said once.
printf 'insn tid=1 pc=0x10\nwrite tid=1\000 addr=0x4\n' | txtfilter --tid 1 > out.txt 2> err.txt
is "$? $(cat err.txt)" "2 txtfilter: <stdin>:2:12: a NUL byte: binary data, not trace text" \
    "a NUL byte: error with line and column, exit 2"
is "$(cat out.txt)" "insn tid=1 pc=0x10" "a NUL byte: the lines before are written"
printf 'insn tid=1\nT0|begin|0\n' | txtfilter > /dev/null 2> err.txt
is "$? $(cat err.txt)" "2 txtfilter: <stdin>:2:3: \"T0|begin|0\" is not a record kind (letters, digits, '_', '.' and '-')" \
    "STD text is not trace text: error at the first character that is no kind's"
printf 'TRAC\023\000\000\000{"ver":1}\000\001' > bin.trace
txtfilter --tid 1 bin.trace > /dev/null 2> err.txt
is "$? $(cat err.txt)" "2 txtfilter: bin.trace: offset 0x0: this is an x64dbg trace (TRAC), not trace text; use trac2txt" \
    "a binary trace: exit 2, its format and decoder named"
printf 'acquir tid=1 lock=2\nacquire tid=1 lock=2\nrelase tid=1 lock=2\n' > typo.txt
txtfilter --tid 1 typo.txt > out.txt 2> err.txt
is "$? $(cat err.txt)" "0 txtfilter: typo.txt:1: kind \"acquir\" is not \"acquire\": passed on as a structure record (2 such lines)" \
    "a misspelled shared kind: one warning with the first line and the count"
is "$(wc -l < out.txt | tr -d ' ')" 3 "misspelled kinds pass, as structure records do"
txtfilter -s --tid 1 typo.txt > /dev/null 2> err.txt
is "$(cat err.txt)" "" "-s: no warning (-q is grep's quiet)"
printf 'trac-header arch=x64\nrapidbin-end events=3\nstd-header operands=bare\n' | txtfilter --tid 1 2> err.txt | wc -l > n.txt
is "$(cat n.txt | tr -d ' ') $(cat err.txt)" "3 " "structure kinds pass without a word"

# A value the reader refuses hides the fields after it: txtfilter refuses
# the line as txtstat does (line, column, why), exit 2, rather than judge
# it with its ts or v unseen.
deep=$(awk 'BEGIN { for (i = 0; i < 70; i++) printf "["; printf "1";
	for (i = 0; i < 70; i++) printf "]" }')
printf 'event ts=0 tid=1\nevent v=%s ts=1 tid=1\n' "$deep" > deep.txt
want="txtfilter: deep.txt:2:74: lists and maps nested too deeply"
for e in 'ts == 1' 'has(v)' 'ts != 1'; do
	txtfilter -e "$e" deep.txt > out.txt 2> err.txt
	is "$? $(cat err.txt)" "2 $want" "nested deeper than 64: -e '$e' refuses the line"
done
txtfilter --ts 1 deep.txt > out.txt 2> err.txt
is "$? $(cat err.txt) $(cat out.txt)" "2 $want " "nested deeper than 64: --ts refuses it too, after no line"
txtstat deep.txt > /dev/null 2> err.txt
is "$(cat err.txt)" "txtstat: deep.txt:2:74: lists and maps nested too deeply" \
    "the same words as txtstat's reader"
printf 'event v="a ts=1 tid=1\n' | txtfilter --tid 1 > out.txt 2> err.txt
is "$? $(cat err.txt)" "2 txtfilter: <stdin>:1:22: unterminated string" \
    "an unterminated string before the field looked for: refused"
printf 'event ts=1 tid=1 v="a\n' | txtfilter --tid 1 > out.txt 2> err.txt
is "$? $(cat out.txt)" '0 event ts=1 tid=1 v="a' \
    "a bad value after the fields judged is not read (txtfilter reads what it judges)"

done_testing
