#!/bin/sh
# What the input layer reads: gzip only when the whole gzip header is
# there (RapidBin's own bytes may begin like it), and the longest line,
# one limit (64 MiB) from a file, a pipe or gzip, refused before memory
# grows past it.
. "$srcdir/tests/tap.sh"

# A RapidBin header of 8075 threads begins with 1f 8b, as gzip does.
seq 1 8074 | sed 's/^/fork tid=0 child=/' > forks.txt
txt2rapidbin forks.txt > forks.bin
is "$(od -An -tx1 -N3 forks.bin | tr -d ' ')" 1f8b00 "8074 forks: the header starts 1f 8b 00"
rapidbin2txt forks.bin > back.txt 2> err.txt
is "$?:$(head -n 1 back.txt):$(grep -c '^fork' back.txt)" \
    "0:rapidbin-header threads=8075 locks=0 vars=0 events=8074:8074" \
    "rapidbin2txt reads it as RapidBin, not gzip"
txt2rapidbin back.txt | cmp -s - forks.bin
ok $? "8074 forks: the round trip is byte for byte"

# 1f 8b 08 00 is a whole gzip header (method 8, no flags): 8075 threads
# and 2^27 locks.  What follows is no deflate data: RapidBin after all.
printf '\037\213\010\000\000\000\000\000\000\000\000\000\000\000\000\000\000\002' > hdr.bin
printf '\000\000\000\000\000\000\010\000\000\000\000\000\000\000\014\001' > ev.bin
cat hdr.bin ev.bin > gzlike.bin
rapidbin2txt -q gzlike.bin > g.txt 2> err.txt
is "$?:$(cat g.txt | tr '\n' '|')" \
    "0:rapidbin-header threads=8075 locks=134217728 vars=0 events=2|read tid=0 var=0 loc=0|write tid=1 var=0 loc=0|" \
    "a gzip header followed by no deflate data is read as RapidBin"
# Real gzip still is gzip, and damaged gzip still an error.
gzip -c forks.bin > forks.bin.gz
rapidbin2txt forks.bin.gz | cmp -s - back.txt
ok $? "gzip-compressed RapidBin of 8075 threads"
size=$(wc -c < forks.bin.gz)
{ head -c $((size - 8)) forks.bin.gz; printf '\0\0\0\0\0\0\0\0'; } > bad.gz
rapidbin2txt bad.gz > /dev/null 2> err.txt
like "$?:$(cat err.txt)" "1:rapidbin2txt: bad.gz: offset *: corrupt gzip data: incorrect data check" \
    "a gzip trailer that does not match: still a gzip error"
txtfilter --tid 0 gzlike.bin > /dev/null 2> err.txt
like "$?:$(cat err.txt)" "2:txtfilter: gzlike.bin: *corrupt gzip data*" \
    "text readers do not fall back: text never begins 1f 8b"

# The same key twice: malformed for every reader of whole records.
printf 'insn tid=1 pc=0x1000 bytes=90 tid=3\n' > dupi.txt
printf 'read tid=1 var=2 tid=3\n' > dupr.txt
for p in "txt2trac dupi.txt" "txt2rapidbin dupr.txt" "txt2std dupr.txt" "txtstat dupr.txt"; do
	set -- $p
	err=$($1 "$2" 2>&1 >/dev/null); rc=$?
	like "$rc:$err" "[12]:$1: $2:1:*: key \"tid\" twice in one record" \
	    "$1: a key twice is malformed, its line and column named"
done

# txtfilter decides on the fields its selectors name: one given twice
# is an error there too (status 2), at the second key, whatever the
# selector (--tid, --addr on pc or addr, --ts, -e).  A key inside a
# quoted value is no field; fields not decided on are not checked.
printf 'read tid=1 pc=0x10 addr=0x20 ts=5 addr=0x30\n' > dupa.txt
printf 'read tid=1 pc=0x10 ts=5 ts=6\n' > dupt.txt
# refused FILE COLUMN KEY SELECTOR...
refused() {
	f=$1 col=$2 key=$3
	shift 3
	for sel; do
		# shellcheck disable=SC2086
		out=$(txtfilter $sel "$f" 2>&1)
		like "$?:$out" "2:txtfilter: $f:1:$col: key \"$key\" twice in one record" \
		    "txtfilter $sel: a record with $key twice is an error"
	done
}
refused dupi.txt 31 tid "--tid 1" "--tid 3" "-v --tid 1" "-e tid==1" "-c -e has(tid)"
refused dupa.txt 35 addr "--addr 0x20" "--addr 0x30" "-e addr>0" "--tid 1 --addr 0-" \
    "--ts 5 --addr 0x40"
