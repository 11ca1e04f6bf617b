#!/bin/sh
# trac2txt | txt2trac gives back the input byte for byte (design principle
# 2), for traces made by gen-trac as x64dbg's writer makes them; and
# txt2trac | trac2txt gives back the text.
. "$srcdir/tests/tap.sh"

# roundtrip NAME GEN-ARGS [TRAC2TXT-ARGS]
roundtrip() {
	name=$1 args=$2 dec=${3:-}
	# shellcheck disable=SC2086
	gen-trac $args > in.trace || { ok 1 "$name: gen-trac"; return; }
	# shellcheck disable=SC2086
	if trac2txt $dec in.trace > out.txt && txt2trac out.txt > back.trace; then
		same_file back.trace in.trace "$name: byte-exact round trip"
	else
		ok 1 "$name: round trip ran"
	fi
}

for seed in 1 2 3; do
	roundtrip "x64 seed $seed" "--arch x64 --blocks 1200 --seed $seed"
	roundtrip "x86 seed $seed" "--arch x86 --blocks 1200 --seed $seed"
done
roundtrip "x64 threads" "--threads 5 --blocks 2000 --seed 4"
roundtrip "x86 threads" "--arch x86 --threads 9 --blocks 2000 --seed 5"
roundtrip "x64 appended sessions" "--sessions 4 --threads 2 --blocks 3000 --seed 6"
roundtrip "x86 appended sessions" "--arch x86 --sessions 3 --blocks 1600 --seed 7"
roundtrip "x64 user blocks" "--user-blocks --threads 3 --blocks 1500 --seed 8"
roundtrip "x86 user blocks" "--arch x86 --user-blocks --sessions 2 --blocks 1500 --seed 9"
roundtrip "x64 quirks" "--quirks --user-blocks --threads 4 --blocks 2000 --seed 10"
roundtrip "x86 quirks" "--arch x86 --quirks --threads 4 --blocks 2000 --seed 11"
for seed in 12 13 14 15; do
	roundtrip "x64 tid bug seed $seed" "--tid-bug --threads 4 --blocks 2000 --seed $seed" --repair-tid
	roundtrip "x86 tid bug seed $seed" "--arch x86 --tid-bug --threads 3 --user-blocks --blocks 2000 --seed $seed" --repair-tid
done
roundtrip "x64 user block of 3 MiB" "--big-user 3000000 --threads 2 --blocks 600 --seed 21"
roundtrip "x86 user block of exactly 1 MiB" "--arch x86 --big-user 1048576 --blocks 50 --seed 22"
roundtrip "x64 user block of 1 MiB + 1" "--big-user 1048577 --blocks 50 --seed 23"
# Around the input buffer (256 KiB): read in place or copied.
for n in 262139 262140 262144 262145; do
	roundtrip "x64 user block of $n bytes" "--big-user $n --blocks 5 --seed 24"
done
for seed in 16 17; do
	roundtrip "large x64 seed $seed" "--threads 6 --sessions 2 --user-blocks --size-mb 6 --seed $seed"
	roundtrip "large x86 seed $seed" "--arch x86 --threads 3 --size-mb 4 --seed $seed"
done

# The thread-id bug shows up without --repair-tid, and the repair does not
# change the reading of a file written without the bug.
gen-trac --tid-bug --threads 4 --blocks 2000 --seed 12 > bug.trace
trac2txt bug.trace > /dev/null 2> err.txt
is $? 1 "tid bug: exit 1 without --repair-tid"
like "$(cat err.txt)" "*offset 0x*, block *try --repair-tid)" "tid bug: diagnostic names the bug"
gen-trac --threads 4 --sessions 2 --blocks 3000 --seed 12 > good.trace
trac2txt good.trace > a.txt && trac2txt --repair-tid good.trace > b.txt
same_file b.txt a.txt "--repair-tid reads a fixed-writer file unchanged"

