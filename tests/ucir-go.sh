#!/bin/sh
# txt2ucir --trace read by usercorn's own reader: the ops package of
# usercorn's Go trace code (go/models/trace/ops.go, from a checkout named
# by USERCORN_SRC) over golang/snappy's framing reader, built in the
# scratch directory and run on a trace written here; every op it reads,
# printed as trace text, must be what ucir2txt reads.  The header is
# parsed by hand (usercorn's header reader needs its cgo arch package).
# SKIP without USERCORN_SRC, without go (Debian: golang-go), or without
# golang/snappy and pkg/errors (golang-github-golang-snappy-dev,
# golang-github-pkg-errors-dev).  Nothing of usercorn is kept.
. "$srcdir/tests/tap.sh"

. "$srcdir/tests/ucir-reader.sh"
if ! ucir_reader; then
	skip "$ucir_why" "usercorn's Go reader"
	done_testing
fi
ok 0 "usercorn's ops package builds"

# x64dbg traces of several threads, and a generated usercorn trace with
# maps, syscalls, NOPs and frames of another pid.
gen-trac --arch x64 --threads 3 --blocks 400 --seed 5 | trac2txt > x64.txt
gen-trac --arch x86 --threads 3 --blocks 400 --seed 6 | trac2txt > x86.txt
gen-ucir --format trace --frames 200 --ops 40 --seed 8 | ucir2txt > gen.txt
for t in x64 x86 gen; do
	txt2ucir --trace $t.txt > $t.ucir 2> /dev/null
	ok $? "$t: txt2ucir --trace"
	ucir2txt $t.ucir > $t.want
	./ucirread $t.ucir > $t.go 2> err.txt
	ok $? "$t: usercorn's reader reads it: $(cat err.txt)"
	is "$(grep -c . $t.go)" "$(grep -c . $t.want)" "$t: as many ops as ucir2txt reads"
	# Registers by number: txt2ucir names them as ucir2txt does.
	txt2ucir --trace $t.go | ucir2txt > $t.got
	same_file $t.got $t.want "$t: every op the same"
done
done_testing
