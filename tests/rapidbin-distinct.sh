#!/bin/sh
# rapidbin2txt -v and -s count distinct ids in fixed memory: exactly up
# to 65536 of a kind, then by an estimate said to hold within 5 % (and
# marked ~).  The true counts come from gen-rapidbin's header, which it
# counts with its own bitmaps.
. "$srcdir/tests/tap.sh"

# vars: the header's variable count (bytes 6-9, big-endian).
vars() { od -An -tu1 -j6 -N4 "$1" | awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }'; }
# with_vars FILE N: FILE with its header's variable count set to N.
with_vars() {
	od -An -tu1 -N6 "$1" | awk -v n="$2" '{
		for (i = 1; i <= NF; i++) printf "\\%o", $i
		printf "\\%o\\%o\\%o\\%o", int(n / 16777216) % 256,
		    int(n / 65536) % 256, int(n / 256) % 256, n % 256
	}' > hdr.fmt
	# shellcheck disable=SC2059
	printf "$(cat hdr.fmt)"
	tail -c +11 "$1"
}
# estimate OUT: the vars= of the trace line of rapidbin2txt -v.
estimate() { sed -n 's/.*trace: *threads=[0-9]* locks=[0-9]* vars=\(~*[0-9]*\).*/\1/p' "$1"; }

# Below the bound: exact, and -s exact.
gen-rapidbin --events 200000 --ops rw --vars 60000 --threads 4 > few.bin
n=$(vars few.bin)
rapidbin2txt -v few.bin > /dev/null 2> err.txt
is "$?:$(estimate err.txt)" "0:$n" "-v: $n distinct variables (under 65536) counted exactly"
rapidbin2txt -s few.bin > /dev/null
ok $? "-s: the exact count equals the header's"
with_vars few.bin $((n + 1)) > few1.bin
rapidbin2txt -s few1.bin > /dev/null 2> err.txt
like "$?:$(cat err.txt)" "1:*strict: the header says vars=$((n + 1)), the trace has $n distinct variables" \
    "-s: a header one over an exact count is refused"

# Millions: estimated within 5 %, in fixed memory.
gen-rapidbin --events 4000000 --ops rw --vars 268435456 --threads 8 > many.bin
n=$(vars many.bin)
rapidbin2txt -v many.bin > many.txt 2> err.txt
rc=$?
e=$(estimate err.txt)
is "$rc:$(grep -c '^read\|^write' many.txt)" "0:4000000" "-v: 4,000,000 events decoded"
like "$e" "~*" "-v: $n distinct variables are counted as an estimate, marked ~"
e=${e#\~}
ok "$(awk -v e="${e:-0}" -v n="$n" 'BEGIN { d = e - n; if (d < 0) d = -d; exit !(d <= n * 0.05) }'; echo $?)" \
    "-v: the estimate $e is within 5 % of the true $n"
like "$(cat err.txt)" "*~: more than 65536 distinct ids of that kind, so the count is an estimate (HyperLogLog, 1.6 % standard error, within 5 %)*" \
    "-v: the output says the count is an estimate, and its bound"
rapidbin2txt -s many.bin > /dev/null 2> err.txt
like "$?:$(cat err.txt)" "0:*strict: more than 65536 distinct ids of a kind: the header's count was checked against an estimate, within 5 %" \
    "-s: the true header passes, and says the check was against an estimate"
with_vars many.bin $((n + n / 10)) > many10.bin
rapidbin2txt -s many10.bin > /dev/null 2> err.txt
like "$?:$(cat err.txt)" "1:*strict: the header says vars=$((n + n / 10)), the trace has about * distinct variables (an estimate past 65536, within 5 %)" \
    "-s: a header 10 % over the estimate is refused"

if rss_ok rapidbin2txt; then
	for opt in -v -s; do
		/usr/bin/time -o rss.txt -f %M rapidbin2txt $opt many.bin \
		    > /dev/null 2>&1
		kb=$(tail -n 1 rss.txt)
		ok "$([ "${kb:-999999}" -lt 16384 ]; echo $?)" \
		    "rapidbin2txt $opt on $n distinct variables: peak memory ${kb} KB, under 16 MB"
	done
else
	skip "no peak memory measure here (AddressSanitizer or no GNU time)" "-v and -s peak memory"
fi
done_testing
