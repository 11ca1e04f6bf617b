#!/bin/sh
# The splitters under valgrind's memcheck, which make check has where
# clang's sanitizers are not: the splitters' fuzz harness over its seeds
# (every format with a splitter, cut by the rules the seeds' first bytes
# pick), and tracesplit on small generated WTF traces, chunked and
# legacy, cut at every restart point.  Any invalid read or write, or use
# of freed memory, fails (WTF's writers restate wtf.event#define, whose
# entry the chunked splitter freed and then read: tests/fuzz-corpus/split/
# wtf-define-redefined.wtf-trace; a legacy definition whose name length
# ran past its record was read past the input's buffer:
# wtf-legacy-define-name-past-record.wtf-trace).
. "$srcdir/tests/tap.sh"

if ! command -v valgrind >/dev/null 2>&1; then
	skip "no valgrind" "the splitters under memcheck"
	done_testing
fi
# valgrind cannot run a program built with AddressSanitizer, which
# checks the same memory itself (that build runs the other split tests).
if grep -q __asan_init "$(command -v tracesplit)" 2>/dev/null; then
	skip "an AddressSanitizer build" "the splitters under memcheck"
	done_testing
fi
vg() {
	valgrind -q --error-exitcode=99 --leak-check=no "$@" 2> vg.err
	rc=$?
	[ "$rc" -eq 99 ] && sed -n '1,12s/^/# /p' vg.err
	return $rc
}

files=$(find "$srcdir/tests/fuzz-corpus/split" -type f | LC_ALL=C sort)
# shellcheck disable=SC2086
vg "$builddir/tests/fuzz-split" $files
ok $? "fuzz-split over $(echo "$files" | wc -l | tr -d ' ') seeds: no memory error"

gen-wtf --records 100 --zones 2 --chunk 256 --seed 5 > v10.wtf-trace
gen-wtf --legacy --records 30 --zones 2 --seed 6 > v3.wtf-trace
for t in v10 v3; do
	rm -f p-*
	vg "$builddir/filters/tracesplit" -l 1 $t.wtf-trace p
	rc=$?
	is "$rc" 0 "tracesplit -l 1, WTF $t: no memory error, exit 0"
	[ "$(ls p-* | wc -l)" -gt 5 ]
	ok $? "WTF $t: cut into $(ls p-* | wc -l | tr -d ' ') pieces"
done
done_testing
