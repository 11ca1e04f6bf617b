#!/bin/sh
# Every prefix of small traces: exit 1 with a diagnostic naming the offset
# (exit 0 only where the cut falls between blocks), no crash, and the text
# printed is a prefix of the text of the whole file; --allow-truncated
# accepts a cut last block quietly.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/trac

sed 's/#.*//' "$D/x86.hex" | xxd -r -p > x86.trace
gen-trac --arch x64 --blocks 3 --threads 2 --user-blocks --seed 3 > x64.trace

# prefixes FILE HEADER-END STEP: prefixes of every STEP-th length.
prefixes() {
	f=$1 hend=$2 step=$3
	size=$(wc -c < "$f" | tr -d ' ')
	trac2txt "$f" > full.txt || { ok 1 "$f decodes whole"; return; }
	bad_status=0 bad_diag=0 bad_prefix=0 bad_allow=0 clean=0 L=0
	while [ "$L" -lt "$size" ]; do
		head -c "$L" "$f" > cut
		trac2txt cut > out.txt 2> err.txt
		rc=$?
		case $rc in
		0) clean=$((clean + 1))
		   [ -s err.txt ] && bad_diag=$((bad_diag + 1)) ;;
		1) grep -q "^trac2txt: cut: offset 0x[0-9a-f]*[:,]" err.txt ||
			bad_diag=$((bad_diag + 1)) ;;
		*) bad_status=$((bad_status + 1)) ;;
		esac
		cmp -s -n "$(wc -c < out.txt)" out.txt full.txt ||
			bad_prefix=$((bad_prefix + 1))
		if [ "$L" -ge "$hend" ]; then
			trac2txt --allow-truncated cut > out2.txt 2> err.txt
			[ $? -eq 0 ] && [ ! -s err.txt ] && cmp -s out.txt out2.txt ||
				bad_allow=$((bad_allow + 1))
		fi
		L=$((L + step))
	done
	is "$bad_status" 0 "$f: prefixes (length step $step, $size bytes) exit 0 or 1"
	is "$bad_diag" 0 "$f: each failing prefix names the offset, clean ones say nothing"
	is "$bad_prefix" 0 "$f: each prefix prints a prefix of the full text"
	is "$bad_allow" 0 "$f: --allow-truncated accepts each prefix after the header"
	echo "# $f: $clean prefixes end between blocks"
}
# x86.trace: 8 + 106 header bytes; 7 blocks.  x64.trace: 8 + JSON.
prefixes x86.trace 114 1
jlen=$(head -c 8 x64.trace | tail -c 4 | od -An -tu4 | tr -d ' ')
prefixes x64.trace $((8 + jlen)) 3

# The exact diagnostics of a few cuts of x86.trace: block 0 is 1102 bytes
# at 0x72, block 1 (16 bytes) at 0x4c0, the user block (7 bytes) at 0x4d0.
check_cut() {
	head -c "$1" x86.trace > cut
	trac2txt cut > /dev/null 2> err.txt
	is "$? $(cat err.txt)" "1 trac2txt: cut: $2" "cut at $1 bytes"
}
check_cut 0 "offset 0x0: empty input: no TRAC header"
check_cut 3 "offset 0x0: truncated header: needs 8 bytes, only 3 left"
check_cut 50 "offset 0x8: truncated JSON header: needs 106 bytes, only 42 left"
check_cut 1223 "offset 0x4c0, block 1: truncated block: needs at least 8 bytes, only 7 left"
check_cut 1230 "offset 0x4c0, block 1: truncated block: needs at least 16 bytes, only 14 left"
check_cut 1235 "offset 0x4d0, block 2: truncated user block: needs 5 bytes, only 3 left"
check_cut 1238 "offset 0x4d0, block 2: truncated user block: needs 7 bytes, only 6 left"
head -c 1223 x86.trace | trac2txt --allow-truncated -v 2>&1 >/dev/null |
    grep -q "trace cut at offset 0x4c0"
