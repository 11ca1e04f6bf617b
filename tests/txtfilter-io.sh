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

done_testing
