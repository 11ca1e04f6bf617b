#!/bin/sh
# Byte-exact round trips rapidbin2txt | txt2rapidbin, real and synthetic.
. "$srcdir/tests/tap.sh"
C=$(corpus rapidbin)

roundtrip() {	# FILE NAME
	rapidbin2txt -q "$1" > rt.txt && txt2rapidbin rt.txt > rt.bin
	same_file rt.bin "$1" "$2: byte-identical round trip"
	rapidbin2txt -q rt.bin > rt2.txt
	same_file rt2.txt rt.txt "$2: text round trip"
}

if [ -n "$C" ]; then
	for f in "$C"/spd-deadlock-benchmarks/*.data \
	    "$C"/synthetic/wasmgrind_encoder_testvector.bin; do
		roundtrip "$f" "$(basename "$f")"
	done
	# Through pipes, the way it is used.
	f=$C/spd-deadlock-benchmarks/jigsaw.data
	cat "$f" | rapidbin2txt | txt2rapidbin | cat > pipe.bin
	same_file pipe.bin "$f" "jigsaw.data through pipes"
	# A gzip-compressed input decodes the same.
	if command -v gzip > /dev/null; then
		gzip -c "$f" > j.gz
		rapidbin2txt j.gz | txt2rapidbin > gz.bin
		same_file gz.bin "$f" "gzip-compressed input"
	else
		skip "no gzip" "gzip-compressed input"
	fi
	# Without the header record the counts are distinct ids (Wasmgrind).
	f=$C/spd-deadlock-benchmarks/Bensalem.data
	rapidbin2txt "$f" | grep -v '^rapidbin-header' | txt2rapidbin | rapidbin2txt | head -1 > h.txt
	is "$(cat h.txt)" "rapidbin-header threads=4 locks=4 vars=4 events=68" \
	    "Bensalem without its header: distinct counts"
else
	skip "no shared corpus" "corpus round trips"
fi

# Synthetic traces: Wasmgrind-like, SPD-like (distinct+1), every op with
# odd values (bit 63, begin decors, field maxima), random header bits.
for args in "--seed 1 --ops wasmgrind" "--seed 2 --header plus1" \
    "--seed 3 --odd" "--seed 4 --odd --header random" \
    "--seed 5 --vars 1073741824 --locks 1073741824" \
    "--seed 6 --events 0"; do
	gen-rapidbin --events 2000 $args > syn.bin
	roundtrip syn.bin "gen-rapidbin $args"
done

# Wasmgrind semantics: a filtered stream gets distinct counts, which for
# a --header distinct trace are exactly the stored ones.
gen-rapidbin --events 5000 --seed 9 --ops wasmgrind > w.bin
rapidbin2txt w.bin | grep -v rapidbin-header | txt2rapidbin > w2.bin
same_file w2.bin w.bin "headerless stream: distinct counts as Wasmgrind writes them"
rapidbin2txt --strict w.bin > /dev/null
ok $? "gen-rapidbin --ops wasmgrind passes --strict"

# A stream filtered by thread is encoded with a recounted header.
rapidbin2txt w.bin | grep -E '^rapidbin-header|tid=3 ' > f.txt
txt2rapidbin -v f.txt 2> f.err > f.bin
like "$(cat f.err)" "*header counted again*" "filtered stream: header recounted (-v says so)"
n=$(($(wc -l < f.txt) - 1))
is "$(rapidbin2txt f.bin | head -1 | sed 's/.*events=//')" "$n" "filtered stream: event count"
rapidbin2txt --strict f.bin > /dev/null
ok $? "a recounted header passes --strict"
done_testing
