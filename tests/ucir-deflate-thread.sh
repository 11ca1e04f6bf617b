#!/bin/sh
# txt2ucir deflates replay frames on a second thread, in batches: the
# file is the same bytes as one thread's, frames in their order, across
# many batches of small frames and batches of one large frame; what is
# written before an error is the file's first bytes.
. "$srcdir/tests/tap.sh"

# 3000 frames of some 2 KiB: about 25 batches of 120 frames.
gen-ucir --frames 3000 --ops 40 --seed 21 --quirks > many.ucir
ucir2txt many.ucir > many.txt
txt2ucir many.txt > many.re
same_file many.re many.ucir "3000 small frames: byte for byte"
txt2ucir --level 1 many.txt > l1.re
ucir2txt l1.re > l1.txt
same_file l1.txt many.txt "at another level (frames of ucir2txt keep theirs): the same text"

# A frame larger than a batch, between small ones.
gen-ucir --frames 20 --ops 30000 --seed 22 > big.ucir
ucir2txt big.ucir > big.txt
txt2ucir big.txt > big.re
same_file big.re big.ucir "frames larger than a batch: byte for byte"

# A bad record inside the 2001st frame: what was written before the error
# (whole output buffers, as with one thread) is the start of the file.
n=$(grep -n '^ucir-frame' many.txt | sed -n 2001p | cut -d: -f1)
head -n "$n" many.txt > cut.txt
echo 'insn tid=0 pc=nonsense size=1' >> cut.txt
tail -n +"$((n + 1))" many.txt >> cut.txt
txt2ucir cut.txt > cut.re 2> cut.err
[ $? -eq 1 ]; ok $? "a bad record after 2000 frames: exit 1 ($(cat cut.err))"
size=$(wc -c < cut.re)
[ "$size" -gt 0 ] && head -c "$size" many.ucir | cmp -s - cut.re
ok $? "the $size bytes written before it are the start of the whole file"
done_testing
