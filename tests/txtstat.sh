#!/bin/sh
# txtstat: every figure of the report checked against counts made another
# way: awk over the real RapidBin traces (and the distinct counts that the
# corpus' SOURCES.md states for them), awk over generated x64dbg text, and
# hand-counted small streams for time, names, locks and the fork tree;
# the bound on kept keys turns distinct counts into marked estimates;
# malformed input is an error without a report.
. "$srcdir/tests/tap.sh"

# fig REPORT LABEL: the value after a label of the aligned report.
fig() {
	awk -v l="$2" 'index($0, l) == 1 { print substr($0, length(l) + 1); exit }' "$1" | sed 's/^ *//'
}

# awk_counts TEXT: the same figures computed by awk, one "label value" a
# line (these streams hold no quoted blanks).
awk_counts() {
	awk '
	function f(k,   i) {
		for (i = 2; i <= NF; i++)
			if (index($i, k "=") == 1) return substr($i, length(k) + 2)
		return ""
	}
	/^#/ || NF == 0 { next }
	{ records++ }
	$1 !~ /^(insn|read|write|acquire|release|request|fork|join|begin|end|branch|event)$/ { next }
	{ t = f("tid"); if (t != "") thr[t] = 1; if (f("child") != "") thr[f("child")] = 1 }
	f("pc") != "" { code["pc" f("pc")] = 1 }
	f("loc") != "" { code["loc" f("loc")] = 1 }
	$1 == "read" || $1 == "write" {
		a = f("var") != "" ? "v" f("var") : "a" f("addr")
		data[a] = 1
		if ($1 == "read") reads++; else writes++
		if (!(a in first)) first[a] = t; else if (first[a] != t) shared[a] = 1
		if ($1 == "write") {
			if (!(a in wfirst)) wfirst[a] = t; else if (wfirst[a] != t) mw[a] = 1
		}
	}
	$1 == "acquire" { acq++; locks[f("lock")] = 1 }
	END {
		print "records " records + 0
		print "threads " length(thr)
		print "reads " reads + 0
		print "writes " writes + 0
		print "data " length(data)
		print "code " length(code)
		print "shared " length(shared)
		print "multi " length(mw)
		print "locks " length(locks)
		print "acq " acq + 0
	}' "$1"
}

# stat_counts REPORT: the same labels from txtstat's report.
stat_counts() {
	echo "records $(fig "$1" 'records')"
	echo "threads $(fig "$1" 'threads')"
	echo "reads $(fig "$1" '  reads')"
	echo "writes $(fig "$1" '  writes')"
	echo "data $(fig "$1" '  data addresses')"
	echo "code $(fig "$1" '  code addresses')"
	echo "shared $(fig "$1" '  shared' | cut -d' ' -f1)"
	echo "multi $(fig "$1" '  multi-writer' | cut -d' ' -f1)"
	locks=$(fig "$1" 'locks')
	echo "locks ${locks:-0}"
	acq=$(fig "$1" '  acquisitions')
	echo "acq ${acq:-0}"
}

