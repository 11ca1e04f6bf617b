#!/bin/sh
# txt2wtf's output in WTF's own reader: the npm package tracing-framework
# (2015.7.15-1, the last release) is installed into this test's scratch
# directory and its wtf.db.load reads each trace through node.  The events
# it sees (per zone: time, name, arguments) are compared with what it sees
# in the original trace, or with what the text says.  Skipped when node or
# npm is missing or the package cannot be installed (no network).
. "$srcdir/tests/tap.sh"

. "$srcdir/tests/wtf-loader.sh"
wtf_loader
case $? in
1)	skip "node and npm are needed" "tracing-framework reads txt2wtf's output"
	done_testing ;;
2)	skip "npm install tracing-framework failed (offline?)" \
	    "tracing-framework reads txt2wtf's output"
	done_testing ;;
esac
# view FILE: the reader's events (not its console warnings), or exit 1.
view() { node load.js "$M" "$1" 2>/dev/null | grep '	'; }

# same_view NAME ORIGINAL TEXT [COLUMNS]: txt2wtf of TEXT loads and shows
# the events of ORIGINAL (COLUMNS: cut -f list to compare).
same_view() {
	cols=${4:-1-4}
	if txt2wtf -q "$3" > re.wtf && view re.wtf > re.view; then
		view "$2" | cut -f "$cols" > a.view
		cut -f "$cols" re.view > b.view
		[ -s a.view ] && cmp -s a.view b.view
		ok $? "$1: the reader sees the same events ($(wc -l < a.view | tr -d ' '))"
	else
		ok 1 "$1: txt2wtf's trace loads in the reader"
		head -3 re.view | sed 's/^/#   /'
	fi
}

C=$(corpus wtf)
for f in blk-client blk-server v10-js-alltypes v10-js-multichunk v10-cpp-bindings; do
	if [ -n "$C" ]; then
		wtf2txt "$C/$f.wtf-trace" > t.txt
		same_view "corpus $f" "$C/$f.wtf-trace" t.txt
		case $f in blk-client)
			# A legacy stream becomes a chunked one; an any argument's
			# JSON text becomes a string: times and names compared.
			grep -v '^wtf-define' t.txt > nodef.txt
			same_view "corpus $f without its definitions" \
			    "$C/$f.wtf-trace" nodef.txt 1-3 ;;
		esac
	else
		skip "no ../shared/corpus/wtf" "corpus $f: the reader sees the same events"
	fi
done

gen-wtf --records 3000 --zones 4 --seed 1 > v10.wtf
gen-wtf --legacy --records 3000 --zones 4 --seed 2 > legacy.wtf
for g in v10 legacy; do
	wtf2txt $g.wtf > $g.txt
	same_view "gen-wtf $g" $g.wtf $g.txt
	# Zone switches dropped: txt2wtf puts them back from tid.
	grep -v 'name=wtf.zone#set' $g.txt > noset.txt
	same_view "gen-wtf $g without its zone#set records" $g.wtf noset.txt
	# Definitions dropped: inferred from the events (types may widen,
	# so times and names are compared).
	grep -v '^wtf-define' $g.txt > nodef.txt
	same_view "gen-wtf $g without its definitions" $g.wtf nodef.txt 1-3
done

# A stream of another format's events: a chunked trace with definitions
# inferred from the values, zones from tid, times from ts.
cat > foreign.txt <<'EOT'
event tid=3 ts=1700000000001000000 name=poll worker=1 ok=true
event tid=3 ts=1700000000001002000 name=task id=42 delay=-7 label="io" load=0.5
event tid=5 ts=1700000000001005000 name=task id=43 delay=3 label="cpu" load=1.25
event tid=3 ts=1700000000001009000 name=span frames=[4096,8192] meta={k:"v"}
EOT
txt2wtf foreign.txt > foreign.wtf && view foreign.wtf > got.view
is "$(cat got.view)" "tid 3	0	poll	{\"worker\":1,\"ok\":true}
tid 3	2	task	{\"id\":42,\"delay\":-7,\"label\":\"io\",\"load\":0.5}
tid 3	9	span	{\"frames\":[4096,8192],\"meta\":{\"k\":\"v\"}}
tid 5	5	task	{\"id\":43,\"delay\":3,\"label\":\"cpu\",\"load\":1.25}" \
    "another format's events load with their zones, times and values"
done_testing
