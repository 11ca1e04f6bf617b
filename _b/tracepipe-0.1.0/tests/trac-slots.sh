#!/bin/sh
# The register slot names of trac2txt and txt2trac are the tokens of the
# x64dbg reference's appendix, in slot order: 172 on x64, 216 on x86.
# tests/data/trac/slots-*.txt are the reference's comma-separated token
# lists, copied; when the shared reference is there they are compared
# with it too.
. "$srcdir/tests/tap.sh"
D=$srcdir/tests/data/trac
REF=${TP_SHARED:-}/reference/x64dbg.md

# tokens FILE: one token a line.
tokens() { tr -d ' \n' < "$1" | tr ',' '\n'; echo; }

for arch in x64 x86; do
	case $arch in x64) n=172 ps=8 ;; x86) n=216 ps=4 ;; esac
	tokens "$D/slots-$arch.txt" > want.txt
	is "$(wc -l < want.txt | tr -d ' ')" $n "$arch: the reference lists $n tokens"

	if [ -f "$REF" ]; then
		awk -v a="$arch" '
		$0 ~ "^" a " tokens in slot order" { f = 1; next }
		f && /^```$/ { if (inblk) exit; inblk = 1; next }
		f && inblk { print }' "$REF" > ref.txt
		same_file ref.txt "$D/slots-$arch.txt" "$arch: the copy is the reference's list"
	else
		skip "no shared reference" "$arch: the copy is the reference's list"
	fi

	# Decoder: the names of a full dump, in order.
	gen-trac --arch $arch --blocks 1 | trac2txt | sed -n 2p |
	    tr ' ' '\n' | sed '1,5d' | cut -d= -f1 > got.txt
	same_file got.txt want.txt "$arch: trac2txt names the $n slots of a full dump as the reference"

	# Encoder: every token, listed backwards with value slot + 1, lands
	# in its slot: the full dump's values read back in order are 1..n.
	{ printf 'insn tid=4 bytes=90'; tac want.txt |
	    awk -v n=$n '{ printf " %s=%d", $0, n - NR + 1 }'; echo; } > one.txt
	txt2trac --arch $arch one.txt > one.trace
	# 8 + 91 header bytes, then 4 + 4 (thread id) + 1 (opcode) + n positions.
	od -An -tu$ps -v -j $((8 + 91 + 9 + n)) -w$ps one.trace | tr -d ' ' > vals.txt
	seq 1 $n > seq.txt
	same_file vals.txt seq.txt "$arch: txt2trac puts each token in its slot"
	# pc is the cip slot: rip (slot 16, value 17) or eip (slot 8, value 9).
	pc=$(awk -v a=$arch 'NR == (a == "x64" ? 17 : 9) { printf "0x%x", NR }' want.txt)
	is "$(trac2txt one.trace | sed -n 2p)" \
	    "insn seq=0 tid=4 pc=$pc bytes=90$(awk '{ printf " %s=0x%x", $0, NR }' want.txt)" \
	    "$arch: trac2txt reads them back by name, pc from the cip slot"
done

# The slots the reference singles out (2.3): the instruction pointer,
# the packed segment registers, lastError.
is "$(tokens "$D/slots-x64.txt" | sed -n '17p;19p;20p;172p' | tr '\n' ' ')" \
    "rip gs_fs_es_ds cs_ss x87cwf_1_lasterror " "x64: slots 16, 18, 19 and 171"
is "$(tokens "$D/slots-x86.txt" | sed -n '9p;11p;12p;13p;216p' | tr '\n' ' ')" \
    "eip gs_fs es_ds cs_ss lasterror " "x86: slots 8, 10, 11, 12 and 215"
done_testing
