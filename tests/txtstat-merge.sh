#!/bin/sh
# txtstat --merge and per-file reports.  Every corpus trace (and
# generated x64dbg, dial9 and WTF text) is cut at line boundaries with
# split -l, each piece summarised with --json, the pieces merged: the
# report (text and JSON) is the report of the whole, line for line, with
# records, kinds and threads checked again by awk.  Several FILEs: each
# report is the file's own report, the total the report of them all.
. "$srcdir/tests/tap.sh"

# awk_facts TEXT: records, records per kind and distinct threads.
awk_facts() {
	awk '/^#/ || NF == 0 { next }
	{ n++; k[$1]++ }
	{ for (i = 2; i <= NF; i++) if ($i ~ /^(tid|child)=/ && $i !~ /=null$/) t[substr($i, index($i, "=") + 1)] = 1 }
	END { print "records " n + 0; print "threads " length(t); for (x in k) print "kind " x " " k[x] }' "$1" | sort
}

# stat_facts REPORT: the same from txtstat's text report.
stat_facts() {
	awk '/^records / { print "records " $2; on = 1; next }
	on && /^  / { print "kind " $1 " " $2; next }
	{ on = 0 }
	/^threads / { print "threads " $2 }' "$1" | sort
}

# merge_check TEXT LABEL PIECES: cut into PIECES, merge, compare.
merge_check() {
	n=$(wc -l < "$1" | tr -d ' ')
	rm -f piece.* ./*.part.json
	split -l $(( n / $3 + 1 )) "$1" piece.
	for p in piece.*; do
		txtstat --json "$p" > "$p.part.json" || return 1
	done
	txtstat "$1" > whole.txt && txtstat --json "$1" > whole.json &&
	    txtstat --merge piece.*.part.json > merged.txt &&
	    txtstat --merge --json piece.*.part.json > merged.json || return 1
	cmp -s whole.txt merged.txt || { diff whole.txt merged.txt | head -5 | sed 's/^/# /'; return 1; }
	cmp -s whole.json merged.json || { echo "# $2: JSON differs"; return 1; }
	awk_facts "$1" > f1.txt
	stat_facts merged.txt > f2.txt
	cmp -s f1.txt f2.txt || { diff f1.txt f2.txt | head -5 | sed 's/^/# /'; return 1; }
	return 0
}

total=0 bad=0 names=
check() {	# TEXT LABEL
	total=$((total + 1))
	if ! merge_check "$1" "$2" 3 || ! merge_check "$1" "$2" 7; then
		bad=$((bad + 1))
		names="$names $2"
	fi
}

for d in dial9 wtf rapidbin; do
	dir=$(corpus $d)
	[ -n "$dir" ] || continue
	for f in $(find "$dir" -type f ! -name '*.md' | sort); do
		any2txt "$f" > t.txt 2> /dev/null || continue
		[ -s t.txt ] || continue
		check t.txt "$(basename "$f")"
	done
done
gen-trac --arch x64 --threads 4 --blocks 20000 --seed 5 > g.trace64 || exit 99
trac2txt g.trace64 > g.txt || exit 99
check g.txt "generated x64dbg"
gen-dial9 > g.trc 2> /dev/null && dial92txt g.trc > gd.txt && check gd.txt "generated dial9"
gen-wtf > g.wtf-trace 2> /dev/null && wtf2txt g.wtf-trace > gw.txt && check gw.txt "generated WTF"
ok "$([ "$bad" -eq 0 ] && [ "$total" -ge 3 ]; echo $?)" "--merge of 3 and of 7 pieces (split -l) is the report of the whole, text and JSON, records, kinds and threads as awk counts them: $total texts${names:+, not:$names}"

# A lock held across a cut, a slice open across two cuts, a variable
# shared only across pieces: paired and flagged as in the whole.
cat > c.txt <<'END'
acquire tid=1 lock=5 ts=10
write tid=1 var=3 ts=20
event tid=2 ts=30 name=PollStartEvent
release tid=1 lock=5 ts=40
write tid=2 var=3 ts=50
event tid=2 ts=90 name=PollEndEvent
END
for k in 1 2 3 4 5; do
	rm -f piece.* ./*.part.json
	split -l $k c.txt piece.
	for p in piece.*; do txtstat --json "$p" > "$p.part.json"; done
	txtstat --merge piece.*.part.json > merged.txt
	txtstat c.txt > whole.txt
	cmp -s whole.txt merged.txt || break
done
is "$k" 5 "slices and holds across cuts pair as in the whole, for every cut of a small stream"
like "$(grep -c 'multi-writer  *1' merged.txt):$(sed -n '/^  Poll/{n;p;}' merged.txt)" "1: *1 *60 *60 *60 *60 *60 *60" "across cuts: a variable written by two threads, the poll of 60 ns"

# Past --max-keys, a merged distinct count is the estimate of the whole
# (the sketches merge exactly) and is marked.
rm -f piece.* ./*.part.json
split -l 30000 g.txt piece.
for p in piece.*; do txtstat --max-keys 500 --json "$p" > "$p.part.json"; done
txtstat --max-keys 500 --merge piece.*.part.json > merged.txt
txtstat --max-keys 500 g.txt > whole.txt
fig() { awk -v l="$2" 'index($0, l) == 1 { print substr($0, length(l) + 1); exit }' "$1" | sed 's/^ *//'; }
is "$(fig merged.txt '  data addresses'):$(fig merged.txt '  code addresses')" "$(fig whole.txt '  data addresses'):$(fig whole.txt '  code addresses')" "past --max-keys: merged estimates equal the whole's"
like "$(fig merged.txt '  data addresses')" "~*" "past --max-keys: marked ~"

# Errors: not a report.
echo '{"records":1}' > notours.json
txtstat --merge notours.json > out.txt 2> err.txt
is "$?:$(cat err.txt)" '1:txtstat: notours.json: no "state" in this JSON: not written by txtstat --json of this version' "--merge of JSON without a state: status 1, said"
txtstat --merge c.txt > out.txt 2> err.txt
like "$?:$(cat err.txt)" "1:txtstat: c.txt: not a JSON report*" "--merge of text: status 1, said"

# Several FILEs: a report per file, headed with its name, then the total.
split -l 7000 g.txt part.
set -- part.*
txtstat "$@" > all.txt
bad=0
for f; do
	{ echo "file                $f"; txtstat "$f"; } > one.txt
	awk -v f="$f" '/^file  / { on = ($2 == f); } /^total  / { on = 0 } on' all.txt > got.txt
	cmp -s one.txt got.txt || bad=$((bad + 1))
done
is "$bad:$(grep -c '^file ' all.txt)" "0:$#" "several FILEs: each report is the file's report alone, headed with its name"
cat "$@" | txtstat > cat.txt
{ echo "total               $# files"; cat cat.txt; } > want.txt
sed -n '/^total  /,$p' all.txt > got.txt
same_file got.txt want.txt "several FILEs: the total is the report of them all"
txtstat --json "$@" > all.json
bad=0 i=0
for f; do
	i=$((i + 1))
	txtstat --json "$f" | sed "s/^{\"file\":null/{\"file\":\"$f\"/" > one.json
	sed -n "${i}p" all.json | cmp -s - one.json || bad=$((bad + 1))
done
cat "$@" | txtstat --json | sed "s/^{\"file\":null/{\"file\":null,\"files\":$#/" > want.json
tail -1 all.json > got.json
is "$bad:$(wc -l < all.json | tr -d ' ')" "0:$(( $# + 1 ))" "--json, several FILEs: one object per file, its name in it, as its own report"
same_file got.json want.json "--json, several FILEs: the last object is the total"

done_testing
