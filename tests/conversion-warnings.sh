#!/bin/sh
# What a conversion says afterwards (design: "Meaning across formats"):
# another format's structure (headers, schemas, definitions, pools) is
# rebuilt by the target, so it is no warning (said under -v only); a
# record the target cannot hold is, one line per cause, each with its
# first line.
. "$srcdir/tests/tap.sh"

gen-rapidbin > r.data || exit 99
rapidbin2txt r.data | txt2std > t.std 2>/dev/null || exit 99
std2txt t.std > std.txt || exit 99

# STD to RapidBin differs only by structure: no warning, the events kept.
txt2rapidbin < std.txt > back.data 2> warn.txt
ok $? "txt2rapidbin reads std2txt's stream"
is "$(cat warn.txt)" "" "no warning for a std-header rebuilt as a RapidBin header"
rapidbin2txt back.data | grep -v '^rapidbin-header' > got.txt
grep -v '^std-header' std.txt > want.txt
same_file got.txt want.txt "the events are those of the STD text, record by record"
is "$(txt2rapidbin -v < std.txt 2>&1 >/dev/null | grep rebuilt)" \
    "txt2rapidbin: rebuilt: 1 std-header record (another format's structure; this trace has its own)" \
    "-v says what was rebuilt"

# An x64dbg trace to RapidBin: the instructions are a real loss, the
# header is not.
trac-sample --blocks 5 > a.trac || exit 99
trac2txt a.trac > trac.txt || exit 99
txt2rapidbin < trac.txt 2>&1 >/dev/null | grep skipped > warn.txt
is "$(cat warn.txt)" \
    "txt2rapidbin: 5 records skipped, no RapidBin meaning (first at line 2: record kind \"insn\")" \
    "the instructions are reported, the trac-header not"

# Two causes of skips are two lines, each with its count and first line.
printf 'insn pc=0x1000 bytes=90 tid=1\nucir-map addr=0x1000 size=4096 prot=7\nrelease tid=1 lock=3\nucir-map addr=0x2000 size=4096 prot=7\nwtf-header\n' > two.txt
txt2trac < two.txt 2> warn.txt > two.trace64
ok $? "txt2trac writes what it can"
is "$(grep skipped warn.txt)" \
"txt2trac: 2 records skipped, not expressible in an x64dbg trace (first at line 2: record kind \"ucir-map\")
txt2trac: 1 record skipped, not expressible in an x64dbg trace (first at line 3: record kind \"release\")" \
    "two causes of skips, both reported"
txt2trac --strict < two.txt > /dev/null 2> err.txt
is "$? $(cat err.txt)" "1 txt2trac: <stdin>:2: record kind \"ucir-map\": not expressible in an x64dbg trace" \
    "--strict refuses the first"

# dial9 and WTF: schemas, pools and definitions are no loss either way.
gen-dial9 > g.trc 2>/dev/null || exit 99
gen-wtf > g.wtf 2>/dev/null || exit 99
for pair in "dial92txt g.trc txt2trac" "dial92txt g.trc txt2rapidbin" \
    "wtf2txt g.wtf txt2trac" "wtf2txt g.wtf txt2ucir" \
    "trac2txt a.trac txt2wtf" "trac2txt a.trac txt2dial9"; do
	set -- $pair
	$1 $2 | $3 2>&1 >/dev/null | grep -E -e '-(header|schema|strings|stacks|reset|define|chunk|part)"' > warn.txt
	is "$(cat warn.txt)" "" "$1 | $3: no structure record reported as skipped"
done
dial92txt g.trc | txt2trac -v 2>&1 >/dev/null | grep rebuilt | sed 's/ (.*//' | sort > got.txt
dial92txt g.trc | awk '$1 ~ /^dial9-(header|schema|strings|stacks|reset)$/ { n[$1]++ }
    END { for (k in n) printf "txt2trac: rebuilt: %d %s record%s\n", n[k], k, n[k] > 1 ? "s" : "" }' | sort > want.txt
[ -s want.txt ] && same_file got.txt want.txt "txt2trac -v: one line per kind of dial9 structure, counted as dial92txt wrote them"
done_testing
