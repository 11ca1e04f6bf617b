#!/bin/sh
# Separate traces stay separate (issue 23): two RapidBin programs merged
# with txtmerge --tag (input=N) keep their threads, variables, locks and
# locations apart in txt2rapidbin and txt2std, each input's ids mapped one
# to one; the metadata says the input of each id; RAPID's HB finds the sum
# of the races of the two (where RAPID_HOME is set, as in std-rapid.sh).
. "$srcdir/tests/tap.sh"
corp=$(corpus rapidbin)
if [ -z "$corp" ]; then
	skip "no corpus" "merged RapidBin programs"
	done_testing
fi
S=$corp/spd-deadlock-benchmarks

# Pasted "input=N kind id-field=old ..." and the encoded "kind new ...":
# per kind of id (thread, lock, var, loc), old -> new is a function within
# an input, and no new id is had by two (input, old) pairs.  Says "ok N"
# or the first line where that fails.
cat > apart.awk <<'AWK'
function val(s, key,   n, a, i) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++)
		if (index(a[i], key "=") == 1) return substr(a[i], length(key) + 2)
	return ""
}
function one(space, old, new) {
	if (old == "") return
	k = space SUBSEP in_ SUBSEP old
	if ((k in m) && m[k] != new) { print "line " NR ": " space " " old " of input " in_ " is " m[k] " and " new; bad = 1; exit }
	r = space SUBSEP new
	if ((r in back) && back[r] != in_ SUBSEP old) { print "line " NR ": " space " " new " is had by two (input, id): " $0; bad = 1; exit }
	m[k] = new; back[r] = in_ SUBSEP old
}
{
	split($0, half, "\t"); in_ = val(half[1], "input")
	split(half[1], a, " "); split(half[2], b, " ")
	if (a[1] != b[1]) { print "line " NR ": kind"; bad = 1; exit }
	one("thread", val(half[1], "tid"), val(half[2], "tid"))
	one("lock", val(half[1], "lock"), val(half[2], "lock"))
	one("var", val(half[1], "var"), val(half[2], "var"))
	one("loc", val(half[1], "loc"), val(half[2], "loc"))
	if (b[1] == "fork" || b[1] == "join") one("thread", val(half[1], "child"), val(half[2], "child"))
}
END { if (!bad) print "ok " NR }
AWK

events() { grep -Ev '^(rapidbin-|std-header)' "$@"; }

pair() {	# A B: two corpus programs
	a=$1 b=$2 n=$1+$2
	rapidbin2txt "$S/$a.data" > "$a.txt"
	rapidbin2txt "$S/$b.data" > "$b.txt"
	txtmerge --tag "$a.txt" "$b.txt" > "$n.txt"
	events "$n.txt" > "$n.ev"
	is "$(grep -c 'input=0' "$n.ev"):$(grep -c 'input=1' "$n.ev")" "$(events "$a.txt" | wc -l | tr -d ' '):$(events "$b.txt" | wc -l | tr -d ' ')" "$n: txtmerge --tag: every event of each input, tagged"
	txt2rapidbin -q --meta "$n.json" "$n.txt" > "$n.data"
	is "$?" 0 "$n: txt2rapidbin encodes the tagged stream"
	rapidbin2txt "$n.data" | events > "$n.rb"
	paste "$n.ev" "$n.rb" | awk -f apart.awk > chk.txt
	is "$(cat chk.txt)" "ok $(wc -l < "$n.ev" | tr -d ' ')" "$n: rapidbin2txt: each input's threads, locks, variables and locations one to one, none shared by the inputs"
	# The variables and locks of the two inputs, as rapidbin2txt says them.
	for k in var lock; do
		for i in 0 1; do
			paste "$n.ev" "$n.rb" | grep "input=$i" | cut -f 2 | tr ' ' '\n' | grep "^$k=" | sort -u > "$k.$i"
		done
		is "$(comm -12 "$k.0" "$k.1" | wc -l | tr -d ' '):$(wc -l < "$k.0" | tr -d ' '):$(wc -l < "$k.1" | tr -d ' ')" \
		    "0:$(events "$a.txt" | tr ' ' '\n' | grep "^$k=" | sort -u | wc -l | tr -d ' '):$(events "$b.txt" | tr ' ' '\n' | grep "^$k=" | sort -u | wc -l | tr -d ' ')" \
		    "$n: the ${k}s of the two inputs are disjoint, as many as each input has"
	done
	txt2std --all "$n.txt" > "$n.std"
	std2txt "$n.std" | events > "$n.st"
	same_file "$n.st" "$n.rb" "$n: txt2std keeps them apart the same way (std2txt = rapidbin2txt, record by record)"
	# Each id's input in the metadata: as many rows per input as it has ids.
	for k in thread memory lock; do
		got=$(tr -d ' \n' < "$n.json" | sed "s/.*\"${k}_records\":\[\([^]]*\)\].*/\1/" | grep -o '"input":[0-9]*' | sort | uniq -c | awk '{ printf "%s ", $1 }')
		case $k in thread) f=tid ;; memory) f=var ;; lock) f=lock ;; esac
		want=$(for t in "$a.txt" "$b.txt"; do
			if [ $f = tid ]; then events "$t" | tr ' ' '\n' | grep -E '^(tid|child)=' | sed 's/^child=/tid=/' | sort -u | wc -l
			else events "$t" | tr ' ' '\n' | grep "^$f=" | sort -u | wc -l; fi
		done | awk '$1 > 0 { printf "%s ", $1 }')
		is "$got" "$want" "$n: --meta: the ${k}_records of each input"
	done
}

hb() { (cd "$RAPID_HOME" && java -cp "bin:lib/*:lib/jgrapht/*" HB -f std -p "$TMP/$1" 2>&1) |
    sed -n "s/^Number of 'racy' events found = //p"; }

for p in "Deadlock Bensalem" "Bensalem_dlf Deadlock"; do
	set -- $p
	pair "$1" "$2"
	if [ -n "${RAPID_HOME:-}" ] && [ -f "$RAPID_HOME/bin/HB.class" ] &&
	    command -v java >/dev/null 2>&1; then
		txt2std -q "$1.txt" > a.std
		txt2std -q "$2.txt" > b.std
		txt2std -q "$1+$2.txt" > m.std
		rapidbin2txt "$1+$2.data" | txt2std -q > mb.std
		ha=$(hb a.std) hb_=$(hb b.std)
		is "$(hb m.std):$(hb mb.std)" "$((ha + hb_)):$((ha + hb_))" "$1+$2: RAPID's HB on the merged trace (txt2std, and txt2rapidbin | rapidbin2txt | txt2std): $ha + $hb_ racy events"
	else
		skip "RAPID_HOME not set to a built RAPID" "$1+$2: RAPID's HB on the merged trace"
	fi
done

# One input, tagged: its ids are kept as they are.
txtmerge --tag Deadlock.txt > one.txt
txt2rapidbin -q one.txt | rapidbin2txt | events > one.rb
events Deadlock.txt > want.rb
same_file one.rb want.rb "one input, tagged: ids as they are"
done_testing
