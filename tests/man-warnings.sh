#!/bin/sh
# Every man page formats at 80 columns without a troff warning (a line
# that cannot be broken or adjusted, a bad request, a missing font).
. "$srcdir/tests/tap.sh"

if command -v man > /dev/null 2>&1 && man --help 2>&1 | grep -q -e '--warnings'; then
	run() { MANWIDTH=80 man --warnings -E UTF-8 -l "$1" 2>&1 >/dev/null; }
elif command -v groff > /dev/null 2>&1; then
	run() { groff -ww -man -Tutf8 -rLL=80n "$1" 2>&1 >/dev/null; }
else
	skip "neither man(1) with --warnings nor groff" "man pages format without warnings"
	done_testing
fi
n=0
for page in "$srcdir"/man/*.[157]; do
	is "$(run "$page")" "" "$(basename "$page"): no troff warning at 80 columns"
	n=$((n + 1))
done
[ "$n" -gt 0 ]; ok $? "man pages found"
done_testing
