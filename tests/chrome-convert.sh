#!/bin/sh
# txt2chrome: every shared kind mapped (a trace written by hand),
# position as time, instruction runs against an independent count,
# bounded memory, bad input.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/chrome

txt2chrome "$D/events.txt" > e.json
same_file e.json "$D/events.json" "every shared kind: the trace written by hand"
txt2chrome "$D/pairs.txt" > pe.json
same_file pe.json "$D/pairs.json" "dial9 and WTF event pairs: the trace written by hand"

# The real dial9 and WTF traces: each pair a slice, counted with grep.
slices() {	# JSON NAME
	grep -c "^{\"ph\":\"X\",\"name\":\"$2\"," "$1"
}
c=$(corpus dial9)
if [ -n "$c" ]; then
	dial92txt "$c/annotations-2026-07.trc.gz" > d.txt
	txt2chrome d.txt > d.json
	span='Span:metrics_service::routes::record_metric:examples/metrics-service/src/routes.rs:26'
	is "$(slices d.json Poll) $(slices d.json WorkerPark) $(slices d.json "$span")" \
	    "$(grep -c '^event name=PollStartEvent ' d.txt) $(grep -c '^event name=WorkerParkEvent ' d.txt) $(grep -c "^event name=SpanEnter:${span#Span:} " d.txt)" \
	    "dial9: every poll, park and span a slice"
else
	skip "no ../shared corpus" "dial9: every poll, park and span a slice"
fi
c=$(corpus wtf)
if [ -n "$c" ]; then
	wtf2txt "$c/blk-client.wtf-trace" > w.txt
	txt2chrome w.txt > w.json 2> w.err
	x=$(grep -c '^{"ph":"[XB]"' w.json)
	is "$x" "$(($(grep -c '^event .* name=wtf.scope#leave ' w.txt) + $(grep -c '^event .* name=wtf.timing#frameStart ' w.txt)))" \
	    "WTF: a slice per scope left and per frame"
	is "$(grep -c '^{"ph":"I","name":"wtf.scope#appendData"' w.json)" 0 \
	    "WTF: appended scope data goes into the args of the scope"
else
	skip "no ../shared corpus" "WTF: a slice per scope left and per frame"
	skip "no ../shared corpus" "WTF: appended scope data goes into the args of the scope"
fi

# -v counts every end without its begin (a name pair's end, a leave
# with no scope open, a release, an end), each an instant; a slice still
# open at the end keeps its args.
printf 'event name=PollEndEvent ts=1 tid=1\nevent name=wtf.scope#leave ts=2 tid=1\nrelease ts=3 tid=1 lock=1\nend ts=4 tid=1\nevent name=PollStartEvent ts=5 tid=1 task=3\n' > v.txt
txt2chrome -v v.txt > v.json 2> v.err
like "$(cat v.err)" "*4 ends without a begin, 1 slices unfinished*" "-v: 4 ends without a begin"
is "$(grep -c '"ph":"I"' v.json)" 4 "each unmatched end an instant"
grep -q '^{"ph":"B","name":"Poll","pid":0,"tid":1,"ts":0.005,"args":{"task":3,"unfinished":true}},$' v.json
ok $? "an unfinished slice keeps its args"
# WTF's loader pairs a leave with the innermost open scope, whatever the
# scope= the text gives it (a filtered or hand-made stream).
printf 'wtf-header version=10\nevent tid=1 ts=1000 time=1 name=a scope=7\nevent tid=1 ts=2000 time=2 name=b scope=8\nevent tid=1 ts=3000 time=3 name=wtf.scope#leave scope=7\nevent tid=1 ts=4000 time=4 name=wtf.scope#leave\n' |
    txt2chrome | grep '"ph":"X"' > l.got
is "$(cat l.got)" '{"ph":"X","name":"b","pid":0,"tid":1,"ts":2.000,"dur":1.000},
{"ph":"X","name":"a","pid":0,"tid":1,"ts":1.000,"dur":3.000}' "a leave ends the innermost scope (WTF's loader)"

# The C++ bindings' append-scope-data events: their args in the scope's,
# as wtf-dump (WTF's own tool) shows them.
c=$(corpus wtf)
if [ -n "$c" ] && [ -f "$c/v10-cpp-bindings.wtf-dump.txt" ]; then
	wtf2txt "$c/v10-cpp-bindings.wtf-trace" | txt2chrome > cpp.json
	sed -n 's/^{"ph":"[XB]","name":"cpp#Work",.*"args":\(.*\)},*$/\1/p' cpp.json > cpp.got
	sed -n 's/^ *[0-9.]*ms \[[^]]*\] cpp#Work  *\({.*}\)$/\1/p' "$c/v10-cpp-bindings.wtf-dump.txt" > cpp.want
	is "$(cat cpp.got)" "$(cat cpp.want)" "append-scope-data merged: cpp#Work args as wtf-dump shows them ($(wc -l < cpp.want | tr -d ' ') scopes)"
	is "$(grep -c __wtf_append_scope cpp.json)" 0 "no append-scope-data event left as an instant"
