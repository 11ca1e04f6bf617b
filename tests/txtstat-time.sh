#!/bin/sh
# txtstat --ts takes txtfilter --ts's time spellings and means what it
# means: on real dial9 and WTF traces, for a range spelled in
# nanoseconds, in seconds with a fraction, with units (us, ms, s) as
# A+LEN, and as UTC dates, "txtstat --ts R" reports what
# "txtfilter --ts R | txtstat" reports (text and --json), and the range
# keeps some records but not all.
. "$srcdir/tests/tap.sh"

d9=$(corpus dial9)
wtf=$(corpus wtf)
if [ -z "$d9" ] || [ -z "$wtf" ]; then
	skip "the dial9 and WTF corpus is absent" "txtstat --ts on real traces"
	done_testing
fi

# secs NS: the seconds of a time (digits before the last nine).
secs() { s=${1%?????????}; echo "${s:-0}"; }
# frac NS: its nine digits of fraction.
frac() { printf '%019d\n' "$1" | cut -c11-19; }

n=0
for f in "$d9/v1-seedera-2026-03-18.trc" "$d9/multisegment-2026-03-28.trc.gz" \
    "$wtf/blk-client.wtf-trace" "$wtf/v10-js-multichunk.wtf-trace"; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f")
	any2txt "$f" > t.txt || { ok 1 "$name decodes"; continue; }
	# The times of the records, sorted; a range from the first quarter
	# to the third.
	awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^ts=[1-9][0-9]*$/) {
		print substr($i, 4); break } }' t.txt | sort -n > ts.list
	all=$(wc -l < ts.list)
	lo=$(sed -n "$((all / 4 + 1))p" ts.list)
	hi=$(sed -n "$((all * 3 / 4 + 1))p" ts.list)
	lo_s=$(secs "$lo") hi_s=$(secs "$hi")
	lo_us=${lo%???}
	len_ms=$(( (hi_s - lo_s) * 1000 + 1 ))
	date=$(date -u -d "@$lo_s" +%Y-%m-%dT%H:%M:%S)
	hdate=$(date -u -d "@$((hi_s + 1))" +%Y-%m-%dT%H:%M:%S)
	for r in "$lo-$hi" "$lo_s.$(frac "$lo")-$hi_s.$(frac "$hi")" \
	    "${lo_us}us+${len_ms}ms" "$lo_s.5+2s" "${lo_s}s-" \
	    "$date.$(frac "$lo")Z-${hdate}" "-$hdate.$(frac "$hi")Z,${date}Z+1.5s"; do
		txtfilter --ts "$r" t.txt | txtstat > want.rep
		txtstat --ts "$r" t.txt > got.rep 2> got.err
		is "$?:$(cat got.err)" "0:" "$name: txtstat --ts $r runs"
		same_file got.rep want.rep "$name: txtstat --ts $r"
		txtfilter --ts "$r" t.txt | txtstat --json > want.json
		txtstat --json --ts "$r" t.txt > got.json
		same_file got.json want.json "$name: txtstat --json --ts $r"
	done
	# The ns range keeps part of the records: the comparison is not of
	# two empty or two whole reports.
	kept=$(txtfilter -c --ts "$lo-$hi" t.txt)
	total=$(txtfilter -c --type insn,read,write,acquire,release,request,fork,join,begin,end,branch,event t.txt)
	[ "$kept" -gt 0 ] && [ "$kept" -lt "$total" ]
	ok $? "$name: $lo-$hi keeps $kept of $total records"
	txtstat --ts "$lo-$hi" t.txt > part.rep
	txtstat t.txt | cmp -s - part.rep
	[ $? -eq 1 ]; ok $? "$name: the --ts report is not the whole's"
done
[ "$n" -gt 0 ]; ok $? "corpus traces found"

# Bad spellings are refused as txtfilter refuses them; --merge has no
# records to select.
echo 'event tid=1 ts=5' > e.txt
txtstat --ts 5xs e.txt > /dev/null 2> bad.err
is "$?" 2 "a bad --ts: exit 2"
grep -q 'txtstat: --ts' bad.err; ok $? "the message names --ts"
txtstat --json e.txt > e.json
txtstat --merge --ts 1-9 e.json > /dev/null 2> merge.err
is "$?" 2 "--ts with --merge: exit 2"
done_testing
