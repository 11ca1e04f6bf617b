#!/bin/sh
# rapidbin2txt on damaged input: truncation at every length, corrupt
# headers, invalid operations, --strict.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/rapidbin
C=$(corpus rapidbin)

# Every prefix: exit 1, a diagnostic with the offset after the valid
# events, and the text of exactly those events.
prefixes() {	# FILE NAME
	f=$1
	rapidbin2txt -q "$f" > full.txt
	size=$(wc -c < "$f")
	k=0 bad=0
	while [ "$k" -lt "$size" ]; do
		head -c "$k" "$f" > p.bin
		rapidbin2txt p.bin > p.txt 2> p.err
		rc=$?
		if [ "$k" -lt 18 ]; then
			lines=0 want="*offset 0x0:*" wantrc=1
		elif [ $(((k - 18) % 8)) -eq 0 ]; then
			# Cut between events: lenient, but warned about.
			n=$(((k - 18) / 8))
			lines=$((n + 1)) wantrc=0
			want="*the file ends after $n events (truncated?)"
		else
			wantrc=1
			n=$(((k - 18) / 8))
			lines=$((n + 1))
			want="*offset $(printf '0x%x' $((18 + 8 * n))), event $n: truncated event*"
		fi
		got=$(wc -l < p.txt | tr -d ' ')
		head -n "$lines" full.txt | cmp -s - p.txt || { bad=$((bad + 1)); echo "# prefix $k: output is not the prefix"; }
		[ "$rc" -eq "$wantrc" ] || { bad=$((bad + 1)); echo "# prefix $k: exit $rc"; }
		[ "$got" -eq "$lines" ] || { bad=$((bad + 1)); echo "# prefix $k: $got lines"; }
		case $(cat p.err) in
		$want) ;;
		*) bad=$((bad + 1)); echo "# prefix $k: $(cat p.err)" ;;
		esac
		k=$((k + 1))
	done
	is "$bad" 0 "$2: all $size proper prefixes: the valid events, then exit 1 with the offset (or a warning at an event boundary)"
}
prefixes "$D/allops.bin" allops.bin
gen-rapidbin --events 40 --seed 11 --odd > g.bin
prefixes g.bin "gen-rapidbin --odd"
if [ -n "$C" ]; then
	prefixes "$C/synthetic/wasmgrind_encoder_testvector.bin" "Wasmgrind vector"
else
	skip "no shared corpus" "Wasmgrind vector prefixes"
fi

# Headers.
: > empty.bin
rapidbin2txt empty.bin > out.txt 2> err.txt
is "$?" 1 "empty file: exit 1"
like "$(cat err.txt)" "rapidbin2txt: empty.bin: offset 0x0: empty input*" "empty file: diagnostic"
head -c 17 "$D/allops.bin" | rapidbin2txt > out.txt 2> err.txt
is "$?" 1 "17-byte header: exit 1"
is "$(cat err.txt)" "rapidbin2txt: <stdin>: offset 0x0: truncated header: needed 18 bytes, only 17 left" "17-byte header: diagnostic"
is "$(wc -c < out.txt | tr -d ' ')" 0 "17-byte header: no output"
printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' | rapidbin2txt > out.txt
is "$?:$(cat out.txt)" "0:rapidbin-header threads=65535 locks=4294967295 vars=4294967295 events=18446744073709551615" \
    "all-ones header: raw values, lenient"
printf '\000\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\005' | rapidbin2txt --strict > out.txt 2> err.txt
is "$?" 1 "--strict: header says 5 events, file has none: exit 1"
like "$(cat err.txt)" "*offset 0x12: strict: the header says events=5, the trace has 0 events" "--strict: event count message"

