#!/bin/sh
# txt2rapidbin: values that do not fit, malformed records, the header
# record, skipped records, --strict, --dense.
. "$srcdir/tests/tap.sh"

# enc_fail NAME TEXT MESSAGE [OPTIONS]: exit 1, that diagnostic, no output.
enc_fail() {
	name=$1 text=$2 msg=$3
	shift 3
	printf '%s\n' "$text" > in.txt
	txt2rapidbin "$@" in.txt > out.bin 2> err.txt
	rc=$?
	is "$rc:$(cat err.txt)" "1:txt2rapidbin: in.txt:$msg" "$name"
	is "$(wc -c < out.bin | tr -d ' ')" 0 "$name: nothing written"
}
# enc_text TEXT [OPTIONS]: the text of what txt2rapidbin makes of TEXT.
enc_text() {
	text=$1
	shift
	printf '%s\n' "$text" | txt2rapidbin "$@" | rapidbin2txt
}

enc_fail "lock > 2^34-1" "acquire tid=0 lock=0 loc=1
acquire tid=0 lock=17179869184 loc=1" \
    '2: field "lock": 17179869184 does not fit 34 bits (max 17179869183); use --dense to renumber the lock values'
enc_fail "var > 2^34-1" "write tid=0 var=17179869184 loc=1" \
    '1: field "var": 17179869184 does not fit 34 bits (max 17179869183); use --dense to renumber the var values'
enc_fail "loc > 32767" "# comment

read tid=0 var=1 loc=32768" \
    '3: field "loc": 32768 does not fit 15 bits (max 32767); use --dense to renumber the loc values'
enc_fail "begin decor > 2^34-1" "begin tid=0 decor=17179869184 loc=1" \
    '1:19: field "decor": "17179869184": does not fit 34 bits (max 17179869183)'
enc_fail "bit63=2" "begin tid=0 loc=1 bit63=2" \
    '1:25: field "bit63": "2": must be 0 or 1'
enc_fail "no tid" "acquire lock=1 loc=1" '1: acquire record without tid='
enc_fail "no lock" "release tid=1 loc=1" '1: release record without lock='
enc_fail "no var or addr" "read tid=1 loc=1" '1: read record without var= or addr= (an address and its size=, as x64dbg and Usercorn text have)'
enc_fail "no child" "join tid=1 loc=1" '1: join record without child='
enc_fail "not a number" "acquire tid=x1 lock=1" \
    '1:13: field "tid": "x1": not an unsigned 64-bit number'
enc_fail "header field too big" "rapidbin-header threads=65536 locks=1 vars=1 events=0" \
    '1:25: field "threads": "65536": does not fit the header field (max 65535)'
enc_fail "header without events" "rapidbin-header threads=1 locks=1 vars=1" \
    '1: rapidbin-header record without field "events"'
enc_fail "--strict: unknown kind" "acquire tid=0 lock=0 loc=1
insn tid=0 pc=0x1000" '2: record kind "insn": no RapidBin meaning' --strict
enc_fail "malformed line" 'acquire tid=0 lock="1' '1:22: unterminated string'

# Thread ids that do not fit are renumbered by themselves; so is a child
# once the thread space is renumbered anyway.
is "$(enc_text "fork tid=5000 child=6000 loc=1
acquire tid=6000 lock=1 loc=2")" "rapidbin-header threads=2 locks=1 vars=0 events=2
fork tid=0 child=1 loc=1
acquire tid=1 lock=1 loc=2" "tid > 1023: dense thread ids in order of first appearance"

# A child is a thread id stored in the 34-bit decor: one above 1023 that
# fits is kept (Wasmgrind writes fork targets unmasked, so the round trip
# needs it); one that does not fit renumbers the thread space, even when
# its thread has no events of its own (filtered away).
is "$(enc_text "acquire tid=7 lock=1 loc=1
fork tid=7 child=1024 loc=2
join tid=7 child=1024 loc=3")" "rapidbin-header threads=2 locks=1 vars=0 events=3
acquire tid=7 lock=1 loc=1
fork tid=7 child=1024 loc=2
join tid=7 child=1024 loc=3" "child 1024 fits the decor: kept"
is "$(enc_text "acquire tid=7 lock=1 loc=1
fork tid=7 child=17179869184 loc=2
join tid=7 child=17179869184 loc=3")" "rapidbin-header threads=2 locks=1 vars=0 events=3
acquire tid=0 lock=1 loc=1
fork tid=0 child=1 loc=2
join tid=0 child=1 loc=3" "child > 2^34-1: dense thread ids"

# More distinct threads than 1024 once renumbered: the first 1023 keep
# their own id, the others share thread 1023, said in one line; --strict
# refuses, naming the line of the 1025th thread (counting skipped lines).
awk 'BEGIN { print "# threads"; for (i = 0; i < 1025; i++) printf "insn tid=%d pc=0x1\nread tid=%d var=1\n", 5000 + i, 5000 + i }' > thr.txt
grep -v '^insn' thr.txt > thr2.txt
txt2rapidbin --strict thr2.txt > thr.bin 2> err.txt
is "$?:$(cat err.txt)" "1:txt2rapidbin: thr2.txt:1026: strict: more than 1024 distinct threads: they do not fit RapidBin's 10-bit thread id" \
    "1025 threads, --strict: error with the line number"
