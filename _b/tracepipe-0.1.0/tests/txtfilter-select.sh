#!/bin/sh
# txtfilter: every selector alone and combined, range edges, --invert, -c,
# pass-through of comments, blank lines and structure records.
. "$srcdir/tests/tap.sh"

cat > in.txt <<'END'
# a comment tid=1
trac-header arch=x64 json="{\"ver\":1,\"arch\":\"x64\"}"
insn seq=0 tid=4660 pc=0x401000 bytes=4889e5 rax=0x1 rip=0x401000
read tid=4660 seq=0 pc=0x401000 addr=0x14fe28 size=8 old=0x0
write tid=4661 seq=1 pc=0x401003 addr=0x14fe30 size=8 old=0x0 new=0x5

trac-user type=0x80 data=00ff
rapidbin-header threads=4 locks=1 vars=1 events=9
acquire tid=0 lock=0 loc=362
fork tid=0 child=1 loc=42
event ts=1773850000000012345 tid=3 name="poll" value="a tid=42 inside a string"
event ts=1773850000000012346 tid=42 name="x y" value="pc=0x401000 tid=3"
branch tid=7 pc=0x402000
END

# run ARGS...: the selected lines, with the status appended as "status N".
run() {
	txtfilter "$@" in.txt > out.txt 2> err.txt
	echo "status $?" >> out.txt
	cat out.txt
}
# kinds ARGS...: just the kinds of the shared-kind records written.
kinds() {
	txtfilter "$@" in.txt | awk '/^(insn|read|write|acquire|release|request|fork|join|begin|end|branch|event) /{ printf "%s%s", s, $1 " " $2; s = "," } END { print "" }'
}
PASS='# a comment tid=1
trac-header arch=x64 json="{\"ver\":1,\"arch\":\"x64\"}"

trac-user type=0x80 data=00ff
rapidbin-header threads=4 locks=1 vars=1 events=9'

# The structure lines in their places, whatever is selected.
structure() { grep -v -E '^(insn|read|write|acquire|fork|event|branch) ' "$1"; }

txtfilter < in.txt > all.txt
ok $? "no selector: status 0"
same_file all.txt in.txt "no selector: the input unchanged"

txtfilter --tid 1 in.txt > t1.txt
is "$?" 1 "--tid 1: nothing selected, status 1"
is "$(cat t1.txt)" "$PASS" "--tid 1 keeps comments, blank lines and headers"

is "$(kinds --tid 4660)" "insn seq=0,read tid=4660" "--tid one thread"
is "$(kinds --tid 42)" "event ts=1773850000000012346" "--tid 42: a quoted \" tid=42\" does not match"
is "$(kinds -t 4660,4661)" "insn seq=0,read tid=4660,write tid=4661" "-t list"
is "$(kinds --tid 0-3)" "acquire tid=0,fork tid=0,event ts=1773850000000012345" "--tid range, edges included"
is "$(kinds --tid 1-3)" "event ts=1773850000000012345" "--tid range, upper edge"
is "$(kinds --tid 4661-)" "write tid=4661" "--tid open upper end"
is "$(kinds --tid -0)" "acquire tid=0,fork tid=0" "--tid open lower end"
is "$(kinds --tid 7 --tid 3)" "event ts=1773850000000012345,branch tid=7" "--tid repeated widens"
is "$(kinds --tid 0x1234)" "insn seq=0,read tid=4660" "--tid in hex"
is "$(kinds --tid 4659+2)" "insn seq=0,read tid=4660" "--tid START+COUNT"

is "$(kinds --addr 0x401000)" "insn seq=0,read tid=4660" "--addr one address matches pc"
is "$(kinds --addr 0x14fe30)" "write tid=4661" "--addr matches addr"
is "$(kinds --addr 0x401001-0x401003)" "write tid=4661" "--addr range, upper edge included"
is "$(kinds --addr 0x401003-0x402000)" "write tid=4661,branch tid=7" "--addr range, both edges included"
is "$(kinds --addr 0x401000-0x401002)" "insn seq=0,read tid=4660" "--addr range, lower edge included"
is "$(kinds --addr 0x401000+3)" "insn seq=0,read tid=4660" "--addr START+LEN excludes START+LEN"
is "$(kinds --addr 0x401000+4)" "insn seq=0,read tid=4660,write tid=4661" "--addr START+LEN"
is "$(kinds --addr 0x14fe28-0x14fe2f,0x402000)" "read tid=4660,branch tid=7" "--addr list"
is "$(kinds --addr 0x401000 --tid 4661)" "" "--addr and --tid together"
is "$(kinds -a 0x401000-0x401003 -t 4661)" "write tid=4661" "-a and -t together"

