#!/bin/sh
# dial9 -> WTF -> dial9 (dial92txt | txt2wtf | wtf2txt | txt2dial9 |
# dial92txt) gives back every event of every dial9 corpus file, record
# by record against dial92txt of the original: its name, its time to the
# microsecond (WTF's resolution), its thread (worker: tid= and
# worker_id=, or none) and every field with its value of the same kind.
# What legitimately changes, and why:
# - ts: truncated to the microsecond, WTF's resolution;
# - an event at dial9's ts=0 (SymbolTableEntry) or untimed comes back at
#   the WTF trace's timebase (WTF has no untimed event; txt2wtf counts
#   each one as changed, and it is checked so here);
# - id= and raw=: which schema of a name and wire details (varint
#   lengths, pool ids) are the dial9 encoder's own, rebuilt by txt2dial9;
# - a stack (inline or pooled, hex addresses) comes back a dynamic list
#   of the same integers (WTF has no address type: txt2wtf writes the
#   addresses as integers, and a list of integers is a list); checked
#   as the same integers in the same order;
# - integer widths (u8, u16, u32, varint) are one kind in the text and
#   in WTF: their values are compared, the schema's width is txt2dial9's
#   inference (varint);
# - WTF's zones come back as wtf.zone#create and wtf.zone#set events
#   (txt2dial9 keeps another format's events): they are txt2wtf's zone
#   bookkeeping, not the original's events, and are left out here.
. "$srcdir/tests/tap.sh"
C=$(corpus dial9)
[ -n "$C" ] || { skip "no ../shared/corpus/dial9" "dial9 -> WTF -> dial9"; done_testing; exit 0; }