dir=$(corpus rapidbin)
if [ -n "$dir" ]; then
	n=0 bad=0 facts=0
	for d in "$dir"/spd-deadlock-benchmarks/*.data; do
		b=$(basename "$d")
		rapidbin2txt "$d" > r.txt || exit 99
		txtstat r.txt > s.txt || { bad=$((bad + 1)); continue; }
		awk_counts r.txt > want.txt
		stat_counts s.txt > got.txt
		if ! cmp -s got.txt want.txt; then
			bad=$((bad + 1))
			echo "# $b:"; diff got.txt want.txt | sed 's/^/#   /' | head -10
		fi
		# SOURCES.md: "| file | bytes | sha | header | distinct (thr, locks, vars) |"
		known=$(awk -F'|' -v f="$b" '$2 ~ "^ " f " $" { gsub(/ /, "", $6); print $6 }' "$dir/SOURCES.md")
		got="$(fig s.txt threads),$(fig s.txt locks),$(fig s.txt '  data addresses')"
		if [ -n "$known" ]; then
			facts=$((facts + 1))
			[ "$known" = "$got" ] || { bad=$((bad + 1)); echo "# $b: SOURCES.md says $known, txtstat $got"; }
		fi
		n=$((n + 1))
	done
	is "$bad:$facts" "0:$n" "RapidBin corpus: $n traces, every figure as awk counts it and distinct threads, locks and vars as SOURCES.md states"

	rapidbin2txt "$dir"/spd-deadlock-benchmarks/jigsaw.data > j.txt || exit 99
	txtstat --by tid --top 0 j.txt > got.txt
	awk '$1 != "rapidbin-header" { sub(/^tid=/, "", $2); print $2 }' j.txt | sort | uniq -c |
	    sort -k1,1nr -k2,2 | awk '{ printf "%12d %s\n", $1, $2 }' > want.txt
	awk '{ print }' got.txt | sort -k1,1nr -k2,2 > got.sorted
	echo "           1 (no tid)" >> want.txt
	sort -k1,1nr -k2,2 want.txt > want.sorted
	same_file got.sorted want.sorted "jigsaw: --by tid is uniq -c of the tids"
	# Per lock: acquisitions and threads, for the ten most taken locks.
	txtstat j.txt > s.txt
	sed -n '/^  lock  /,/^[^ ]/p' s.txt | awk 'NF >= 5 && $1 ~ /^[0-9]+$/ { print $1, $2, $NF }' > got.txt
	awk '$1 == "acquire" { l = substr($3, 6); t = substr($2, 5); n[l]++; if (!((l, t) in seen)) { seen[l, t] = 1; th[l] = th[l] (th[l] == "" ? "" : ",") t } }
	    END { for (l in n) print l, n[l], th[l] }' j.txt > all.txt
	# The threads of a lock in ascending order, as txtstat lists them.
	awk '{ k = split($3, a, ","); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { x = a[i]; a[i] = a[j]; a[j] = x }
	    s = a[1]; for (i = 2; i <= k; i++) s = s "," a[i]; print $1, $2, s }' all.txt > all2.txt
	bad=0
	while read -r l c t; do
		grep -qx "$l $c $t" all2.txt || { bad=$((bad + 1)); echo "# lock $l $c $t not as awk: $(grep "^$l " all2.txt)"; }
	done < got.txt
	is "$bad:$(wc -l < got.txt | tr -d ' ')" "0:10" "jigsaw: the ten most taken locks: acquisitions and threads as awk counts them"
else
	skip "no corpus" "RapidBin corpus figures"
	skip "no corpus" "jigsaw --by tid"
	skip "no corpus" "jigsaw locks"
fi

# Generated x64dbg traces: several threads, addresses from a small stack
# region and from random values, seq on every record.
gen-trac --arch x64 --threads 6 --blocks 30000 --seed 11 > x.trace64 || exit 99
trac2txt x.trace64 > x.txt || exit 99
txtstat x.txt > s.txt
is "$?" 0 "x64dbg text: status 0"
awk_counts x.txt > want.txt
stat_counts s.txt > got.txt
same_file got.txt want.txt "x64dbg text: records, threads, reads, writes, data and code addresses, shared and multi-writer as awk counts them"
is "$(fig s.txt seq)" "$(awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^seq=/) { v = substr($i, 5) + 0; if (n++ == 0 || v < lo) lo = v; if (v > hi) hi = v } } END { print lo " - " hi }' x.txt)" "x64dbg text: seq range"
for k in insn read write trac-header; do
	is "$(fig s.txt "  $k " )" "$(grep -c "^$k " x.txt)" "x64dbg text: $k records"
done
t=$(awk '/^insn /{ print substr($3, 5); exit }' x.txt)
is "$(fig s.txt "  tid $t ")" "$(grep -c " tid=$t " x.txt)" "x64dbg text: records of thread $t"
# The most accessed address: its accesses, reads and writes.
top=$(sed -n '/most accessed/{n;p;}' s.txt | awk '{ print $1, $2, $3, $4 }')
a=${top%% *}
is "$top" "$a $(grep -cE "^(read|write) .* addr=$a " x.txt) $(grep -cE "^read .* addr=$a " x.txt) $(grep -cE "^write .* addr=$a " x.txt)" "x64dbg text: the most accessed address ($a)"
is "$(awk '/most accessed/{ f = 1; next } f && /^    / { n++ } END { print n }' s.txt)" 10 "--top 10 by default"
txtstat --top 3 x.txt > s3.txt
is "$(awk '/most accessed/{ f = 1; next } f && /^    / { n++ } END { print n }' s3.txt)" 3 "--top 3"

# The bound on kept keys: distinct counts become marked estimates.
txtstat --max-keys 1000 x.txt > sm.txt
is "$?" 0 "--max-keys 1000: status 0"
exact=$(fig s.txt '  data addresses')
est=$(fig sm.txt '  data addresses')
like "$est" "~*" "--max-keys: the data address count is marked as an estimate"
est=${est#\~}
ok "$(awk -v e="$est" -v x="$exact" 'BEGIN { d = (e - x) / x; print (d < 0 ? -d : d) < 0.05 ? 0 : 1 }')" "--max-keys: the estimate $est is within 5 % of $exact"
like "$(tail -1 sm.txt)" "(~: an estimate; a table kept its first 1000 keys only*" "--max-keys: the report says so"
# Found by fuzz-stat: past the bound the kinds table drops kinds from
# its counts, which --json did not say (kinds have no mark of their own).
printf 'a-hdr\nb-hdr\nc-hdr\nb-hdr\ninsn tid=1\n' > kinds.txt
is "$(txtstat --json --max-keys 2 kinds.txt | grep -o '"records":5,"kinds":{[^}]*}\|"estimated":[a-z]*,"state"' | tr '\n' ' ')" \
    '"records":5,"kinds":{"b-hdr":2,"insn":1,"a-hdr":1} "estimated":true,"state" ' \
    "--max-keys: a kind past the bound is in no count, and --json says estimated"
is "$(txtstat --json kinds.txt | grep -o '"estimated":[a-z]*,"state"')" \
    '"estimated":false,"state"' "--json: estimated false within the bound"
is "$(fig sm.txt records)" "$(fig s.txt records)" "--max-keys: totals stay exact"
is "$(fig sm.txt threads)" "$(fig s.txt threads)" "--max-keys: small tables stay exact"

# Time, names and JSON on event text; two inputs: a report of each, then
# of the total (its figures those of both).
cat > e1.txt <<'END'
# events
event ts=1773850000000000000 tid=1 name="tokio.Poll"
event ts=1773850000500000000 tid=2 name=spawn
END
cat > e2.txt <<'END'
event ts=1773850001000000000 tid=1 name="tokio.Poll"
event ts=1773849999000000000 tid=3 name="a \"b\""
event tid=3 name=null ts=null
END
txtstat e1.txt e2.txt > s2.txt
sed -n '/^total  /,$p' s2.txt | sed 1d > s.txt
is "$(sed -n 1p s2.txt):$(grep -c '^file ' s2.txt):$(sed -n '/^total/p' s2.txt)" "file                e1.txt:2:total               2 files" "two inputs: a report headed by each name, then the total"
is "$(fig s.txt records)" 5 "two inputs: records of both"
is "$(fig s.txt time)" "first 1773850000000000000, last 1773849999000000000" "time: first and last in stream order"
is "$(fig s.txt '  span')" "1773849999000000000 - 1773850001000000000: 2.000000000 s" "time: span from the least to the greatest"
is "$(fig s.txt '  rate')" "2.0 records/s" "rate: records with time per second of span"
is "$(sed -n '/^event names/,/^[^ ]/p' s.txt)" 'event names         3
             2 tokio.Poll
             1 spawn
             1 "a \"b\""' "names: counts, a name that needs quotes quoted; null is no name"
txtstat --json e1.txt e2.txt > s3.json
tail -1 s3.json > s.json
if command -v node > /dev/null 2>&1; then
	is "$(node -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log([j.records, j.kinds.event, j.threads.distinct, j.time.duration_ns, j.names.top[2].name, String(j.seq), j.memory.reads].join(" "))' s.json)" \
	    '5 5 3 2000000000 a "b" null 0' "--json: one valid object with the figures"
elif command -v python3 > /dev/null 2>&1; then
	is "$(python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); print(j["records"], j["kinds"]["event"], j["threads"]["distinct"], j["time"]["duration_ns"], j["names"]["top"][2]["name"], j["seq"], j["memory"]["reads"])' s.json)" \
	    '5 5 3 2000000000 a "b" None 0' "--json: one valid object with the figures"
else
	skip "neither node nor python3 to read JSON" "--json"
fi
is "$(wc -l < s3.json | tr -d ' '):$(cut -c1-17 s3.json | tr '\n' ' ')" '3:{"file":"e1.txt", {"file":"e2.txt", {"file":null,"fil ' "--json: one line per file, then the total"

# Locks: re-entrant holds, the longest hold in ns and in records.
cat > l.txt <<'END'
acquire tid=1 lock=7 ts=100
acquire tid=1 lock=7 ts=110
release tid=1 lock=7 ts=120
write tid=1 var=1 ts=130
release tid=1 lock=7 ts=400
acquire tid=2 lock=7 ts=500
release tid=2 lock=7 ts=550
acquire tid=2 lock=8
read tid=2 var=1
read tid=1 var=1
release tid=2 lock=8
fork tid=0 child=1
fork tid=0 child=2
fork tid=2 child=3
join tid=0 child=1
END
txtstat l.txt > s.txt
is "$(sed -n '/^  lock  /,/^[^ ]/p' s.txt | sed 1d | sed '$d')" "  7                        3  300 ns              1,2
  8                        1  3 records           2" "locks: acquisitions (re-entrant ones too), longest hold, threads"
is "$(sed -n '/^fork tree/,$p' s.txt)" "fork tree           3 forks
  0
    1 (joined)
    2
      3" "the fork tree, joins marked"
is "$(fig s.txt '  shared' | cut -d' ' -f1):$(fig s.txt '  multi-writer' | cut -d' ' -f1)" "1:0" "a variable read by two threads is shared, not multi-writer"
is "$(txtstat --by kind l.txt | head -3)" "           4 acquire
           4 release
           3 fork" "--by kind: by count, ties in order of first appearance"
is "$(txtstat --by lock --json l.txt | sed 's/,"max_keys":.*//')" '{"file":null,"by":"lock","records":15,"without":7,"distinct":2,"estimated":false,"counts":[{"value":"7","records":6},{"value":"8","records":2}]' "--by FIELD --json"

# Errors: no report, the place named.
printf 'insn tid=1 pc=0x10\ninsn tid=x pc=0x20\n' > bad.txt
txtstat bad.txt > out.txt 2> err.txt
is "$?:$(cat err.txt):$(cat out.txt)" '1:txtstat: bad.txt:2:10: field "tid": "x": not an unsigned 64-bit number:' "a bad tid: status 1, where, no report"
printf 'insn tid=1 name="abc\n' > bad2.txt
txtstat bad2.txt > out.txt 2> err.txt
like "$?:$(cat err.txt)" "1:txtstat: bad2.txt:1:*" "a malformed line: status 1"
txtstat missing.txt > out.txt 2> err.txt
like "$?:$(cat err.txt)" "2:txtstat: missing.txt: cannot open*" "a missing file: status 2"
txtstat --top x x.txt > /dev/null 2> err.txt
is "$?:$(head -1 err.txt)" '2:txtstat: --top: "x" is not a number' "a bad --top: usage error, said with one space"
txtstat --max-keys 0 x.txt > /dev/null 2> err.txt
is "$?:$(head -1 err.txt)" '2:txtstat: --max-keys: "0" is not a positive number' "--max-keys 0: usage error"
is "$(txtstat < /dev/null)" "records             0
threads             0" "empty input: an empty report"
gzip -c x.txt > x.txt.gz
txtstat x.txt.gz > sz.txt
txtstat x.txt > s.txt
same_file sz.txt s.txt "gzip input: the same report"

# An address is shared when two threads touch it: a record without a tid
# first says nothing of who did (it made the next thread's access count
# as a second thread's, and txtstat --merge of the parts said otherwise).
printf 'read var=7 loc=1\nread tid=1 var=7 loc=2\nread tid=1 var=7 loc=3\n' > notid.txt
like "$(txtstat notid.txt | grep '^  shared')" "*shared            0 *" \
    "an access without a tid before one thread's: not shared"
printf 'read var=7 loc=1\nread tid=1 var=7 loc=2\nread tid=2 var=7 loc=3\n' > notid2.txt
like "$(txtstat notid2.txt | grep '^  shared')" "*shared            1 *" \
    "and two threads' after it: shared"
# The same in --merge: a part whose accesses had no tid takes the next
# part's thread (it compared thread 0 with it and said shared).
printf 'read var=7 loc=1\n' > nt1.txt
printf 'read tid=5 var=7 loc=2\nread tid=5 var=7 loc=3\n' > nt2.txt
txtstat --json nt1.txt > nt1.json
txtstat --json nt2.txt > nt2.json
like "$(txtstat --merge nt1.json nt2.json | grep '^  shared')" "*shared            0 *" \
    "--merge: a part without tids, then one thread's: not shared"
cat nt1.txt nt2.txt | txtstat --json > nt12.json
txtstat --json --merge nt1.json nt2.json > ntm.json
same_file ntm.json nt12.json "--merge: the whole's report, its state too"
printf 'read tid=6 var=7 loc=4\n' > nt3.txt
txtstat --json nt3.txt > nt3.json
txtstat --json --merge nt1.json nt2.json > ntm.json
like "$(txtstat --merge ntm.json nt3.json | grep '^  shared')" "*shared            1 *" \
    "--merge: the merged part's thread, then another: shared"

done_testing
