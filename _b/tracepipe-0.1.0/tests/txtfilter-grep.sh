#!/bin/sh
# txtfilter's grep habits: several FILE operands with -H/-h file-name
# prefixes, -v inverts (verbose is --verbose), -c per file, -m N, -l, the
# exit status over several files, compared with what grep itself does on
# the same files where the two must agree.
. "$srcdir/tests/tap.sh"

printf '# a\nrapidbin-header threads=2\nread tid=1 var=1\nwrite tid=2 var=1\nread tid=1 var=2\n' > a.txt
printf 'write tid=2 var=3\nwrite tid=1 var=3\n' > b.txt
printf '# nothing here for tid 1\nwrite tid=3 var=9\n' > c.txt

txtfilter -t 1 a.txt b.txt > got.txt
is "$(cat got.txt)" "a.txt:# a
a.txt:rapidbin-header threads=2
a.txt:read tid=1 var=1
a.txt:read tid=1 var=2
b.txt:write tid=1 var=3" "two files: each line after its file name"
grep -e '^#' -e '^rapid' -e 'tid=1 ' a.txt b.txt > want.txt
same_file got.txt want.txt "two files: the prefixes are grep's"
is "$(txtfilter -h -t 1 a.txt b.txt | head -1)" "# a" "-h: no file names"
is "$(txtfilter --no-filename -t 1 a.txt b.txt | wc -l | tr -d ' ')" 5 "--no-filename"
is "$(txtfilter -H -t 2 b.txt)" "b.txt:write tid=2 var=3" "-H: the name with one file"
is "$(txtfilter --with-filename -t 2 < b.txt)" "(standard input):write tid=2 var=3" "-H on stdin: grep's (standard input)"
is "$(txtfilter -t 2 a.txt - < b.txt | tail -1)" "(standard input):write tid=2 var=3" "- among files is stdin"

is "$(txtfilter -c -t 1 a.txt b.txt c.txt)" "a.txt:2
b.txt:1
c.txt:0" "-c: a count per file"
is "$(txtfilter -c -h -t 1 a.txt b.txt)" "2
1" "-c -h: counts alone"
is "$(txtfilter -c -t 1 a.txt)" 2 "-c, one file: the count alone"

is "$(txtfilter -l -t 1 a.txt b.txt c.txt)" "a.txt
b.txt" "-l: the files with a selected record"
txtfilter -l -t 9 a.txt b.txt > got.txt
is "$?:$(cat got.txt)" "1:" "-l with nothing selected: status 1"
is "$(txtfilter --files-with-matches -e 'var == 9' a.txt b.txt c.txt)" "c.txt" "-l with -e"

is "$(txtfilter -m 1 -t 1 a.txt b.txt)" "a.txt:# a
a.txt:rapidbin-header threads=2
a.txt:read tid=1 var=1
b.txt:write tid=1 var=3" "-m 1: stops after one selected record per file"
is "$(txtfilter -c -m 1 -t 1 a.txt)" 1 "-c -m 1 counts one"
txtfilter -m 0 -t 1 a.txt > got.txt
is "$?:$(cat got.txt)" "1:" "-m 0 reads nothing: status 1"
is "$(txtfilter --max-count=2 -h a.txt b.txt | grep -c tid=)" 4 "--max-count=2 over two files"

is "$(txtfilter -v -t 1 a.txt)" "# a
rapidbin-header threads=2
write tid=2 var=1" "-v inverts as in grep"
is "$(txtfilter -N -t 1 a.txt | tail -1)" "write tid=2 var=1" "-N still inverts"
is "$(txtfilter --invert-match -c -t 1 a.txt b.txt c.txt)" "a.txt:1
b.txt:1
c.txt:1" "--invert-match with -c"
txtfilter --verbose -t 1 a.txt > /dev/null 2> err.txt
is "$(cat err.txt)" "txtfilter: a.txt: 2 selected, 1 rejected, 2 passed" "--verbose reports the counts"
txtfilter -h -t 1 a.txt > /dev/null 2> err.txt
is "$(cat err.txt)" "" "-h is not --help"
like "$(txtfilter --help | head -1)" "Usage: txtfilter *" "--help"

# Status over several files: 0 if any file had a selected record, 1 if
# none did, 2 if an input failed (the others are still read, as grep).
txtfilter -q -t 3 a.txt c.txt > /dev/null
is "$?" 0 "a selection in the last file: status 0"
txtfilter -q -t 7 a.txt b.txt > /dev/null
is "$?" 1 "no selection in any file: status 1"
txtfilter -t 1 a.txt missing.txt b.txt > got.txt 2> err.txt
is "$?" 2 "a missing file: status 2"
like "$(cat err.txt)" "txtfilter: missing.txt: cannot open*" "a missing file is named"
is "$(grep -c tid= got.txt)" 3 "a missing file: the other files are still read"
printf 'read tid=1\nread tid=x\nread tid=1\n' > bad.txt
txtfilter -t 1 bad.txt b.txt > got.txt 2> err.txt
is "$?:$(cat err.txt)" '2:txtfilter: bad.txt:2:10: field "tid": "x" is not a number' "bad input in one file: status 2, where"
is "$(cat got.txt)" "bad.txt:read tid=1
b.txt:write tid=1 var=3" "bad input: its valid prefix and the next file"
rm -f out.txt
txtfilter -t 1 -o out.txt bad.txt b.txt 2> /dev/null
is "$? $(ls out.txt* 2>/dev/null)" "2 " "-o: no file when one input failed"
txtfilter -t 1 -o out.txt a.txt b.txt
is "$(wc -l < out.txt | tr -d ' ')" 5 "-o with several inputs"

# gzip inputs among plain ones.
gzip -c b.txt > b.txt.gz
is "$(txtfilter -c -t 1 a.txt b.txt.gz)" "a.txt:2
b.txt.gz:1" "a gzip input among plain ones"

done_testing
