#!/bin/sh
# Replays the dial9 fuzz harness over the test files, the corpus, and
# damaged variants of them (decode, lenient decode, the input as text).
. "$srcdir/tests/tap.sh"
C=$(corpus dial9)

gen-dial9 --kinds | head -c 970 > kinds.bin
gen-dial9 --events 3000 --seed 9 > bulk.bin
dial92txt kinds.bin > kinds.txt
dial92txt bulk.bin > bulk.txt
set -- kinds.bin bulk.bin kinds.txt bulk.txt
for f in "$srcdir"/tests/fuzz-corpus/dial9/*; do
	[ -f "$f" ] && set -- "$@" "$f"
done
if [ -n "$C" ]; then
	set -- "$@" "$C"/edge/*.trc
	zcat "$C/block-in-place-small.trc.gz" > bip.bin
	set -- "$@" bip.bin "$C/block-in-place-small.trc.gz"
fi
fuzz-dial9 "$@"
ok $? "fuzz-dial9 replays $# inputs"

# Damaged inputs: bytes flipped through the trace, text with odd values.
n=0
i=0
while [ "$i" -lt 60 ]; do
	k=$((5 + i * 17))
	{ head -c "$k" kinds.bin; printf '\377'; tail -c +$((k + 2)) kinds.bin; } > "f$i"
	{ head -c "$k" kinds.bin; printf '\200'; tail -c +$((k + 2)) kinds.bin; } > "g$i"
	i=$((i + 1))
	n=$((n + 2))
done
sed 's/=[0-9][0-9]*/=18446744073709551616/' kinds.txt > t1
sed 's/ts=1 /ts=0 /; s/"/\\x/' kinds.txt > t2
sed '1d' kinds.txt > t3
grep '^event' bulk.txt > t4
printf 'event name=A x=1\nevent name=A x="s"\nevent name=A x=null\nevent name=A x=[1,2]\nevent name=A\n' > t5
fuzz-dial9 f* g* t1 t2 t3 t4 t5
ok $? "fuzz-dial9 replays $((n + 5)) damaged inputs"
done_testing