else
	skip "no ../shared corpus" "append-scope-data merged"
	skip "no ../shared corpus" "no append-scope-data event left as an instant"
fi

# No ts: a record's position is its time.
printf 'rapidbin-header threads=1\nacquire tid=0 lock=1\nread tid=0 var=2\nrelease tid=0 lock=1\n' |
    txt2chrome > p.json
grep '"lock 1"' p.json > p.got
is "$(cat p.got)" '{"ph":"X","name":"lock 1","pid":0,"tid":0,"ts":0,"dur":2,"args":{"lock":1}}' \
    "without ts the time is the position (acquire 0, release 2)"
grep -q '"time":"record position"' p.json; ok $? "the trace says its time is the position"

# x64dbg: one slice per run of instructions of a thread in one 4 KiB
# range, never one per instruction; counted again with awk.
gen-trac --arch x64 --blocks 200000 --threads 3 --seed 11 | trac2txt > t.txt
txt2chrome t.txt > t.json
# runs PAGE-DIGITS: runs of (tid, pc without its last PAGE-DIGITS hex
# digits) and instructions, as awk counts them.
runs() {
	awk -v cut="$1" '/^insn / {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		pc = f["pc"]; sub(/^0x/, "", pc)
		page = substr(pc, 1, length(pc) - cut); tid = f["tid"]
		if (!(tid in cur) || cur[tid] != page) runs++
		cur[tid] = page; insns++
	} END { print runs, insns }' t.txt
}
runs 3 > runs.want
grep -c '"ph":"X"' t.json > x.count
sed -n 's/.*"insns":\([0-9]*\).*/\1/p' t.json | awk '{ s += $1 } END { print s }' > insns.sum
is "$(cat x.count) $(cat insns.sum)" "$(cat runs.want)" "x64dbg: one slice per run in a 4 KiB range, every instruction in one"
n=$(grep -c '^insn ' t.txt)
[ "$(cat x.count)" -lt $((n / 2)) ]; ok $? "x64dbg: $(cat x.count) slices for $n instructions"
txt2chrome --insn-range 1 t.txt | grep -c '"ph":"X"' > each
is "$(cat each) $n" "$(runs 0)" "--insn-range 1: one slice per run at one address"
if command -v jq > /dev/null 2>&1; then
	jq -e '.traceEvents | length > 0' t.json > /dev/null; ok $? "jq reads the trace"
else
	skip "jq not installed" "jq reads the trace"
fi

# Memory holds the open slices only: a million lock pairs in a row take
# what a thousand take.
gen_locks() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) {
		printf "acquire ts=%d tid=%d lock=%d\n", 10 * i, i % 4, i % 7
		printf "release ts=%d tid=%d lock=%d\n", 10 * i + 5, i % 4, i % 7 } }'
}
gen_locks 500000 > locks.txt
gen_locks 20000 > few.txt
txt2chrome locks.txt > locks.json
is "$(grep -c '"ph":"X"' locks.json)" 500000 "500,000 lock pairs: 500,000 slices"
if grep -q __asan_init "$(command -v txt2chrome)" 2>/dev/null; then
	skip "built with AddressSanitizer" "memory bound"
elif [ -x /usr/bin/time ] && /usr/bin/time -f %M true 2> /dev/null; then
	/usr/bin/time -f %M -o few.kb txt2chrome few.txt > /dev/null
	/usr/bin/time -f %M -o many.kb txt2chrome locks.txt > /dev/null
	few=$(tail -1 few.kb) many=$(tail -1 many.kb)
	[ "$many" -lt $((few + 512)) ]
	ok $? "peak memory: $few KB for 20,000 pairs, $many KB for 500,000"
else
	skip "no GNU time" "memory bound"
fi

# Bad input: the records before, a closed trace, exit 1.
printf 'acquire ts=1 tid=1 lock=1\nrelease ts=2 tid=1 lock=1\nacquire ts=x tid=1\n' > bad.txt
txt2chrome bad.txt > bad.json 2> err; rc=$?
is "$rc:$(cat err)" '1:txt2chrome: bad.txt:3:12: field "ts": "x": not an unsigned 64-bit number' \
    "a bad ts: exit 1, line and column"
tail -c 100 bad.json | grep -q '^],"displayTimeUnit"'; ok $? "the trace is closed after the records before"
grep -q '"lock 1"' bad.json; ok $? "the records before are in it"
printf 'acquire tid=1 lock=1 x="\n' | txt2chrome > /dev/null 2> err; rc=$?
like "$rc:$(cat err)" '1:txt2chrome: <stdin>:1:*unterminated string' "a malformed line"
txt2chrome --insn-range 0 t.txt > /dev/null 2>&1
is "$?" 2 "--insn-range 0 is a usage error"
done_testing
