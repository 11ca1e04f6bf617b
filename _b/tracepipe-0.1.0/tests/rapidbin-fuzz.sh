#!/bin/sh
# Replays the RapidBin fuzz harness over the test files, the corpus, and
# damaged variants of them (every harness path: decode, strict decode,
# encode, --dense --meta, STD both ways).
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/rapidbin
C=$(corpus rapidbin)

set -- "$D"/*
if [ -n "$C" ]; then
	set -- "$@" "$C"/spd-deadlock-benchmarks/Bensalem.data "$C"/synthetic/* \
	    "$C"/std/Bensalem.spd-flavor.std "$C"/decoded/Deadlock.decoded.std
fi
fuzz-rapidbin "$@"
ok $? "fuzz-rapidbin replays $# test files"

# Damaged inputs: prefixes, bytes flipped, text with odd values.
n=0
gen-rapidbin --events 30 --seed 31 --odd > g.bin
for k in 0 1 9 17 18 19 25 26 100 200; do
	head -c "$k" g.bin > "p$k"
	n=$((n + 1))
done
i=0
while [ "$i" -lt 30 ]; do
	{ head -c $((18 + 8 * i + i % 8)) g.bin; printf '\377\360'; tail -c +$((21 + 8 * i + i % 8)) g.bin; } > "f$i"
	i=$((i + 1))
	n=$((n + 1))
done
printf 'read tid=18446744073709551615 addr=0xffffffffffffffff size=18446744073709551615 pc=0xffffffffffffffff\nfork tid=1 child=99999999999\nbegin tid=0 decor=17179869183 bit63=1\n' > t1
printf 'T1|acq(L18446744073709551615)|18446744073709551615\nT99999999999999999999|r(V1)|1\n' > t2
printf 'rapidbin-header threads=65535 locks=4294967295 vars=4294967295 events=18446744073709551615\n' > t3
fuzz-rapidbin p* f* t1 t2 t3
ok $? "fuzz-rapidbin replays $((n + 3)) damaged inputs"
done_testing
