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

for f in "$corp"/spd-deadlock-benchmarks/*.data; do
	name=$(basename "$f" .data)
	rapidbin2txt "$f" | txt2std -q > "$name.std"
	ours=$(rapidbin2txt "$f" | txtfilter -c --type acquire,release,read,write,fork,join,begin,end)
	info=$(rapid MetaInfo -f std -p "$TMP/$name.std")
	case "$info" in *anot\ parse*) ok 1 "$name: RAPID cannot parse a line"; continue ;; esac
	got=$(printf '%s\n' "$info" | sed -n 's/^Number of events = //p')
	is "$got" "$ours" "$name: RAPID's MetaInfo counts the events txt2std wrote"
done

# The reference's check: with req dropped, HB finds 10 racy events in
# Bensalem_dlf (with req left in, RAPID re-emits events and finds 20).
rapidbin2txt "$corp/spd-deadlock-benchmarks/Bensalem_dlf.data" | txt2std -q > dlf.std
got=$(rapid HB -f std -p "$TMP/dlf.std" | sed -n "s/^Number of 'racy' events found = //p")
is "$got" 10 "RAPID's HB finds the 10 racy events of Bensalem_dlf"
done_testing
