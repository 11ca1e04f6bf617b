#!/bin/sh
# A thread-filtered x64dbg stream re-encodes into a trace in which every
# kept instruction has exactly the full register state it had in the
# original (trace-text(5): tprev= and ctx. fields), compared instruction
# by instruction with trac-states, a decoder of the test's own; and where
# lines inside a thread's run are missing, txt2trac says so once (count
# and first line), and --strict refuses.
. "$srcdir/tests/tap.sh"

# states TRACE [TID...]: the states of the instructions of those threads.
states() {
	f=$1; shift
	trac-states < "$f" > st.all || return 1
	awk -v list=" $* " 'index(list, " " $1 " ")' st.all
}

# check NAME TRACE TEXT TXT2TRAC-ARGS TID...: filtering TEXT by thread keeps
# the original states, with txtfilter and with grep, silently.
check() {
	name=$1 trace=$2 text=$3 args=$4; shift 4
	states "$trace" "$@" > want.st
	set -- $(printf ' --tid %s' "$@")
	# shellcheck disable=SC2086
	txtfilter "$@" "$text" | txt2trac $args > f.trace 2> err.txt
	is "$? $(cat err.txt)" "0 " "$name: txtfilter $*: encoded without a word"
	trac-states < f.trace > got.st
	same_file got.st want.st "$name: txtfilter $*: every instruction has its original registers ($(wc -l < want.st | tr -d ' ') compared)"
}

gen-trac --threads 3 --blocks 200000 --seed 31 > a.trace
trac2txt a.trace > a.txt
tids=$(trac-states < a.trace | cut -d' ' -f1 | sort -un)
set -- $tids
is "$#" 3 "x64: three threads"
for t in $tids; do
	check "x64" a.trace a.txt "" "$t"
done
check "x64 two of three" a.trace a.txt "" $1 $3
t=$2
states a.trace "$t" > want.st
grep " tid=$t " a.txt | txt2trac 2> err.txt | trac-states > got.st
same_file got.st want.st "x64: grep ' tid=$t ' keeps the original registers too"
is "$(cat err.txt)" "" "x64: grep: no warning"
txt2trac a.txt | cmp -s - a.trace
ok $? "x64: the unfiltered text still encodes byte for byte"

# Without the fields this design adds, the states differ: the test sees it.
sed 's/ ctx\.[^ ]*//g; s/ tprev=[^ ]*//' a.txt | txtfilter --tid "$t" |
    txt2trac 2>/dev/null | trac-states > old.st
cmp -s old.st want.st
is "$?" 1 "x64: without tprev= and ctx. fields the filtered states would differ"

gen-trac --arch x86 --threads 4 --sessions 2 --user-blocks --quirks \
    --blocks 100000 --seed 32 > b.trace
trac2txt b.trace > b.txt
for t in $(trac-states < b.trace | cut -d' ' -f1 | sort -un); do
	check "x86, sessions, user blocks, quirks" b.trace b.txt "-a x86" "$t"
done

# More threads than either side remembers (256): a thread that comes back
# after 299 others is written whole again.  The trace is made by txt2trac
# from text in which each thread sets rcx once and rax every round.
awk 'BEGIN {
	for (r = 1; r <= 3; r++)
		for (t = 1; t <= 300; t++)
			printf "insn tid=%d pc=0x%x bytes=90 rax=0x%x%s\n", 4 * t,
			    4096 + 16 * t + r, r, r == 1 ? sprintf(" rcx=0x%x", t) : ""
}' > many.txt
txt2trac many.txt > many.trace
trac2txt many.trace > many2.txt
check "300 threads" many.trace many2.txt "" 4 800 1200

# Lines missing inside a thread's run: said once, refused with --strict.
set -- $tids
t=$1
line=$(grep -n "^insn seq=[0-9]* tid=$t " a.txt | sed -n '100p' | cut -d: -f1)
seq=$(sed -n "${line}p" a.txt | sed 's/^insn seq=\([0-9]*\) .*/\1/')
txtfilter --tid "$t" a.txt | grep -v "^insn seq=$seq " | grep -v " seq=$seq pc=" > gap.txt
first=$(grep -n "^insn seq=$((seq + 1)) " gap.txt | cut -d: -f1)
txt2trac gap.txt 2> err.txt > /dev/null
like "$? $(cat err.txt)" "0 txt2trac: * instructions with registers that the stream does not give (lines of their thread are missing; first: line $first, * registers): their register state is a guess (--strict refuses)" \
    "a dropped instruction: warned once, with the count and the first line"
is "$(wc -l < err.txt | tr -d ' ')" 1 "one warning line"
txt2trac --strict gap.txt 2> err.txt > /dev/null
like "$? $(cat err.txt)" "1 txt2trac: gap.txt:$first: * registers of thread $t unknown: lines of its instructions before this one are missing" \
    "--strict: a dropped instruction is an error at the next one"
txt2trac -q gap.txt 2> err.txt > /dev/null
is "$? $(cat err.txt)" "0 " "-q: no warning"

done_testing
