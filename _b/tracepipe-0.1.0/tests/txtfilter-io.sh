#!/bin/sh
# txtfilter: gzip input, stdin and file operands, big and long-lined
# input, and a reader that goes away (| head -1).
. "$srcdir/tests/tap.sh"

# 200000 records over 4 threads, with a header and comments on the way.
awk 'BEGIN {
	print "trac-header arch=x64 json=\"{\\\"ver\\\":1}\""
	for (i = 0; i < 200000; i++) {
		if (i % 50000 == 0)
			print "# block " i
		printf "insn seq=%d tid=%d pc=0x%x bytes=90\n", i, i % 4, 4096 + i
	}
}' > big.txt
awk '/^#|^trac-header|tid=2 /' big.txt > big2.want

txtfilter --tid 2 big.txt > big2.txt
same_file big2.txt big2.want "big input: file operand"
txtfilter --tid 2 < big.txt > big2s.txt
same_file big2s.txt big2.want "big input: stdin"
txtfilter --tid 2 - < big.txt > big2d.txt
same_file big2d.txt big2.want "big input: - means stdin"
cat big.txt | txtfilter --tid 2 > big2p.txt
same_file big2p.txt big2.want "big input: from a pipe"
txtfilter big.txt > all.txt
same_file all.txt big.txt "big input: no selector copies it all"
is "$(txtfilter -c --tid 1-2 big.txt)" 100000 "big input: -c"
is "$(txtfilter -c --addr 0x1000-0x1fff big.txt)" 4096 "big input: --addr"

gzip -c big.txt > big.txt.gz
txtfilter --tid 2 big.txt.gz > gz.txt
same_file gz.txt big2.want "gzip input, file"
txtfilter --tid 2 < big.txt.gz > gzs.txt
same_file gzs.txt big2.want "gzip input, stdin"
head -c 20000 big.txt.gz > cut.gz
txtfilter --tid 2 cut.gz > /dev/null 2> err.txt
is "$?" 2 "truncated gzip: status 2"
like "$(cat err.txt)" "txtfilter: cut.gz*truncated*" "truncated gzip: reported"

# The reader goes away: no message, no error status from txtfilter.
( txtfilter big.txt 2> err1.txt; echo $? > st1.txt ) | head -1 > h1.txt
is "$(cat h1.txt)" 'trac-header arch=x64 json="{\"ver\":1}"' "| head -1: first line"
is "$(cat err1.txt)" "" "| head -1: nothing on stderr"
like "$(cat st1.txt)" "[0-9]*" "| head -1: ended"
st=$(cat st1.txt)
if [ "$st" -eq 0 ] || [ "$st" -eq 141 ]; then ok 0 "| head -1: status $st (0 or SIGPIPE)"
else ok 1 "| head -1: status $st"; fi
txtfilter --tid 3 big.txt.gz 2> err2.txt | head -1 > /dev/null
is "$(cat err2.txt)" "" "gzip | head -1: nothing on stderr"

# Lines longer than the input block and the output slack.
awk 'BEGIN {
	s = "00"; while (length(s) < 300000) s = s s
	print "insn tid=1 pc=0x10 bytes=" s
	print "insn tid=2 pc=0x20 bytes=" s
	printf "insn tid=1 pc=0x30 bytes=%s", s
}' > long.txt
awk 'NR != 2' long.txt > long.want
txtfilter -t 1 long.txt > long.out
same_file long.out long.want "long lines, the last without a newline"

# Output longer than the output buffer, as one piece per line or in bulk.
is "$(txtfilter big.txt | cksum)" "$(cksum < big.txt)" "output bigger than the buffer"

# On a real decoder's output, against an awk oracle that splits fields.
if command -v gen-trac > /dev/null && command -v trac2txt > /dev/null &&
    gen-trac --arch x64 --threads 4 --blocks 3000 --seed 5 > t.trace64 &&
    trac2txt t.trace64 > t.txt; then
	tid=$(grep -m1 -o ' tid=[0-9]*' t.txt | cut -d= -f2)
	# oracle TIDLO TIDHI ADDRLO ADDRHI: selection by field value.
	oracle() {
		awk -v tlo="$1" -v thi="$2" -v alo="$3" -v ahi="$4" '
		function hex(s,  i, v) {
			v = 0; s = tolower(substr(s, 3))
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		$1 !~ /^(insn|read|write)$/ { print; next }
		{
			t = -1; pc = -1; ad = -1
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^tid=/) t = substr($i, 5) + 0
				if ($i ~ /^pc=/) pc = hex(substr($i, 4))
				if ($i ~ /^addr=/) ad = hex(substr($i, 6))
			}
			if (t < tlo || t > thi) next
			if (alo >= 0 && !((pc >= alo && pc <= ahi) || (ad >= alo && ad <= ahi))) next
			print
		}' t.txt
	}
	oracle "$tid" "$tid" -1 -1 > o1.txt
	txtfilter --tid "$tid" t.txt > f1.txt
	same_file f1.txt o1.txt "trac2txt output: --tid $tid as the oracle"
	is "$(grep -c '^trac-header' f1.txt)" 1 "trac2txt output: the header passes"
	# Stack addresses (0x14f000-0x14ffff) by pc or addr.
	oracle 0 99999999 $((0x14f000)) $((0x14ffff)) > o2.txt
	txtfilter --addr 0x14f000+0x1000 t.txt > f2.txt
	same_file f2.txt o2.txt "trac2txt output: --addr as the oracle"
	txtfilter t.txt > f3.txt
	same_file f3.txt t.txt "trac2txt output: passes unchanged"
else
	skip "gen-trac or trac2txt missing" "trac2txt output: --tid as the oracle"
	skip "gen-trac or trac2txt missing" "trac2txt output: the header passes"
	skip "gen-trac or trac2txt missing" "trac2txt output: --addr as the oracle"
	skip "gen-trac or trac2txt missing" "trac2txt output: passes unchanged"
fi

done_testing
