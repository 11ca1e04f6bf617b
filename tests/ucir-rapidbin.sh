#!/bin/sh
# Cross-format: usercorn reads and writes go to txt2rapidbin as x64dbg's
# do (thread, address and code address mapped), in both usercorn formats.
. "$srcdir/tests/tap.sh"

gen-ucir --frames 30 --ops 80 --seed 6 > r.ucir
gen-ucir --format trace --frames 30 --ops 40 --seed 6 > t.ucir
for f in r t; do
	ucir2txt $f.ucir > $f.txt
	txt2rapidbin -q --meta $f.json $f.txt > $f.rb
	ok $? "$f: ucir2txt | txt2rapidbin"
	rapidbin2txt $f.rb > $f.rb.txt
	ok $? "$f: the RapidBin trace decodes"
	is "$(grep -c -E '^(read|write) ' $f.rb.txt)" \
	    "$(grep -c -E '^(read|write) ' $f.txt)" "$f: one event per read and write"
	# Event by event: the kinds in order, and each address's variable.
	grep -E '^(read|write) ' $f.txt | awk '{ print $1 }' > k1
	grep -E '^(read|write) ' $f.rb.txt | awk '{ print $1 }' > k2
	same_file k2 k1 "$f: reads and writes in the same order"
	grep -E '^(read|write) ' $f.txt | sed 's/.* addr=\([^ ]*\).*/\1/' > a1
	grep -E '^(read|write) ' $f.rb.txt | sed 's/.* var=\([^ ]*\).*/\1/' > v2
	paste -d' ' a1 v2 | sort -u | awk '{ n[$1]++; m[$2]++ }
	    END { for (a in n) if (n[a] > 1) bad++; for (v in m) if (m[v] > 1) bad++;
	    print bad + 0 }' > bad
	is "$(cat bad)" 0 "$f: one variable per address and one address per variable"
done
# The same pipeline with a filter in the middle.
txtfilter --type write r.txt | txt2rapidbin -q | rapidbin2txt > w.txt
is "$(grep -c '^write' w.txt)" "$(grep -c '^write' r.txt)" "txtfilter --type write between them"
done_testing
