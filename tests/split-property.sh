# split-property.sh: what tests/split-dial9.sh and split-wtf.sh share
# (sourced after tap.sh, with FMT set to the format's short name and an
# events function: the payload records of a decoded text, structure
# records aside, on standard input).

# pieces MODE N FILE: tracesplit cuts the trace into p-NNNN.EXT, listed
# in order in pieces.list.
pieces() {
	rm -f p-* pieces.list
	tracesplit "$1" "$2" "$3" p 2> split.err
	rc=$?
	ls p-* 2>/dev/null | LC_ALL=C sort > pieces.list
	return $rc
}

# check NAME FILE MODE N: FILE cut by MODE N: every piece decodes, their
# payload records end to end are the whole's, line for line, and every
# piece round-trips byte for byte through FMT2txt | txt2FMT.
check() {
	pieces "$3" "$4" "$2"
	ok $? "$1 $3 $4: cut ($(wc -l < pieces.list | tr -d ' ') pieces)"
	"${FMT}2txt" "$2" | events > whole.ev
	: > cat.ev
	bad=0
	rt=0
	while read -r p; do
		"${FMT}2txt" "$p" > piece.txt || bad=$((bad + 1))
		events < piece.txt >> cat.ev
		"txt2$FMT" piece.txt | cmp -s - "$p" || rt=$((rt + 1))
	done < pieces.list
	is "$bad" 0 "$1 $3 $4: every piece decodes"
	[ -s whole.ev ] && cmp -s whole.ev cat.ev
	ok $? "$1 $3 $4: the pieces' events are the whole's ($(wc -l < whole.ev | tr -d ' '))"
	is "$rt" 0 "$1 $3 $4: every piece round-trips byte for byte"
}

# one_piece FILE: tracesplit --piece K writes piece K of -n 3 alone.
one_piece() {
	pieces -n 3 "$1"
	k=0
	bad=0
	while read -r p; do
		tracesplit -n 3 --piece $k -o one.piece "$1" &&
		    cmp -s one.piece "$p" || bad=$((bad + 1))
		k=$((k + 1))
	done < pieces.list
	is "$bad" 0 "--piece K gives piece K of -n 3"
}

# cut_trace NAME FILE: FILE, a trace cut short, cut into pieces of 30000
# bytes: exit 1, one line that is the decoder's diagnostic, the pieces
# before the fault written, their events the first of the trace's.
cut_trace() {
	pieces -b 30000 "$2"
	is "$?" 1 "$1: exit status 1"
	"${FMT}2txt" "$2" > cut.txt 2> cut.err
	is "$(wc -l < split.err | tr -d ' ')" 1 "$1: one line of diagnostic"
	is "$(sed 's/^tracesplit: //' split.err)" \
	    "$(sed "s/^${FMT}2txt: //" cut.err)" \
	    "$1: it names the fault's byte offset, as ${FMT}2txt does"
	[ "$(wc -l < pieces.list)" -ge 4 ]
	ok $? "$1: the pieces before the fault are written ($(wc -l < pieces.list | tr -d ' '))"
	events < cut.txt > cut.ev
	: > cat.ev
	while read -r p; do "${FMT}2txt" "$p" | events >> cat.ev; done < pieces.list
	[ -s cat.ev ] && head -n "$(wc -l < cat.ev)" cut.ev | cmp -s - cat.ev
	ok $? "$1: their events are the first of the trace's ($(wc -l < cat.ev | tr -d ' '))"
}
