#!/bin/sh
# The library never exits and never prints: no object of common/ (format
# modules, text reader and writer, I/O layer, helpers) references exit,
# abort, the printf family's output, stdout or stderr, or the program
# side's printing and dying functions.  Only the program side (diag.o:
# the diagnostics main() prints; opts.o: option parsing; report.o: what
# the decoders' programs say after an input; prog.o: the
# converters' main() body) may.  A new module is covered by being built.
. "$srcdir/tests/tap.sh"
command -v nm > /dev/null || { skip "no nm" "library objects"; done_testing; }

forbidden='exit|_exit|_Exit|quick_exit|abort|__assert_fail|raise|kill'
forbidden="$forbidden|printf|fprintf|vprintf|vfprintf|dprintf|vdprintf"
forbidden="$forbidden|__printf_chk|__fprintf_chk|__vprintf_chk|__vfprintf_chk|__dprintf_chk"
forbidden="$forbidden|puts|fputs|putchar|fputc|putc|fwrite|perror|psignal|stdout|stderr"
forbidden="$forbidden|err|errx|verr|warn|warnx|vwarn|error|error_at_line"
forbidden="$forbidden|tp_die|tp_warn|tp_note|tp_err_print|tp_usage_error"

n=0
for o in $(find "$builddir/lib" "$builddir/prog" -name "*.o" | sort); do
	[ -f "$o" ] || continue
	name=${o##*/}
	name=${name#libtracepipe_a-}
	case $name in diag.o | opts.o | prog.o | report.o) continue ;; esac
	n=$((n + 1))
	bad=$(nm -u "$o" | awk '{ print $NF }' | grep -Ex "$forbidden" | tr '\n' ' ')
	is "$bad" "" "$name references nothing that exits or prints"
done
[ "$n" -ge 10 ]
ok $? "$n library objects checked"
done_testing
