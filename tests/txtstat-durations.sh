#!/bin/sh
# txtstat's durations against a pairing written again in awk from the
# rule txtstat(1) states (txt2chrome's): per thread a stack; acquire and
# release of a lock, begin and end, an event with scope= and
# wtf.scope#leave, events whose names end in an opening or closing word.
# On a real dial9 trace and a real WTF trace: per kind of slice the
# count, total, min and max, the longest five with start and thread,
# and p50, p90, p99 (nearest rank; within 1 % where txtstat marks them
# ~, from its buckets); then small hand-checked streams.
. "$srcdir/tests/tap.sh"

# An awk function: a value unquoted (the escapes this test meets: \" \\).
UNQ_AWK='
function unq(v,   o, i, c) {
	if (substr(v, 1, 1) != "\"") return v
	v = substr(v, 2, length(v) - 2); o = ""
	for (i = 1; i <= length(v); i++) {
		c = substr(v, i, 1)
		if (c == "\\") { i++; c = substr(v, i, 1) }
		o = o c
	}
	return o
}'

# awk_slices TEXT: "group<TAB>ns<TAB>start<TAB>tid" per closed slice with
# a time at both ends.
awk_slices() {
	awk "$TV_AWK$UNQ_AWK"'
	# b - a for decimal strings past 2^53: in two parts
	function diff(b, a,   hb, ha, lb, la) {
		hb = length(b) > 9 ? substr(b, 1, length(b) - 9) + 0 : 0
		ha = length(a) > 9 ? substr(a, 1, length(a) - 9) + 0 : 0
		lb = substr(b, length(b) > 9 ? length(b) - 8 : 1) + 0
		la = substr(a, length(a) > 9 ? length(a) - 8 : 1) + 0
		return (hb - ha) * 1000000000 + (lb - la)
	}
	function ends(s, w) { return length(s) > length(w) && substr(s, length(s) - length(w) + 1) == w }
	# the slice of an event name: sets act (1 open, 0 close, -1) and sname
	function word(name,   head, tail, c, i, w, n) {
		c = index(name, ":")
		head = c ? substr(name, 1, c - 1) : name
		tail = c ? substr(name, c) : ""
		if (ends(head, "Event")) head = substr(head, 1, length(head) - 5)
		n = split("Start Begin Enter Park End Stop Exit Leave Unpark", w, " ")
		for (i = 1; i <= n; i++)
			if (ends(head, w[i])) {
				act = i <= 4
				sname = substr(head, 1, length(head) - length(w[i]))
				if (w[i] == "Park" || w[i] == "Unpark") sname = sname "Park"
				sname = sname tail
				return
			}
		act = -1
	}
	function open_(t, type, key, grp) {
		n = ++sn[t]
		st_type[t, n] = type; st_key[t, n] = key; st_grp[t, n] = grp
		st_ts[t, n] = ts; st_tid[t, n] = tid
	}
	function close_(t, type, key,   k, j, d) {
		for (k = sn[t]; k >= 1; k--)
			if (st_type[t, k] == type && (type == "S" || st_key[t, k] == key))
				break
		if (k < 1) return
		if (st_ts[t, k] != "" && ts != "") {
			d = diff(ts, st_ts[t, k]); if (d < 0) d = 0
			printf "%s\t%.0f\t%s\t%s\n", st_grp[t, k], d, st_ts[t, k], st_tid[t, k]
		}
		for (j = k; j < sn[t]; j++) {
			st_type[t, j] = st_type[t, j + 1]; st_key[t, j] = st_key[t, j + 1]
			st_grp[t, j] = st_grp[t, j + 1]; st_ts[t, j] = st_ts[t, j + 1]
			st_tid[t, j] = st_tid[t, j + 1]
		}
		sn[t]--
	}
	/^#/ || NF == 0 { next }
	{
		kind = $1; rest = substr($0, length(kind) + 2)
		split("", f)
		while (rest != "") {
			e = index(rest, "="); key = substr(rest, 1, e - 1)
			rest = substr(rest, e + 1); l = tv_len(rest, " ")
			if (!(key in f) && substr(rest, 1, l) != "null") f[key] = substr(rest, 1, l)
			rest = substr(rest, l + 2)
		}
		tid = ("tid" in f) ? f["tid"] : "-"
		ts = ("ts" in f) ? f["ts"] : ""
		t = (("input" in f) ? f["input"] : 0) "/" tid
		# no tid: txt2chrome'"'"'s track per record name, nothing pairs
		if (tid == "-") t = t "/" kind "/" f["name"]
		if (kind == "acquire" && ("lock" in f)) open_(t, "L", f["lock"], "lock")
		else if (kind == "release" && ("lock" in f)) close_(t, "L", f["lock"])
		else if (kind == "begin") open_(t, "B", "", "block")
		else if (kind == "end") close_(t, "B", "")
		else if (kind == "event") {
			name = ("name" in f) ? f["name"] : ""
			if (name == "" || length(name) > 256 || name ~ /^[[{]/) name = "event"
			else name = unq(name)
			if (name == "wtf.scope#leave") close_(t, "S", "")
			else if (("scope" in f) && f["scope"] ~ /^[0-9]+$/) {
				a = f["arg.name"]
				if (ends(name, "#enter") && a != "" && length(a) <= 256 && a !~ /^[[{]/)
					name = unq(a)
				open_(t, "S", f["scope"], name)
			} else {
				word(name)
				if (act == 1) open_(t, "E", sname, sname)
				else if (act == 0) close_(t, "E", sname)
			}
		}
	}' "$1"
}

# awk_stats SLICES: per group "G count total min max p50 p90 p99", then
# "G longest ns ts tid" for the five longest.
awk_stats() {
	sort -t '	' -k1,1 -k2,2n "$1" | awk -F '	' '
	function flush(   i, r, p, k) {
		if (g == "") return
		printf "%s %d %.0f %.0f %.0f", g, n, tot, v[1], v[n]
		split("50 90 99", p, " ")
		for (k = 1; k <= 3; k++) {
			r = int((n * p[k] + 99) / 100); if (r < 1) r = 1
			printf " %.0f", v[r]
		}
		printf "\n"
	}
	$1 != g { flush(); g = $1; n = 0; tot = 0 }
	{ v[++n] = $2; tot += $2 }
	END { flush() }' > stats.awk.txt
	# the longest: by ns descending, start, tid ascending
	sort -t '	' -k1,1 -k2,2nr -k3,3 -k4,4n "$1" | awk -F '	' '
	$1 != g { g = $1; n = 0 }
	++n <= 5 { print g " longest " $2 " " $3 " " $4 }' > long.awk.txt
}

# stat_stats REPORT: the same lines from txtstat's report (--top 0).
stat_stats() {
	awk "$UNQ_AWK"'
	/^slices / { on = 1; next }
	on && /^[^ ]/ { on = 0 }
	!on { next }
	/^  durations/ { next }
	/^  [^ ]/ { g = unq(substr($0, 3)); next }
	/^    longest / { print g " longest " $2 " " $5 " " $7 > "long.stat.txt"; next }
	/^ +[0-9]/ {
		line = g " " $1 " " $2 " " $3 " " $7
		for (i = 4; i <= 6; i++) line = line " " $i
		print line
	}' "$1" > stats.stat.txt
}

# compare: equal, the percentiles marked ~ within 1 %.
compare() {
	awk 'NR == FNR { want[$1] = $0; next }
	{
		if (!($1 in want)) { print "only txtstat: " $0; bad++; next }
		split(want[$1], w, " ")
		for (i = 2; i <= 5; i++) if ($i != w[i]) { print "differs: " $0 " / " want[$1]; bad++; next }
		for (i = 6; i <= 8; i++) {
			v = $i; est = sub(/^~/, "", v)
			if (est ? (v - w[i] > w[i] / 100 || w[i] - v > w[i] / 100) : v != w[i]) {
				print "percentile: " $0 " / " want[$1]; bad++; next
			}
		}
		seen[$1] = 1
	}
	END { for (g in want) if (!(g in seen)) { print "only awk: " want[g]; bad++ } exit bad > 0 }' stats.awk.txt stats.stat.txt
}

check_trace() {	# TEXT LABEL
	txtstat --top 0 "$1" > rep.txt || { ok 0 "$2: txtstat"; return; }
	awk_slices "$1" > sl.txt
	awk_stats sl.txt
	stat_stats rep.txt
	ok "$(compare > cmp.txt; echo $?)" "$2: per kind of slice count, total, min, max, p50, p90, p99 as an awk pairing gives them ($(wc -l < stats.awk.txt | tr -d ' ') kinds, $(wc -l < sl.txt | tr -d ' ') slices)"
	[ -s cmp.txt ] && sed 's/^/# /' cmp.txt | head -5
	is "$(sort long.stat.txt)" "$(sort long.awk.txt)" "$2: the five longest of each kind, with start and thread"
}

dir=$(corpus dial9)
if [ -n "$dir" ]; then
	dial92txt "$dir"/upstream-head-2026-05-15.trc.gz > d.txt || exit 99
	check_trace d.txt "dial9 upstream-head"
	like "$(grep -c '~' rep.txt)" "[1-9]*" "dial9: kinds of more than 8192 slices have estimated percentiles, marked ~"
else
	skip "no dial9 corpus" "dial9 durations" 3
fi
dir=$(corpus wtf)
if [ -n "$dir" ]; then
	wtf2txt "$dir"/blk-client.wtf-trace > w.txt || exit 99
	check_trace w.txt "WTF blk-client"
else
	skip "no WTF corpus" "WTF durations" 2
fi

# By hand: nested scopes, a re-entrant lock, a park, an end without a
# begin, a slice left open; times go back once (a slice of 0 ns).
cat > h.txt <<'END'
event tid=1 ts=100 name=a scope=1
event tid=1 ts=110 name=wtf.scope#enter arg.name="b c" scope=2
event tid=1 ts=150 name=wtf.scope#leave
event tid=1 ts=400 name=wtf.scope#leave
acquire tid=2 lock=7 ts=1000
acquire tid=2 lock=7 ts=1010
release tid=2 lock=7 ts=1030
release tid=2 lock=7 ts=1100
event tid=3 ts=50 name=WorkerParkEvent
event tid=3 ts=40 name=WorkerUnparkEvent
event tid=3 ts=60 name=PollEndEvent
event tid=3 ts=70 name=PollStartEvent
END
txtstat h.txt > rep.txt
is "$(sed -n '/^slices/,/^[^ s]/p' rep.txt)" 'slices              4 kinds (paired as by txt2chrome)
  durations (ns)   count         total       min       p50       p90       p99       max
  a
                   1           300       300       300       300       300       300
    longest 300 ns at 100 tid 1
  lock
                   2           120        20        20       100       100       100
    longest 100 ns at 1000 tid 2
    longest 20 ns at 1010 tid 2
  "b c"
                   1            40        40        40        40        40        40
    longest 40 ns at 110 tid 1
  WorkerPark
                   1             0         0         0         0         0         0
    longest 0 ns at 50 tid 3
  ends without a begin 1
  open at the end     1' "by hand: scopes named by arg.name, nested lock holds, a park, an end without a begin, a slice left open"
is "$(sed -n '/^  lock  /,/^[^ ]/p' rep.txt | sed -n 2p)" "  7                        2  100 ns              2" "by hand: the lock's longest hold is its outer slice"

# Without a tid, records are on txt2chrome's track of their name: a
# begin and an end, an acquire and a release never pair there.
printf 'begin ts=1\nend ts=5\nacquire lock=1 ts=1\nrelease lock=1 ts=3\n' > n.txt
is "$(txtstat n.txt | sed -n '/^slices/,$p')" 'slices              0 kinds (paired as by txt2chrome)
  ends without a begin 2
  open at the end     2' "without a tid: nothing pairs, as in txt2chrome"

# Past 8192 slices of a kind, percentiles come from buckets within 0.8 %.
awk 'BEGIN { t = 0; for (i = 1; i <= 20000; i++) { d = (i * 7919) % 100000 + 1; print "begin tid=1 ts=" t; t += d; print "end tid=1 ts=" t; t += 5 } }' > many.txt
check_trace many.txt "20000 blocks of known lengths"
grep -q '~' rep.txt
is "$?" 0 "20000 blocks: the percentiles are marked as estimates"

done_testing