is "$(kinds --type insn)" "insn seq=0" "--type one kind"
is "$(kinds --type insn,write)" "insn seq=0,write tid=4661" "--type list"
is "$(kinds --kind event -t 3)" "event ts=1773850000000012345" "--kind with --tid"
is "$(kinds -k read,write -a 0x14fe30)" "write tid=4661" "--type with --addr"
is "$(kinds -k fork,acquire,branch)" "acquire tid=0,fork tid=0,branch tid=7" "--type sync kinds"

is "$(kinds --ts 1773850000000012345)" "event ts=1773850000000012345" "--ts one instant"
is "$(kinds --ts 1773850000000012345-1773850000000012346)" "event ts=1773850000000012345,event ts=1773850000000012346" "--ts range, edges included"
is "$(kinds --ts 1773850000000012346-)" "event ts=1773850000000012346" "--ts open end"
is "$(kinds --ts -1773850000000012345)" "event ts=1773850000000012345" "--ts open start"
is "$(kinds --ts 1773850000000012346+1)" "event ts=1773850000000012346" "--ts START+LEN"
is "$(kinds --ts 0-)" "event ts=1773850000000012345,event ts=1773850000000012346" "--ts: records without ts do not match"
is "$(kinds --ts 0- --tid 42 --type event)" "event ts=1773850000000012346" "three selectors together"

is "$(kinds --invert --tid 4660)" "write tid=4661,acquire tid=0,fork tid=0,event ts=1773850000000012345,event ts=1773850000000012346,branch tid=7" "--invert --tid"
is "$(kinds -N --ts 0-)" "insn seq=0,read tid=4660,write tid=4661,acquire tid=0,fork tid=0,branch tid=7" "-N: records lacking the field are selected"
txtfilter --invert in.txt > inv.txt
is "$?" 1 "--invert with no selector selects nothing: status 1"
is "$(cat inv.txt)" "$PASS" "--invert keeps the structure lines"
txtfilter -N -t 4660 in.txt > inv2.txt
is "$(structure inv2.txt)" "$PASS" "--invert: structure lines in place"

is "$(run -c)" "8
status 0" "-c counts every shared-kind record"
is "$(run -c --tid 4660)" "2
status 0" "-c --tid"
is "$(run --count --tid 99)" "0
status 1" "--count with nothing selected: 0 and status 1"
is "$(run -c -N --tid 4660)" "6
status 0" "-c --invert"

# CRLF lines are judged without the CR and written unchanged.
printf 'insn tid=1 pc=0x10\r\nread tid=2 pc=0x20 addr=0x30\r\n# c\r\n' > crlf.txt
txtfilter --tid 2 crlf.txt > crlf.out
printf 'read tid=2 pc=0x20 addr=0x30\r\n# c\r\n' > crlf.want
same_file crlf.out crlf.want "CRLF lines pass unchanged"
is "$(txtfilter -c --addr 0x30 crlf.txt)" 1 "CRLF: the last field is read without the CR"

# A last line without a newline is judged and gets one.
printf 'insn tid=1 pc=0x10\ninsn tid=2 pc=0x20' > nonl.txt
is "$(txtfilter --tid 2 nonl.txt | od -c | head -2 | tr -s ' ')" "$(printf 'insn tid=2 pc=0x20\n' | od -c | head -2 | tr -s ' ')" "last line without a newline"

# Blanks: tabs and runs of blanks, kinds only at the start.
printf 'insn\ttid=5  pc=0x1\n  insn tid=5 pc=0x2\nxinsn tid=5\n\t\n' > blanks.txt
is "$(txtfilter -c -t 5 blanks.txt)" 2 "tabs and runs of blanks between fields"
is "$(txtfilter -t 6 blanks.txt | wc -l | tr -d ' ')" 2 "unknown kinds and blank lines pass"

# A field whose name ends like another (rip=, xtid=) is not that field.
printf 'insn xtid=1 rip=0x10 tid=2\n' > names.txt
is "$(txtfilter -c -t 1 names.txt)" 0 "xtid= is not tid="
is "$(txtfilter -c -a 0x10 names.txt)" 0 "rip= is not pc="

# A null value counts as absent.
printf 'event tid=1 ts=null\n' > null.txt
is "$(txtfilter -c --ts 0- null.txt; echo $?)" "0
1" "ts=null does not match and is no error"

done_testing