# The sign bit of every header count: printed as stored, cleared before
# any comparison, as every reader clears it.
{ printf '\200\002\200\000\000\001\200\000\000\000\200\000\000\000\000\000\000\002'; head -c 34 "$D/allops.bin" | tail -c 16; } > sign.bin
rapidbin2txt sign.bin > out.txt 2> err.txt
is "$?:$(head -1 out.txt):$(cat err.txt)" "0:rapidbin-header threads=32770 locks=2147483649 vars=2147483648 events=9223372036854775810:" \
    "sign bits set: raw counts in the header record, no warning for 2 of 2 events"
rapidbin2txt --strict sign.bin > /dev/null
ok $? "sign bits set: --strict compares 2 threads, 1 lock, 0 variables, 2 events"
txt2rapidbin out.txt | cmp -s - sign.bin
ok $? "sign bits set: byte-identical round trip"
head -c 26 sign.bin | rapidbin2txt > /dev/null 2> err.txt
is "$(cat err.txt)" "rapidbin2txt: the header says events=2 but the file ends after 1 events (truncated?)" \
    "sign bits set: a short file is measured against the cleared count"

# Operations 10-15 are invalid: the event before is printed.
for op in 10 11 12 13 14 15; do
	hi=$(printf '\\%03o' $((op * 4)))
	{ head -c 26 "$D/allops.bin"; printf "\\000\\000\\000\\000\\000\\000$hi\\000"; } > op.bin
	rapidbin2txt op.bin > out.txt 2> err.txt
	rc=$?
	is "$rc:$(cat err.txt)" "1:rapidbin2txt: op.bin: offset 0x1a, event 1: invalid operation $op (valid: 0-9)" "op $op: exit 1, offset and event index"
	head -2 "$D/allops.txt" | cmp -s - out.txt
	ok $? "op $op: the events before it are printed"
done

# --strict: Wasmgrind's rules.
rapidbin2txt --strict "$D/allops.bin" > out.txt 2> err.txt
is "$?" 1 "--strict: allops.bin fails"
like "$(cat err.txt)" "*offset 0x4a, event 7: strict: more distinct threads than the header's threads=4" "--strict: masked thread count exceeded"
is "$(wc -l < out.txt | tr -d ' ')" 8 "--strict: the events before the excess are printed"
if [ -n "$C" ]; then
	B=$C/spd-deadlock-benchmarks
	rapidbin2txt --strict "$B/Bensalem.data" > /dev/null 2> err.txt
	is "$?:$(cat err.txt)" "1:rapidbin2txt: $B/Bensalem.data: offset 0x232: strict: the header says locks=5, the trace has 4 distinct locks" \
	    "--strict: distinct+1 header of a real trace"
	rapidbin2txt "$B/Bensalem.data" > /dev/null
	ok $? "lenient by default: the same trace decodes"
	rapidbin2txt -v "$B/Bensalem.data" 2>&1 > /dev/null | grep 'trace:' > err.txt
	is "$(cat err.txt)" "rapidbin2txt: trace:  threads=4 locks=4 vars=4 events=68 (distinct ids)" "-v: distinct counts"
	rapidbin2txt --strict "$B/cache4j_dlf.data" > /dev/null
	ok $? "--strict: cache4j_dlf.data has exact counts"
else
	skip "no shared corpus" "--strict on real traces"
fi

# Extra events beyond the header's count are read (RAPID reads to EOF).
{ head -c 17 "$D/allops.bin"; printf '\001'; head -c 34 "$D/allops.bin" | tail -c 16; } > extra.bin
rapidbin2txt extra.bin > out.txt
is "$?:$(wc -l < out.txt | tr -d ' ')" "0:3" "lenient: events past the header's count are decoded"

# System errors.
rapidbin2txt no-such-file > out.txt 2> err.txt
is "$?" 2 "missing file: exit 2"
like "$(cat err.txt)" "rapidbin2txt: no-such-file: cannot open: *" "missing file: diagnostic"
rapidbin2txt --bogus < /dev/null > out.txt 2> err.txt
is "$?" 2 "unknown option: exit 2"
rapidbin2txt a b < /dev/null > out.txt 2> err.txt
is "$?" 2 "two operands: exit 2"
done_testing
