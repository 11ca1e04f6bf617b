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

# A header whose event count is not the number of events in the file (a
# writer stopped early, or one event more): the untouched stream comes
# back byte for byte (rapidbin-end says how many the file held), and a
# filtered one gets a correct header.
gen-rapidbin --events 3000 --seed 10 > e.bin
head -c $((18 + 8 * 2999)) e.bin > fewer.bin	# header says one more
{ cat e.bin; tail -c 8 e.bin; } > more.bin	# header says one fewer
head -c 18 e.bin > none.bin			# header says 3000, no event
for f in fewer more none; do
	rapidbin2txt -q $f.bin > $f.txt
	txt2rapidbin $f.txt > $f.back
	same_file $f.back $f.bin "header disagreeing with its events ($f): byte-exact round trip"
done
is "$(tail -n 1 fewer.txt)" "rapidbin-end events=2999" "fewer: rapidbin-end gives the events the file held"
is "$(grep -c rapidbin-end e.bin.txt 2>/dev/null || rapidbin2txt e.bin | grep -c rapidbin-end)" 0 \
    "no rapidbin-end where the header counts the events"
for f in fewer more; do
	grep -v ' tid=0 ' $f.txt > $f.f.txt
	n=$(grep -vc '^rapidbin-' $f.f.txt)
	txt2rapidbin $f.f.txt > $f.f.bin
	rapidbin2txt --strict $f.f.bin > /dev/null
	is "$? $(rapidbin2txt $f.f.bin | head -1 | sed 's/.*events=//')" "0 $n" \
	    "header disagreeing ($f), filtered: a correct header (passes --strict)"
done
# Filtered to exactly the header's count: still counted again.
head -n 3000 more.txt > same.txt	# header, 2999 events: the header's count
txt2rapidbin same.txt | rapidbin2txt --strict > /dev/null
ok $? "filtered to the header's count while rapidbin-end says more: recounted"

# --allow-truncated: a cut last event ends the trace quietly; without it,
# exit 1 after the whole events.
{ cat e.bin; printf 'abc'; } > cut.bin
rapidbin2txt cut.bin > cut.txt 2> err.txt
like "$? $(cat err.txt)" "1 rapidbin2txt: cut.bin: offset 0x5dd2, event 3000: truncated event: 3 trailing bytes after the last whole event" \
    "a cut last event: exit 1"
rapidbin2txt --allow-truncated cut.bin 2> err.txt | txt2rapidbin > cut.back
is "$? $(cat err.txt)" "0 " "--allow-truncated: quiet"
same_file cut.back e.bin "--allow-truncated: the whole events round-trip"
rapidbin2txt -t -v cut.bin 2>&1 > /dev/null | grep -q "trace cut at offset 0x5dd2: 3 trailing bytes dropped"
ok $? "-t -v: the cut is noted"
done_testing