is "$(wc -c < thr.bin | tr -d ' ')" 0 "1025 threads, --strict: nothing written"
txt2rapidbin thr.txt 2> err.txt | rapidbin2txt > thr.out
is "$(grep -c . err.txt) $(grep -v '^txt2rapidbin: .* records skipped' err.txt)" \
    "2 txt2rapidbin: 1025 distinct threads: the first 1023 have their own, the other 2 share thread 1023 (2 events; --strict refuses)" \
    "1025 threads: folded into the last thread id, said in one line"
is "$(sed -n '1p;$p' thr.out)" "rapidbin-header threads=1024 locks=0 vars=1 events=1025
read tid=1023 var=1 loc=0" "1025 threads: header counts 1024, the last two share 1023"
head -n 2049 thr.txt | txt2rapidbin -q | rapidbin2txt | sed -n '1p;$p' > thr.out
is "$(cat thr.out)" "rapidbin-header threads=1024 locks=0 vars=1 events=1024
read tid=1023 var=1 loc=0" "1024 threads fit once renumbered"

# --dense renumbers native values that do not fit, each space alone.
is "$(enc_text "acquire tid=0 lock=17179869184 loc=40000
release tid=0 lock=5 loc=7
write tid=1 var=99999999999 loc=40000
fork tid=0 child=2000" --dense)" "rapidbin-header threads=3 locks=2 vars=1 events=4
acquire tid=0 lock=0 loc=0
release tid=0 lock=1 loc=1
write tid=1 var=0 loc=0
fork tid=0 child=2000 loc=0" "--dense: locks, vars and locs renumbered; a child that fits kept"
is "$(enc_text "acquire tid=0 lock=3 loc=7
write tid=1 var=99999999999 loc=8" --dense)" "rapidbin-header threads=2 locks=1 vars=1 events=2
acquire tid=0 lock=3 loc=7
write tid=1 var=0 loc=8" "--dense: spaces that fit stay as they are"

# Skipped records are counted, a line per cause; another format's header
# is structure, rebuilt, not counted; -q keeps quiet; strict refuses them.
printf 'trac-header arch=x64\ninsn tid=1 pc=0x10\nacquire tid=0 lock=0 loc=1\nfoo bar=1\n' > s.txt
txt2rapidbin s.txt > s.bin 2> err.txt
is "$?:$(cat err.txt)" '0:txt2rapidbin: 1 record skipped, no RapidBin meaning (first at line 2: record kind "insn")
txt2rapidbin: 1 record skipped, no RapidBin meaning (first at line 4: record kind "foo")' "skipped records: a summary line per cause"
txt2rapidbin -q s.txt > s.bin 2> err.txt
is "$(cat err.txt)" "" "-q: no summary"
is "$(rapidbin2txt s.bin | tail -1)" "acquire tid=0 lock=0 loc=1" "skipped records: the rest is encoded"

# The header record: as stored when the event count matches, recounted
# otherwise, and with -v it says which.
is "$(enc_text "rapidbin-header threads=9 locks=9 vars=9 events=1
acquire tid=0 lock=0 loc=1" | head -1)" "rapidbin-header threads=9 locks=9 vars=9 events=1" "header record kept as stored"
is "$(enc_text "rapidbin-header threads=9 locks=9 vars=9 events=2
acquire tid=0 lock=0 loc=1" | head -1)" "rapidbin-header threads=1 locks=1 vars=0 events=1" "header record with another event count: recounted"
is "$(enc_text "rapidbin-header threads=9 locks=9 vars=9 events=1
rapidbin-header threads=9 locks=9 vars=9 events=1
acquire tid=0 lock=0 loc=1" | head -1)" "rapidbin-header threads=1 locks=1 vars=0 events=1" "two header records (concatenated streams): recounted"
printf 'rapidbin-header threads=9 locks=9 vars=9 events=5\nread tid=0 var=0\n' | txt2rapidbin -v 2>&1 >/dev/null | head -1 > err.txt
is "$(cat err.txt)" "txt2rapidbin: the decoded file held 5 events but 1 was encoded: header counted again" "-v: recount note"

# Distinct counts as Wasmgrind makes them: fork and join targets count as
# threads; a begin without loc gets loc 0; hex values are accepted.
is "$(enc_text "fork tid=0 child=7 loc=0x10
begin tid=0
request tid=0 lock=0x3 loc=1
read tid=3 var=5 loc=2
write tid=3 var=5 loc=2")" "rapidbin-header threads=3 locks=1 vars=1 events=5
fork tid=0 child=7 loc=16
begin tid=0 loc=0
request tid=0 lock=3 loc=1
read tid=3 var=5 loc=2
write tid=3 var=5 loc=2" "distinct counts, children counted as threads, hex accepted"

# An empty stream is a valid empty trace.
: | txt2rapidbin > e.bin
is "$?:$(od -An -tx1 e.bin | tr -d ' \n')" "0:000000000000000000000000000000000000" "empty input: an 18-byte zero header"

# Output to a file is written only on success.
printf 'acquire tid=0 lock=17179869184\n' | txt2rapidbin -o bad.bin 2> /dev/null
is "$?:$(ls bad.bin* 2> /dev/null)" "1:" "-o: no file left behind on error"
# An empty result says so (unless -q).
printf 'insn tid=1 pc=0x1\n' | txt2rapidbin 2> err.txt > e.bin
is "$? $(cat err.txt)" '0 txt2rapidbin: 1 record skipped, no RapidBin meaning (first at line 1: record kind "insn")
txt2rapidbin: no event written: the trace is a header only (the stream held no event record)' \
    "no event: warned once"
printf 'insn tid=1 pc=0x1\n' | txt2rapidbin -q 2> err.txt > e.bin
is "$? $(cat err.txt)" "0 " "-q: no warning"
done_testing
