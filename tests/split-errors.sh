#!/bin/sh
# tracesplit on hostile input and a bad command line: one line, the exit
# status of the conventions (1 bad input, 2 usage or system error).
. "$srcdir/tests/tap.sh"

gen-rapidbin --events 2000 --seed 1 > g.data
gen-trac --blocks 1100 > t.trace64

# Truncated input: the pieces before the fault stay, the one cut is removed.
head -c 12345 g.data > cut.data
tracesplit -l 500 cut.data cut 2> err.txt
st=$?
is "$st:$(cat err.txt)" "1:tracesplit: cut.data: offset 0x3032, event 1540: truncated event: 7 trailing bytes after the last whole event" "truncated RapidBin: one line, exit 1"
is "$(ls cut-* | tr '\n' ' ')" "cut-0000.data cut-0001.data cut-0002.data " "the whole pieces before the fault are kept"
head -c 30000 t.trace64 > cut.trace64
tracesplit -l 1 cut.trace64 ct 2> err.txt
st=$?
like "$st:$(cat err.txt)" "1:tracesplit: cut.trace64: offset 0x*, block *: truncated block*" "truncated x64dbg trace: one line, exit 1"
n=$(wc -l < err.txt)
is "$n" 1 "one line"

# Not a trace.
printf 'hello\n' > hello.txt
tracesplit -n 2 hello.txt h 2> err.txt
is "$?:$(cat err.txt)" "1:tracesplit: hello.txt: offset 0x0: not a trace format tracepipe knows" "a non-trace: exit 1"
tracesplit -n 2 trace-text.txt h 2> err.txt
is "$?" 2 "a missing file: exit 2"

# Usage errors.
tracesplit -n 0 g.data 2> err.txt
is "$?:$(head -1 err.txt)" "2:tracesplit: -n: '0' is not a positive number" "-n 0: exit 2"
tracesplit g.data 2> err.txt
is "$?:$(head -1 err.txt)" "2:tracesplit: give -n CHUNKS, -l RECORDS or -b SIZE" "no rule: exit 2"
tracesplit -n 2 -l 3 g.data 2> err.txt
is "$?:$(head -1 err.txt)" "2:tracesplit: give one of -n, -l and -b" "two rules: exit 2"
tracesplit -b 1X g.data 2> err.txt
is "$?:$(head -1 err.txt)" "2:tracesplit: -b: '1X' is not a positive size" "a bad size: exit 2"

# A PREFIX in a directory that does not exist.
tracesplit -n 2 g.data nodir/x 2> err.txt
is "$?:$(cat err.txt)" "2:tracesplit: nodir/x-0000.data: cannot create a temporary file in nodir: No such file or directory" "PREFIX in a missing directory: one line, exit 2"
is "$(ls | grep -c '^x-')" 0 "nothing written"

# --piece past the last piece: an empty output, said.
tracesplit -l 1000 --piece 5 g.data > p5.data 2> err.txt
is "$?:$(cat err.txt):$(wc -c < p5.data)" "0:tracesplit: g.data: 2 pieces: piece 5 is empty:0" "--piece past the end: empty, said"

done_testing