# The generated traces hold what the round trips are meant to cover: each
# count is taken from the text of one of the files above.
gen-trac --quirks --user-blocks --threads 4 --sessions 2 --blocks 2000 --seed 10 > c.trace
trac2txt c.trace > c.txt
count() { awk "$1" c.txt | wc -l | tr -d ' '; }
# fields after insn seq tid pc bytes that are slots (not tidstored, rsvd)
nregs='$1 == "insn" { n = 0; for (i = 6; i <= NF; i++) if ($i !~ /^(tidstored|rsvd)=/) n++ }'
for what in \
    "full dumps:$nregs \$1 == \"insn\" && n == 172" \
    "blocks without registers:$nregs \$1 == \"insn\" && n == 0" \
    "instructions with 32 accesses:\$1 == \"insn\" { if (c == 32) print; c = 0 } /^(read|write) / { c++ }" \
    "reads (unchanged):/^read /" "writes (changed):/^write /" \
    "memory flag bits 1-7:/^(read|write) .* flags=/" \
    "reserved block flag bits:/^insn .* rsvd=/" \
    "thread switches:\$1 == \"insn\" { if (\$3 != t) print; t = \$3 }" \
    "thread ids stored without need:/^insn .* tidstored=1/" \
    "full dumps without thread id:/^insn .* tidstored=0/" \
    "user blocks:/^trac-user /" "empty user blocks:/^trac-user .* data=\$/"; do
	n=$(count "${what#*:}")
	[ "$n" -gt 0 ]
	ok $? "the round-trip traces have ${what%%:*} ($n)"
done
same_file "$(txt2trac c.txt > c2.trace && echo c2.trace)" c.trace "and that one round-trips"
is "$(gen-trac --sessions 3 --blocks 3000 --seed 19 | trac2txt | grep -c '^trac-header')" 1 \
    "appended sessions: one header, no other"
gen-trac --tid-bug --threads 4 --blocks 2000 --seed 12 | trac2txt -r | grep -c 'tidstored=noflag' > n.txt
[ "$(cat n.txt)" -gt 10 ]
ok $? "the tid-bug traces have thread ids without flag ($(cat n.txt))"

# Text round trip: the text of a trace encodes and decodes to itself.
gen-trac --arch x86 --threads 3 --quirks --user-blocks --blocks 2000 --seed 18 > q.trace
trac2txt q.trace > q.txt
txt2trac q.txt | trac2txt > q2.txt
same_file q2.txt q.txt "txt2trac | trac2txt gives the text back"

# gzip input, file and stdin, -o.
gzip -c q.trace > q.trace.gz
trac2txt q.trace.gz > qz.txt
same_file qz.txt q.txt "gzip input decodes the same"
gzip -c q.txt | txt2trac -o qz.trace
same_file qz.trace q.trace "gzip text input encodes the same (-o FILE)"
trac2txt -o qo.txt < q.trace
same_file qo.txt q.txt "trac2txt -o FILE from stdin"

# Multi-session: full dumps restart with each session, seq runs on.
gen-trac --sessions 3 --blocks 3000 --seed 19 > s.trace
is "$(trac2txt s.trace | awk '$1 == "insn" && NF > 170 { printf "%s ", $2 }')" \
    "seq=0 seq=512 seq=1000 seq=1512 seq=2000 seq=2512 " \
    "sessions: full dumps restart at each of 3 sessions of 1000 blocks"

# A closed pipe ends trac2txt quietly: no diagnostic, status 0 or death
# by SIGPIPE (141 in the shell), as for every program (tests/cli.sh).
gen-trac --size-mb 3 --seed 20 > big.trace
{ trac2txt big.trace 2> err.txt; echo $? > rc.txt; } | head -1 > line.txt
is "$(cat err.txt)" "" "trac2txt big | head -1: no diagnostic"
case $(cat rc.txt) in 0|141) ok 0 "trac2txt big | head -1: status 0 or 141" ;;
*) ok 1 "trac2txt big | head -1: status 0 or 141 (got $(cat rc.txt))" ;; esac
is "$(cut -c1-12 line.txt)" "trac-header " "trac2txt big | head -1: the header line"
trac2txt big.trace > big.txt
{ txt2trac big.txt 2> err.txt; echo $? > rc.txt; } | head -c 10 > /dev/null
is "$(cat err.txt)" "" "txt2trac | head -c 10: no diagnostic"
case $(cat rc.txt) in 0|141) ok 0 "txt2trac | head -c 10: status 0 or 141" ;;
*) ok 1 "txt2trac | head -c 10: status 0 or 141 (got $(cat rc.txt))" ;; esac
done_testing