refused dupt.txt 25 ts "--ts 5"
out=$(txtfilter --tid 1 dupt.txt 2>&1)
is "$?:$out" "0:read tid=1 pc=0x10 ts=5 ts=6" \
    "txtfilter --tid: a field it does not decide on is not checked"
# A line with the key twice near the end of a long line, after a quoted
# " tid=": every place the second key can stand in a 16-byte block.
pad=
i=0
while [ $i -lt 40 ]; do
	printf 'read tid=1 s="x tid=2" p=%s q=1 tid=3\n' "$pad"
	printf 'read tid=1 s="x tid=2" p=%s q=1\n' "$pad"
	pad=${pad}a
	i=$((i + 1))
done > long.txt
n=0; bad=0
while IFS= read -r line; do
	n=$((n + 1))
	out=$(printf '%s\n' "$line" | txtfilter -c --tid 1 2>/dev/null); rc=$?
	case "$line:$rc:$out" in
	*tid=3:2:|*q=1:0:1) ;;
	*) bad=$((bad + 1)); diag "line $n: status $rc, $out" ;;
	esac
done < long.txt
is "$n:$bad" "80:0" "txtfilter --tid: the second tid found wherever it stands, a quoted one skipped"

# txtfilter's lists parse in n log n: eight of 10,000 values (106 s
# before), and each value is found.
list=$(seq 1 3 30000 | paste -sd, -)
printf 'read tid=29998 var=1\nread tid=29999 var=1\nread tid=2 var=1\n' > three.txt
# shellcheck disable=SC2086
n=$(timeout 60 txtfilter -c -t "$list" -t "$list" -t "$list" -t "$list" \
    -t "$list" -t "$list" -t "$list" -t "$list" three.txt)
is "$?:$n" "0:1" "eight --tid lists of 10000 values: parsed, tid 29998 found"

# The longest line: 64 MiB (67108864 bytes) without its end of line.
max=67108864
mkline() {	# mkline N FILE: a comment line of N bytes and a record
	{ printf '#'; head -c $(($1 - 1)) /dev/zero | tr '\0' 'a'; printf '\nread tid=1 var=2\n'; } > "$2"
}
mkline $max atmax.txt
mkline $((max + 1)) over.txt
gzip -1 -c atmax.txt > atmax.txt.gz
gzip -1 -c over.txt > over.txt.gz
for src in file pipe gzip; do
	case $src in
	file) a="atmax.txt" o="over.txt" ;;
	pipe) a="-" o="-" ;;
	gzip) a="atmax.txt.gz" o="over.txt.gz" ;;
	esac
	if [ $src = pipe ]; then
		n=$(cat atmax.txt | txtfilter -c --tid 1 "$a" 2>&1)
		err=$(cat over.txt | txtfilter -c --tid 1 "$o" 2>&1)
	else
		n=$(txtfilter -c --tid 1 "$a" 2>&1)
		err=$(txtfilter -c --tid 1 "$o" 2>&1)
	fi
	is "$n" 1 "a line of exactly 64 MiB from a $src: read"
	like "$err" "txtfilter: *:1: line longer than 64 MiB (67108864 bytes)*" \
	    "a line of 64 MiB + 1 from a $src: refused, its line named"
done
printf '\r\n' >> atmax.txt
txtfilter -c --tid 1 atmax.txt > n.txt 2>&1
is "$(cat n.txt)" 1 "64 MiB and a CRLF: read"
txt2rapidbin over.txt > /dev/null 2> err.txt
like "$?:$(cat err.txt)" "1:txt2rapidbin: over.txt:1: line longer than 64 MiB*" \
    "txt2rapidbin: the same limit, the same message"

# Memory stops at the limit: 200 MB without a newline, gzip-compressed.
head -c 200000000 /dev/zero | tr '\0' 'a' | gzip -1 -c > nonl.gz
if grep -q __asan_init "$(command -v txtfilter)" 2>/dev/null; then
	skip "built with AddressSanitizer" "memory bound"
elif [ -x /usr/bin/time ] && /usr/bin/time -f %M true 2> /dev/null; then
	kb=$( { /usr/bin/time -f %M txtfilter --tid 1 nonl.gz > /dev/null; } 2>&1 | tail -1)
	[ "$kb" -lt $((64 * 1024 + 8192)) ]
	ok $? "200 MB of gzip without a newline: max RSS ${kb} KiB < 72 MiB"
else
	skip "no GNU time" "memory bound"
fi
done_testing
