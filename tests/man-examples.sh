#!/bin/sh
# Runs the EXAMPLES of every man page.  Inside .EX/.EE, a line "$ CMD" is a
# command run with sh in a scratch directory of its own page; the lines
# after it, up to the next "$ " line or .EE, are its exact expected
# standard output.  Every command must exit 0 and write nothing to
# standard error: a warning the page shows is made output (2>&1).  A page's examples make
# their own files with installed programs (trac-sample): nothing is
# provided.
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/man-run.sh"

pages=0
for man in "$srcdir"/man/*.[157]; do
	page=$(basename "$man")
	dir="$TMP/run-$page"
	mkdir "$dir" || exit 99
	man_run "$man" EXAMPLES
	n=$man_n
	pages=$((pages + 1))
	case "$page" in
	*.1) [ "$n" -gt 0 ]; ok $? "$page has runnable EXAMPLES" ;;
	esac
done
[ "$pages" -gt 0 ]; ok $? "man pages found"
# A SYNOPSIS takes as many FILEs as the program's --help says.
for man in "$srcdir"/man/*.1; do
	p=$(basename "$man" .1)
	command -v "$p" > /dev/null 2>&1 || continue
	want=$("$p" --help 2>/dev/null | sed -n '1s/.*\[FILE\]\(\.\.\.\)\{0,1\}.*/[FILE]\1/p')
	[ -n "$want" ] || continue
	got=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH [^S]/p' "$man" | sed -n 's/^\.RI \[ FILE \]\(\.\.\.\)\{0,1\}$/[FILE]\1/p; s/^\.RI \[ FILE \.\.\.\]$/[FILE].../p')
	is "$got" "$want" "$p(1) SYNOPSIS: FILE operands as --help says"
done
# A decoder's DIAGNOSTICS names the program for another format's file,
# never the decoder itself.
for man in "$srcdir"/man/*2txt.1; do
	p=$(basename "$man" .1)
	sed -n '/^\.SH DIAGNOSTICS/,/^\.SH [^D]/p' "$man" | sed 's/\\-/-/g' |
	    grep -e "^$p: .*; use $p\$" > self.txt
	is "$(cat self.txt)" "" "$p(1) DIAGNOSTICS: no line tells to use $p"
done
! grep -l 'gen\\-trac\|gen\\-rapidbin\|gen-trac\|gen-rapidbin' "$srcdir"/man/*.[157] > gen.txt
ok $? "no page uses the test generators, which are not installed$(sed 's|.*/| |' gen.txt | tr -d '\n')"
done_testing