ok $? "--allow-truncated -v says where the trace was cut"
head -c 50 x86.trace | trac2txt --allow-truncated > /dev/null 2>&1
is $? 1 "--allow-truncated still needs the whole header"
# gzip input cut short or damaged is an error (also with --allow-truncated)
# after the records of every block inflated before the fault.
gen-trac --threads 3 --user-blocks --blocks 400 --seed 5 > g.trace
trac2txt g.trace > full.txt
gzip -9 -c g.trace > g.gz
size=$(wc -c < g.gz | tr -d ' ')
head -c $((size - 4)) g.gz > cut.gz
trac2txt cut.gz > out.txt 2> err.txt
like "$? $(cat err.txt)" "1 trac2txt: cut.gz: offset 0x*, block 4??: truncated gzip stream (unexpected end of file)" \
    "gzip without its last 4 bytes: exit 1, offset and block named"
same_file out.txt full.txt "gzip without its trailer: every block is printed before the error"
trac2txt --allow-truncated cut.gz > /dev/null 2> err.txt
like "$? $(cat err.txt)" "1 *truncated gzip stream*" "--allow-truncated does not accept a cut gzip stream"
head -c $((size / 2)) g.gz > cut.gz
trac2txt cut.gz > out.txt 2> err.txt
like "$? $(cat err.txt)" "1 trac2txt: cut.gz: offset 0x*, block *: truncated gzip stream (unexpected end of file)" \
    "gzip cut in the middle: exit 1"
n=$(wc -c < out.txt | tr -d ' ')
cmp -s -n "$n" out.txt full.txt && [ "$(tail -c 1 out.txt | od -An -c | tr -d ' ')" = '\n' ] &&
    [ "$(wc -l < out.txt)" -gt 100 ]
ok $? "gzip cut in the middle: whole records, a prefix of the full text"
# The offset is where the inflated bytes end, inside the block named.
off=$(sed 's/.*offset \(0x[0-9a-f]*\),.*/\1/' err.txt)
blk=$(sed 's/.*block \([0-9]*\):.*/\1/' err.txt)
head -c $((off)) g.trace | trac2txt 2>&1 > /dev/null | grep -q "block $blk: truncated"
ok $? "gzip cut in the middle: the plain file cut at that offset fails at that block"

# A user block longer than 1 MiB is written in records of 1 MiB; cut
# inside its second MiB, the first record is out and the cut is an error
# even with --allow-truncated (what is printed cannot be taken back).
gen-trac --big-user 2500000 --blocks 3 --seed 4 > b.trace
trac2txt b.trace > full.txt
is "$(awk '/^trac-user/ { print $1, length($0) }' full.txt | tr '\n' ' ')" \
    "trac-user 2097190 trac-user-data 2097172 trac-user-data 805716 " \
    "a 2500000-byte user block: size= and 1 MiB, then 1 MiB and the rest"
# The user block starts where the header and block 0 end.
ustart=$(sed '/^trac-user/,$d' full.txt | txt2trac | wc -c | tr -d ' ')
nbefore=$(sed '/^trac-user/,$d' full.txt | wc -l | tr -d ' ')
head -c $((ustart + 5 + 1500000)) b.trace > cut
for opt in "" --allow-truncated; do
	trac2txt $opt cut > out.txt 2> err.txt
	is "$? $(cat err.txt)" "1 trac2txt: cut: offset 0x$(printf %x $ustart), block 1: truncated user block: 1500000 of 2500000 payload bytes (its first 1048576 were written)" \
	    "a long user block cut in its second MiB${opt:+ ($opt)}"
	is "$(tail -n 1 out.txt | awk '{ print $1, $2, $3, length($4) }')" \
	    "trac-user type=0x$(od -An -tx1 -j $ustart -N1 b.trace | tr -d ' ') size=2500000 2097157" \
	    "its first record, 1 MiB of data, is out${opt:+ ($opt)}"
done
head -c $((ustart + 5 + 1000000)) b.trace > cut
trac2txt --allow-truncated cut > out.txt 2> err.txt
is "$? $(cat err.txt) $(wc -l < out.txt | tr -d ' ')" "0  $nbefore" \
    "cut in its first MiB, nothing of it is out: --allow-truncated accepts it"
done_testing
