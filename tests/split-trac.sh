#!/bin/sh
# tracesplit on x64dbg traces: pieces start at full register dumps that
# store their thread id, with the JSON header copied.
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/split-check.sh"

# Where a piece starts is not the whole's: seq counts from 0 in each
# piece, and a thread's tprev= and ctx. fields (what a filter by thread
# needs, trace-text(5)) are the piece's.  The instructions, their
# registers and memory accesses are the whole's.
norm() {
	grep -v '^trac-' | sed -e 's/ seq=[0-9]*//' -e 's/ tprev=[0-9a-z]*//' \
	    -e 's/ ctx\.[^ ]*//g'
}

# Two sessions appended (the second restarts with a full dump), four
# threads, plugin blocks, a big one across the input buffer.
gen-trac --blocks 2100 --sessions 2 --threads 4 --user-blocks --seed 3 > a.trace64
gen-trac --arch x86 --blocks 3000 --threads 3 --big-user 300000 --seed 5 > b.trace32
# Full dumps come every 512 blocks: -l 1 cuts at each.
full='$1 == "insn" { n = 0; for (i = 1; i <= NF; i++) n += $i !~ /^ctx\./; print (n > 150) }'
dumps=$(trac2txt a.trace64 | awk "$full" | grep -c 1)
split_prop a trac2txt txt2trac norm a.trace64 -l 1
is "$pieces" "$dumps" "-l 1: one piece per full register dump"
for b in 1 200000 262144 262145 524288 524289; do
	split_prop a trac2txt txt2trac norm a.trace64 -b $b
done
split_prop b trac2txt txt2trac norm b.trace32 -n 3
like "$(ls pieces)" "*x-0000.trace32*" "pieces keep the input's extension (.trace32)"
split_prop b trac2txt txt2trac norm b.trace32 -b 300000
# Each piece's first block holds the thread id and is a full dump.
bad=0
for p in pieces/x-*; do
	[ "$(trac2txt "$p" | awk "$full" | head -1)" = 1 ] || bad=$((bad + 1))
done
is "$bad" 0 "every piece starts with a full register dump"
# A thread that comes back later in the piece reads as in the whole.
split_prop a trac2txt txt2trac norm a.trace64 -n 5
tracesplit -n 5 --piece 2 a.trace64 > p2.trace64
same_file p2.trace64 pieces/x-0002.trace64 "--piece 2 gives piece 2"
gzip -c a.trace64 > a.trace64.gz
tracesplit -n 5 --piece 2 a.trace64.gz > gz2.trace64
same_file gz2.trace64 pieces/x-0002.trace64 "--piece 2 of gzip input"

done_testing