# One line per event: name, ts in us ("-" when none, "0" at ts=0), tid,
# worker_id, then every other field as key=value, a stack or a list of
# {type:value} integers as a list of decimal integers.
norm() {
	awk "$TV_AWK"'
	# a hex number (no 0x) as a decimal string, exactly (64 bits and
	# more: awk numbers are doubles)
	function hex2dec(h,   i, j, d, c, n, out) {
		n = 1; d[1] = 0
		for (i = 1; i <= length(h); i++) {
			c = index("0123456789abcdef", tolower(substr(h, i, 1))) - 1
			for (j = 1; j <= n; j++) {
				c += d[j] * 16; d[j] = c % 10; c = int(c / 10)
			}
			while (c > 0) { d[++n] = c % 10; c = int(c / 10) }
		}
		out = ""
		for (j = n; j >= 1; j--) out = out d[j]
		return out
	}
	function list(v,   s, n, i, e, out) {
		if (v !~ /^\[(0x|\{)/) return v
		s = substr(v, 2, length(v) - 2); n = split(s, e, ",")
		out = ""
		for (i = 1; i <= n; i++) {
			if (e[i] ~ /^0x/) e[i] = hex2dec(substr(e[i], 3))
			else if (e[i] ~ /^\{(varint|u8|u16|u32|i64):[0-9-]+\}$/) { sub(/^\{[a-z0-9]+:/, "", e[i]); sub(/\}$/, "", e[i]) }
			else return v
			out = out (i > 1 ? "," : "") e[i]
		}
		return "[" out "]"
	}
	$1 != "event" { next }
	/ name=wtf\.zone#/ { next }
	{
		name = ""; ts = "-"; tid = "-"; wid = "-"; rest = ""
		s = substr($0, 7)
		while (s != "") {
			sub(/^ +/, "", s)
			p = index(s, "="); k = substr(s, 1, p - 1); s = substr(s, p + 1)
			v = substr(s, 1, tv_len(s, " "))
			s = substr(s, length(v) + 1)
			if (k == "name") name = v
			else if (k == "ts") ts = (length(v) > 3 ? substr(v, 1, length(v) - 3) : 0)
			else if (k == "tid") tid = v
			else if (k == "worker_id") wid = v
			else if (k == "id" || k == "raw") continue
			else rest = rest " " k "=" list(v)
		}
		print name " ts=" ts " tid=" tid " worker=" wid " |" rest
	}'
}

# Record by record: the same line, but an untimed event (ts - or 0) is
# at the timebase TB.
compare() {	# WANT GOT TB NAME
	paste -d '\n' "$1" "$2" | awk -v tb="$3" '
	NR % 2 == 1 { w = $0; next }
	{
		n++
		g = $0
		if (w ~ / ts=[-0] tid=/) sub(/ ts=[-0] tid=/, " ts=" tb " tid=", w)
		if (w != g) { if (bad++ < 5) print "# want: " w "\n# got:  " g }
	}
	END { print (bad + 0) " " n }' > cmp.txt
	wn=$(wc -l < "$1" | tr -d ' '); gn=$(wc -l < "$2" | tr -d ' ')
	is "$(tail -n 1 cmp.txt):$gn" "0 $wn:$wn" "$4"
	grep '^#' cmp.txt
}

for f in annotations-2026-07.trc.gz block-in-place-small.trc.gz \
    multisegment-2026-03-28.trc.gz optional-fields-2026-04-16.trc \
    stackpool-2026-05-08.trc.gz upstream-head-2026-05-15.trc.gz \
    v1-seedera-2026-03-18.trc v1-seedera-symbols-2026-03-19.trc.gz; do
	dial92txt "$C/$f" > d.txt || { ok 1 "$f: dial92txt"; continue; }
	case $f in multisegment*)
		# Its SegmentMetadataEvent has a wall-clock time, 56 years
		# after the others: no WTF timebase holds both (txt2wtf
		# refuses it, wtf-cross.sh checks the message).
		grep -v '^event name=SegmentMetadataEvent ts=1774629997592051768 ' d.txt > d2.txt
		mv d2.txt d.txt ;;
	esac
	txt2wtf d.txt > d.wtf 2> w.err && wtf2txt d.wtf > w.txt &&
	    txt2dial9 w.txt > b.trc 2> b.err && dial92txt b.trc > b.txt
	ok $? "$f: through WTF and back"
	# The timebase, in us: the file header's (ms).
	tb=$(sed -n 's/.*\\"timebase\\":\([0-9]*\).*/\1/p' w.txt | head -n 1)
	tb=$((tb * 1000))
	# txt2dial9 loses nothing; txt2wtf says only what WTF cannot hold:
	# dial9's field annotations (units), and the untimed events when
	# the timebase is not 0 (at 0, ts=0 is exact).
	ann=$(grep -c '^dial9-annotations' d.txt)
	untimed=$(grep '^event' d.txt | grep -vc ' ts=[1-9]')
	[ "$tb" -eq 0 ] && untimed=0
	want=
	[ "$ann" -gt 0 ] && want="txt2wtf: $ann record* skipped, not expressible in a WTF trace (first at line *: record kind \"dial9-annotations\")"
	[ "$untimed" -gt 0 ] && want="${want:+$want
}txt2wtf: $untimed record* changed: an event without a time, or at dial9's untimed ts=0, written at the timebase (first at line *)"
	like "$(cat b.err)|$(cat w.err)" "|$want" \
	    "$f: txt2dial9 says nothing lost; txt2wtf: ${ann} annotations skipped, ${untimed} untimed events at the timebase"
	norm < d.txt > want.txt
	norm < b.txt > got.txt
	compare want.txt got.txt "$tb" "$f: all $(wc -l < want.txt | tr -d ' ') events back, name, ts (us), worker, every field and its kind"
done

# Two traces merged with --tag: txt2wtf names the second input's zones
# "tid N (input 1)"; back in dial9 its workers stay apart from the
# first's, numbered as txt2dial9 numbers a --tag merge given directly.
dial92txt "$C/block-in-place-small.trc.gz" > a.txt
txtmerge -q --tag a.txt a.txt > t.txt
txt2wtf t.txt 2> /dev/null | wtf2txt > tw.txt && txt2dial9 tw.txt > tw.trc 2> tw.err
is "$?:$(cat tw.err):$(grep -c 'arg.name="tid [0-9]* (input 1)"' tw.txt)" "0::4" \
    "--tag merge through WTF: four workers of input 1 in zones of their own, nothing lost"
tb=$(sed -n 's/.*\\"timebase\\":\([0-9]*\).*/\1/p' tw.txt | head -n 1)
txt2dial9 t.txt | dial92txt | norm > want.txt
dial92txt tw.trc | norm > got.txt
compare want.txt got.txt "$((tb * 1000))" "--tag merge through WTF: the events of txt2dial9's --tag merge, workers apart ($(cut -d' ' -f3,4 want.txt | sort -u | grep -vc 'tid=-'))"
done_testing
