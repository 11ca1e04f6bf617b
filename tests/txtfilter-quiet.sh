#!/bin/sh
# txtfilter -q against grep -q itself: the same exit status over the same
# file sets (a match, none, a missing file before or after the match),
# nothing on standard output, and reading stopped at the first selected
# record.  And --ts in every time spelling (seconds, units, UTC dates,
# lengths), its selections compared with ranges computed by python's
# calendar module and a separate selection in python; a time printed by
# txtcut --time (seconds, date) read back by --ts selects its records.
. "$srcdir/tests/tap.sh"

printf 'rapidbin-header threads=3\ninsn tid=1\ninsn tid=2\n' > a.txt
printf 'insn tid=3\n' > b.txt
printf 'insn tid=zz\ninsn tid=3\n' > bad.txt
printf 'insn tid=1\ninsn tid=zz\n' > late.txt

# quiet TID MSG FILES...: txtfilter -q's status and output, and grep -q's
# status for the same question (" tid=TID$" in the same files, in the
# same order); MSG "msg" when a diagnostic is wanted.
quiet() {
	tid=$1 msg=$2; shift 2
	txtfilter -q -t "$tid" "$@" > out.txt 2> err.txt; rc=$?
	grep -q " tid=$tid\$" "$@" 2>/dev/null; grc=$?
	is "$rc:$(wc -c < out.txt):$(test -s err.txt && echo msg)" \
	    "$grc:0:$msg" "-q -t $tid $*: status as grep -q's ($grc), nothing written"
}
quiet 1 '' a.txt
quiet 9 '' a.txt
quiet 3 '' a.txt b.txt
quiet 1 '' a.txt missing		# missing is never opened
quiet 3 msg missing b.txt		# 0 after an error, as grep -q
quiet 9 msg missing b.txt

# txtfilter's own errors, as grep -q treats unreadable input.
txtfilter -q -t 3 bad.txt b.txt > out.txt 2> err.txt; rc=$?
like "$rc:$(wc -c < out.txt):$(cat err.txt)" "0:0:txtfilter: bad.txt:1:*" \
    "-q: a bad line, then a selected record in a later input: 0, the error said"
txtfilter -q -t 9 bad.txt b.txt > out.txt 2> err.txt; rc=$?
is "$rc:$(wc -c < out.txt)" "2:0" "-q: a bad line and nothing selected: 2"
txtfilter -q -t 1 late.txt > out.txt 2> err.txt; rc=$?
is "$rc:$(wc -c < out.txt):$(wc -c < err.txt)" "0:0:0" \
    "-q: the bad line after the first selected record is not read"
for o in -c -l -H "-m 5" -v; do
	# shellcheck disable=SC2086
	txtfilter -q $o -t 1 a.txt b.txt > out.txt 2>&1; rc=$?
	is "$rc:$(wc -c < out.txt)" "0:0" "-q $o: still nothing written"
done
txtfilter --silent -t 2 a.txt > out.txt; rc=$?
is "$rc:$(wc -c < out.txt)" "0:0" "--silent is -q"
txtfilter -q -o never.txt a.txt 2> err.txt; rc=$?
like "$rc:$(head -n 1 err.txt)" "2:txtfilter: -q writes nothing: -o has no use with it" "-q -o: usage error"
# The first selected record ends the reading: an endless stream ends.
rc=$( { { printf 'insn tid=1\n'; yes 'insn tid=2'; } | timeout 20 txtfilter -q -t 1; echo $? >&3; } 3>&1 2>/dev/null)
is "$rc" 0 "-q stops reading at the first selected record (an endless input ends)"
rc=$( { yes 'insn tid=2' | head -n 200000 | txtfilter -q -t 1; echo $? >&3; } 3>&1)
is "$rc" 1 "-q reads to the end when nothing is selected"
like "$(txtfilter --help | grep -c -- '--quiet')" 1 "--help lists --quiet once"

# --ts in every spelling.  Records one every 0.3 s from 2026-03-18
# 16:06:40 UTC on, with a few nanoseconds and an untimed record.
if ! command -v python3 > /dev/null 2>&1; then
	skip "no python3" "--ts spellings"
	done_testing
fi
python3 -c '
base = 1773850000 * 10**9
for i in range(40):
    print("event ts=%d tid=%d n=%d" % (base + i * 300000000 + i % 3, i % 4, i))
