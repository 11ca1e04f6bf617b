#!/bin/sh
# Summaries that combine (issue 25): every corpus trace a decoder reads
# whole, and generated x64dbg and Usercorn traces, cut by tracesplit into
# 3 and into 7 pieces; each piece decoded and summarised with
# txtstat --json; txtstat --merge of the summaries is txtstat of the
# whole, text and JSON, once the structure every piece restates is left
# out (split-norm.sh).  Without that, the merged report differs from the
# whole's only in the structure kinds.
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/split-norm.sh"

# merged NAME FMT FILE N
merged() {
	rm -rf pieces && mkdir pieces
	tracesplit -q -n "$4" "$3" pieces/x || { ok 1 "$1 -n $4: cut"; return; }
	"${2}2txt" -q "$3" > whole.txt
	norm_"$2" < whole.txt | txtstat > want.txt
	norm_"$2" < whole.txt | txtstat --json > want.json
	rm -f part-*.json raw-*.json
	k=0
	for p in pieces/x-*; do
		"${2}2txt" -q "$p" > p.txt
		norm_"$2" < p.txt | txtstat --json > part-$k.json
		txtstat --json p.txt > raw-$k.json
		k=$((k + 1))
	done
	txtstat --merge part-*.json > got.txt
	same_file got.txt want.txt "$1 in $k pieces (-n $4): txtstat --merge of the pieces is txtstat of the whole"
	txtstat --merge --json part-*.json > got.json
	same_file got.json want.json "$1 in $k pieces (-n $4): and so is its --json"
	# Unfiltered: the same payload counts, kind by kind.
	txtstat --merge raw-*.json | awk '$1 == "records" { r = 1; next }
	    r && /^  / { print $1, $2 } /^[^ ]/ && r { exit }' > kinds.got
	txtstat whole.txt | awk '$1 == "records" { r = 1; next }
	    r && /^  / { print $1, $2 } /^[^ ]/ && r { exit }' > kinds.want
	if [ "$2" = wtf ] || [ "$2" = ucir ]; then
		return	# their restated structure is events and frames
	fi
	grep -v "^$2-" kinds.got > a; grep -v "^$2-" kinds.want > b
	cmp -s a b
	ok $? "$1 in $k pieces: unfiltered, the payload kinds count as the whole's"
}

n=0
for dir in rapidbin dial9 wtf; do
	C=$(corpus $dir)
	[ -n "$C" ] || continue
	for f in $(find "$C" -type f | sort); do
		fmt=$(any2txt -l "$f" 2>/dev/null | sed 's/^.*: \([a-z0-9]*\).*/\1/')
		case $fmt in rapidbin|std|dial9|wtf) ;; *) continue ;; esac
		# A file its decoder refuses has no whole to compare with.
		"${fmt}2txt" -q "$f" > /dev/null 2>&1 || continue
		for k in 3 7; do merged "${f#"$C"/}" "$fmt" "$f" $k; done
		n=$((n + 1))
	done
done
if [ "$n" -eq 0 ]; then
	skip "no corpus (TP_SHARED)" "txtstat --merge of corpus pieces"
fi
gen-trac --blocks 3000 --sessions 2 --threads 4 --user-blocks --seed 8 > g.trace64
merged "generated x64dbg" trac g.trace64 3
gen-ucir --format trace --frames 1500 --ops 60 --seed 5 > g.ucir
merged "generated Usercorn trace" ucir g.ucir 3
gen-ucir --format replay --frames 300 --ops 200 --seed 2 > r.ucir
merged "generated Usercorn replay" ucir r.ucir 3
done_testing
