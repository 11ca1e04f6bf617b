#!/bin/sh
# rapidbin2txt golden tests: hand-made files and the real corpus.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/rapidbin
C=$(corpus rapidbin)

rapidbin2txt "$D/allops.bin" > out.txt 2> err.txt
ok $? "allops.bin decodes"
same_file out.txt "$D/allops.txt" "allops.bin: every op, bit 63, begin decor, raw header"
like "$(cat err.txt)" "*2 events have bit 63 set*" "bit 63 is warned about"
rapidbin2txt -q "$D/allops.bin" > /dev/null 2> err.txt
is "$(cat err.txt)" "" "-q silences the bit 63 warning"
txt2rapidbin "$D/allops.txt" > out.bin
same_file out.bin "$D/allops.bin" "allops.txt encodes to allops.bin"

if [ -z "$C" ]; then
	skip "no shared corpus" "Wasmgrind test vector"
	skip "no shared corpus" "Wasmgrind vector as STD"
	skip "no shared corpus" "decoded/*.decoded.std"
	skip "no shared corpus" "decoded/*.decoded.std through std2txt"
	done_testing
fi
V=$C/synthetic/wasmgrind_encoder_testvector
rapidbin2txt "$V.bin" > vec.txt
same_file vec.txt "$D/wasmgrind-vector.txt" "Wasmgrind test vector decodes as checked by hand"
txt2std --all vec.txt > vec.std
same_file vec.std "$V.wasmgrind-std.txt" "Wasmgrind vector as STD equals Wasmgrind's STD encoder test"
rapidbin2txt --strict "$V.bin" > /dev/null
ok $? "Wasmgrind vector passes --strict"
for f in "$C"/spd-deadlock-benchmarks/*.data; do
	b=$(basename "$f" .data)
	rapidbin2txt "$f" | txt2std --all > "$b.std"
	same_file "$b.std" "$C/decoded/$b.decoded.std" "$b: decoded text matches decoded/$b.decoded.std"
	# The other way round, apart from txt2std: the independent decode
	# read by std2txt equals the decoder's records, event by event.
	std2txt "$C/decoded/$b.decoded.std" > "$b.want.txt"
	rapidbin2txt "$f" | tail -n +2 > "$b.got.txt"
	same_file "$b.got.txt" "$b.want.txt" "$b: rapidbin2txt's records equal std2txt of decoded/$b.decoded.std"
	n=$(($(wc -l < "$C/decoded/$b.decoded.std") + 1))
	is "$(rapidbin2txt "$f" | wc -l | tr -d ' ')" "$n" "$b: one line per event plus the header"
done
done_testing
