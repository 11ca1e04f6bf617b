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

# A closed pipe ends trac2txt quietly.
gen-trac --size-mb 3 --seed 20 > big.trace
trac2txt big.trace 2> err.txt | head -1 > /dev/null
is "$(cat err.txt)" "" "trac2txt big | head -1: no diagnostic"
trac2txt big.trace | txt2trac 2> err.txt | head -c 10 > /dev/null
is "$(cat err.txt)" "" "txt2trac | head -c 10: no diagnostic"
done_testing