print("event tid=9 n=untimed")
print("rapidbin-header threads=1")
' > t.txt

# want SPEC: the records whose ts is in the range SPEC names (lo hi as
# python computes them from the spelling by its own rules).
cat > want.py <<'EOF'
import sys, calendar, re
from decimal import Decimal
lo, hi = [int(x) for x in sys.argv[1:3]]
for line in open(sys.argv[3]):
    m = re.search(r' ts=(\d+)', line)
    if not line.startswith('event'):
        print(line, end='')
    elif m and lo <= int(m.group(1)) <= hi:
        print(line, end='')
EOF
date_ns() {
	python3 -c 'import sys, calendar
from decimal import Decimal
d, frac = (sys.argv[1].rstrip("Z") + ".").split(".")[:2]
import time
s = calendar.timegm(time.strptime(d, "%Y-%m-%dT%H:%M:%S"))
print(s * 10**9 + int((frac + "000000000")[:9]))' "$1"
}
B=1773850000000000000
M=18446744073709551615
d1=$(date_ns 2026-03-18T16:06:43.000000001Z)
d2=$(date_ns 2026-03-18T16:06:45.5)
while read -r spec lo hi; do
	txtfilter --ts "$spec" t.txt > got.txt 2> err.txt; rc=$?
	python3 want.py "$lo" "$hi" t.txt > want.txt
	n=$(grep -c '^event' want.txt)
	if [ "$rc:$(cat err.txt)" = "0:" ] || { [ "$rc" = 1 ] && [ "$n" = 0 ]; }; then
		same_file got.txt want.txt "--ts $spec: the records from $lo to $hi ($n)"
	else
		ok 1 "--ts $spec: status $rc"; sed 's/^/#   /' err.txt
	fi
done <<EOF
1773850000.3-1773850001.0 $((B + 300000000)) $((B + 1000000000))
1773850000.300000001-1773850001.2s $((B + 300000001)) $((B + 1200000000))
1773850003s- $((B + 3000000000)) $M
-1773850000600ms 0 $((B + 600000000))
1773850000900000us+600ms $((B + 900000000)) $((B + 1499999999))
1773850001500000002ns+1 $((B + 1500000002)) $((B + 1500000002))
2026-03-18T16:06:43.000000001Z-2026-03-18T16:06:45.5 $d1 $d2
2026-03-18T16:06:43.000000001Z+2.1s $d1 $((d1 + 2099999999))
-2026-03-18T16:06:41Z 0 $((B + 1000000000))
2026-03-18T16:06:49.5Z- $((B + 9500000000)) $M
0x189dfb2d3ed3a000-0x189dfb2d3ed3a000 $B $B
1773850000000000000-1773850001000000000 $B $((B + 1000000000))
EOF
# Several elements widen the selection, dates and numbers mixed.
txtfilter --ts 2026-03-18T16:06:40Z,1773850011.7-,1773850003.6 t.txt | grep -c '^event' > got.txt
is "$(cat got.txt)" 3 "--ts A,B-,C: a date, an open range and seconds together"

# Bad spellings: a usage error naming what is wrong.
for spec in 1.5h 2026-03-18T16:06:40+01:00 2026-02-30T00:00:00Z 1969-12-31T23:59:59Z \
    1.0000000001 2026-03-18T16:06:41Z-2026-03-18T16:06:40Z 5+0 2554-07-21T23:34:34Z 1e9 . ; do
	txtfilter --ts "$spec" t.txt > out.txt 2> err.txt; rc=$?
	like "$rc:$(wc -c < out.txt):$(head -n 1 err.txt)" "2:0:txtfilter: --ts: *" "--ts $spec: usage error"
done

# What txtcut prints, --ts reads: each record found again by its time.
for mode in seconds date; do
	bad=0
	txtcut -s --no-header --time $mode -f n,ts t.txt | while IFS="$(printf '\t')" read -r n when; do
		[ -n "$when" ] || continue
		got=$(txtfilter --ts "$when" t.txt | grep '^event' | sed 's/.* n=//')
		[ "$got" = "$n" ] || { echo "# $when: $got, not $n"; echo bad; }
	done > back.txt
	is "$(cat back.txt)" "" "txtcut --time $mode, read back by --ts: each record and no other"
done

done_testing
