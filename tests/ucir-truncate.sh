#!/bin/sh
# Prefixes of a replay file and of a trace-format file (every one up to
# 100 bytes, every 19th after): exit status 1 and a diagnostic with the
# offset, no crash, and the text printed is a prefix of the whole text.
# A replay cut between two frames is a valid replay: exit 0, and its text
# encodes into exactly the bytes before the cut; a trace cut right after
# the Snappy stream identifier is an empty trace.
. "$srcdir/tests/tap.sh"

gen-ucir --frames 12 --ops 12 --seed 4 --quirks > r.ucir
gen-ucir --format trace --frames 6 --ops 10 --seed 4 > t.ucir
for f in r t; do
	ucir2txt $f.ucir > $f.full
	size=$(wc -c < $f.ucir)
	bad=0 badmsg=0 badpre=0 n=0 whole=0
	cut=0
	while [ $cut -lt "$size" ]; do
		head -c $cut $f.ucir > cut.ucir
		ucir2txt cut.ucir > cut.txt 2> cut.err
		rc=$?
		n=$((n + 1))
		if [ $rc -eq 0 ] && [ ! -s cut.err ] && [ $f = r ] && [ $cut -ge 80 ] &&
		    txt2ucir cut.txt | cmp -s - cut.ucir; then
			whole=$((whole + 1))
		elif [ $rc -eq 0 ] && [ $f = t ] && [ $cut -eq 84 ] &&
		    [ "$(wc -l < cut.txt)" -eq 1 ]; then
			whole=$((whole + 1))	# the stream identifier alone
		else
			[ $rc -eq 1 ] || { bad=$((bad + 1)); echo "# cut $cut: exit $rc"; }
			grep -q '^ucir2txt: cut.ucir: offset 0x[0-9a-f]*' cut.err ||
			    { badmsg=$((badmsg + 1)); echo "# cut $cut: $(cat cut.err)"; }
		fi
		head -c "$(wc -c < cut.txt)" $f.full | cmp -s - cut.txt ||
		    { badpre=$((badpre + 1)); echo "# cut $cut: not a prefix"; }
		# Dense at the start, every 7th byte after.
		if [ $cut -lt 100 ]; then cut=$((cut + 1)); else cut=$((cut + 19)); fi
	done
	is $bad 0 "$f: $n prefixes of $size bytes exit 1 ($whole whole files)"
	is $badmsg 0 "$f: each names its offset"
	is $badpre 0 "$f: each prints a prefix of the whole text"
done

# The replay prefix is whole frames: it encodes into the file up to the
# offset named.
head -c 1000 r.ucir > c.ucir
ucir2txt c.ucir > c.txt 2> c.err
off=$(sed -n 's/.*offset 0x\([0-9a-f]*\).*/\1/p' c.err)
txt2ucir c.txt > c.re
head -c $((0x$off)) r.ucir | cmp -s - c.re
ok $? "a cut replay's text encodes into the file up to the offset named (0x$off)"
grep -q 'truncated frame data' c.err; ok $? "the cut frame is named: $(cat c.err)"

# Cut gzip input: the same, from the inflated bytes.
gzip -c r.ucir | head -c 700 > g.ucir.gz
ucir2txt g.ucir.gz > g.txt 2> g.err
is $? 1 "cut gzip input: exit 1"
head -c "$(wc -c < g.txt)" r.full | cmp -s - g.txt; ok $? "cut gzip input: a prefix"
done_testing
