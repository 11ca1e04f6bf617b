#!/bin/sh
# wtf2txt | txt2wtf gives back the input byte for byte (design principle
# 2): the five corpus traces (two real legacy traces, three written by the
# official JS and C++ writers) and gen-wtf's traces of both generations,
# with and without writer quirks, small and around the buffer sizes; and
# txt2wtf | wtf2txt gives back the text.
. "$srcdir/tests/tap.sh"

# roundtrip NAME FILE
roundtrip() {
	if wtf2txt "$2" > out.txt && txt2wtf out.txt > back.wtf; then
		same_file back.wtf "$2" "$1: byte-exact round trip"
		wtf2txt back.wtf | cmp -s - out.txt
		ok $? "$1: its text decodes from the re-encoded trace"
	else
		ok 1 "$1: round trip ran"
	fi
}

C=$(corpus wtf)
for f in blk-client blk-server v10-js-alltypes v10-js-multichunk v10-cpp-bindings; do
	if [ -n "$C" ] && [ -f "$C/$f.wtf-trace" ]; then
		roundtrip "corpus $f" "$C/$f.wtf-trace"
	else
		skip "no ../shared/corpus/wtf" "corpus $f: byte-exact round trip"
	fi
done

for seed in 1 2 3; do
	gen-wtf --records 3000 --seed $seed > g.wtf
	roundtrip "v10 seed $seed" g.wtf
	gen-wtf --legacy --records 3000 --seed $seed > g.wtf
	roundtrip "legacy seed $seed" g.wtf
	gen-wtf --quirks --records 4000 --zones 5 --seed $seed > g.wtf
	roundtrip "v10 quirks seed $seed" g.wtf
	gen-wtf --legacy --quirks --records 4000 --zones 5 --seed $seed > g.wtf
	roundtrip "legacy quirks seed $seed" g.wtf
done
# Chunks larger than the input buffer (256 KiB) and legacy records across
# its edge; many zones.
gen-wtf --records 60000 --chunk 1000000 --zones 300 --seed 4 > g.wtf
roundtrip "v10 chunks of 1 MB" g.wtf
gen-wtf --legacy --records 60000 --zones 300 --seed 5 > g.wtf
roundtrip "legacy 60000 records" g.wtf
# gzip input decodes the same.
gen-wtf --legacy --records 500 --seed 6 > g.wtf
gzip -c g.wtf > g.wtf.gz
wtf2txt g.wtf > a.txt && wtf2txt g.wtf.gz > b.txt
same_file b.txt a.txt "gzip-compressed input"

# At size: a million records of each generation, every 256 KiB input
# buffer boundary crossed; the record count is checked against the
# generator's own count of what it wrote.
gen-wtf --legacy --records 1000000 --seed 8 > big.wtf
roundtrip "legacy, 1000000 records" big.wtf
is "$(grep -c '^event \|^wtf-define ' out.txt)" \
    "$(gen-wtf --legacy --records 1000000 --seed 8 --count)" \
    "legacy, 1000000 records: as many records as gen-wtf wrote"
gen-wtf --records 1000000 --chunk 300000 --seed 9 > big.wtf
roundtrip "v10, 1000000 records in chunks of 300 kB" big.wtf
is "$(grep -c '^event \|^wtf-define ' out.txt)" \
    "$(gen-wtf --records 1000000 --chunk 300000 --seed 9 --count)" \
    "v10, 1000000 records: as many records as gen-wtf wrote"

# The generated traces hold what the round trips are meant to cover.
gen-wtf --quirks --records 4000 --zones 5 --seed 1 > q.wtf
wtf2txt q.wtf > q.txt
for what in ' wire=[0-9]* scope=' '\.pad=' 'type=binary_resource data=' \
    'type=string_resource data="' 'type=0x50007 data=' 'wtf-chunk id=[0-9]* type=0x7' \
    'type=string_table unique=true' 'type=string_table pad=' ' wa="' ' ca="' \
    ' c="' ' w="' 'nan:0x' ' arg.name=' ' arg.time=' 'i=\[' 'af=\[' ; do
	grep -q -- "$what" q.txt
	ok $? "v10 quirks text has '$what'"
done
gen-wtf --legacy --quirks --records 4000 --zones 5 --seed 1 > q.wtf
wtf2txt -v q.wtf > q.txt 2> err.txt
for what in 'context.chars=' 'x="42" x.chars=5' ' u="\\xed\\xa0\\xbd' 'a="\\xe9"' 'scope=' 'x=null'; do
	grep -q -- "$what" q.txt
	ok $? "legacy quirks text has '$what'"
done
like "$(cat err.txt)" "*records earlier than the one before*" "-v counts records that go back in time"
n=$(sed 's/.* \([0-9]*\) records earlier.*/\1/' err.txt)
[ "$n" -gt 0 ]
ok $? "legacy quirks: time goes backwards ($n records)"
done_testing
