#!/bin/sh
# txt2std's output read by RAPID itself (focs-lab/rapid, built with plain
# javac).  RAPID is not part of the project: set RAPID_HOME to a built
# checkout (with bin/MetaInfo.class) to run these; otherwise they skip.
. "$srcdir/tests/tap.sh"
corp=$(corpus rapidbin)
if [ -z "${RAPID_HOME:-}" ] || [ ! -f "$RAPID_HOME/bin/MetaInfo.class" ] ||
    ! command -v java >/dev/null 2>&1 || [ -z "$corp" ]; then
	skip "RAPID_HOME not set to a built RAPID, or no corpus" "RAPID reads txt2std output"
	done_testing
fi
rapid() { (cd "$RAPID_HOME" && java -cp "bin:lib/*:lib/jgrapht/*" "$@" 2>&1); }

# What RAPID's MetaInfo should print for the events of a text stream,
# computed here from rapidbin2txt's records, apart from RAPID: request and
# branch events are those txt2std drops; threads are the threads that
# execute events, locks those acquired or released; an outermost begin is
# one at depth 0 of its thread.
cat > meta.awk <<'AWK'
function val(key,   i) {
	for (i = 2; i <= NF; i++)
		if (index($i, key "=") == 1) return substr($i, length(key) + 2)
	return ""
}
$1 == "rapidbin-header" || $1 == "request" || $1 == "branch" { next }
{
	t = val("tid"); thr[t]; locs[val("loc")]; n++; c[$1]++
	if ($1 == "read" || $1 == "write") {
		v = val("var"); vars[v]
		if ($1 == "read") rv[v]; else wv[v]
	}
	if ($1 == "acquire" || $1 == "release") locks[val("lock")]
	if ($1 == "begin") { if (depth[t] == 0) outer++; depth[t]++ }
	if ($1 == "end") depth[t]--
}
function size(a,   k, m) { m = 0; for (k in a) m++; return m }
END {
	printf "Number of locations = %d\n", size(locs)
	printf "Number of threads = %d\n", size(thr)
	printf "Number of locks = %d\n", size(locks)
	printf "Number of variables = %d\n", size(vars)
	printf "Number of variables (read) = %d\n", size(rv)
	printf "Number of variables (write) = %d\n", size(wv)
	printf "Number of events = %d\n", n
	printf "Number of read events = %d\n", c["read"]
	printf "Number of write events = %d\n", c["write"]
	printf "Number of reads+writes = %d\n", c["read"] + c["write"]
	printf "Number of acquire events = %d\n", c["acquire"]
	printf "Number of release events = %d\n", c["release"]
	printf "Number of fork events = %d\n", c["fork"]
	printf "Number of join events = %d\n", c["join"]
	printf "Number of begin events = %d\n", c["begin"]
	printf "Number of end events = %d\n", c["end"]
	printf "Number of branch events = 0\n"
	printf "Number of outermost begin events = %d\n", outer
}
AWK

for f in "$corp"/spd-deadlock-benchmarks/*.data; do
	name=$(basename "$f" .data)
	rapidbin2txt "$f" > "$name.txt"
	txt2std -q "$name.txt" > "$name.std"
	rapid MetaInfo -f std -p "$TMP/$name.std" > info.txt
	if grep -q 'anot parse' info.txt; then
		ok 1 "$name: RAPID cannot parse a line"
		continue
	fi
	is "$(grep '^Number of' info.txt)" "$(awk -f meta.awk "$name.txt")" \
	    "$name: RAPID's MetaInfo on txt2std's output: every count as computed from the decoded events"
done

# The reference's check: with req dropped, HB finds 10 racy events in
# Bensalem_dlf (with req left in, RAPID re-emits events and finds 20).
got=$(rapid HB -f std -p "$TMP/Bensalem_dlf.std" | sed -n "s/^Number of 'racy' events found = //p")
is "$got" 10 "RAPID's HB finds the 10 racy events of Bensalem_dlf"
txt2std --keep-request -q Bensalem_dlf.txt > req.std
got=$(rapid HB -f std -p "$TMP/req.std" | sed -n "s/^Number of 'racy' events found = //p")
is "$got" 20 "with req kept, RAPID misparses them and reports 20 (why they are dropped)"

# x64dbg and Usercorn text into RAPID, through txt2std directly and
# through txt2rapidbin: std-cross.sh.
done_testing
