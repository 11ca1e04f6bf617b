#!/bin/sh
# The library never exits and never prints: no object of lib/ (base
# codecs, I/O, the text reader and writer, the formats, the tools)
# references exit, abort, raise, the printf family's output, stdout or
# stderr, or the program side's printing and dying functions.  Only the
# program side (prog/: diagnostics, options, the driver, the signal
# handler) and the mains may.  A new module is covered by being built
# under lib/.
. "$srcdir/tests/tap.sh"
command -v nm > /dev/null || { skip "no nm" "library objects"; done_testing; }

forbidden='exit|_exit|_Exit|quick_exit|abort|__assert_fail|raise|kill'
forbidden="$forbidden|printf|fprintf|vprintf|vfprintf|dprintf|vdprintf"
forbidden="$forbidden|__printf_chk|__fprintf_chk|__vprintf_chk|__vfprintf_chk|__dprintf_chk"
forbidden="$forbidden|puts|fputs|putchar|fputc|putc|fwrite|fflush|perror|psignal|stdout|stderr"
forbidden="$forbidden|err|errx|verr|warn|warnx|vwarn|error|error_at_line"
forbidden="$forbidden|tp_die|tp_warn|tp_note|tp_error|tp_err_print|tp_usage_error"
forbidden="$forbidden|tp_progname|tp_verbosity"

n=0
for o in $(find "$builddir/lib" -name '*.o' | sort); do
	name=${o#"$builddir"/}
	n=$((n + 1))
	bad=$(nm -u "$o" | awk '{ print $NF }' | grep -Ex "$forbidden" | tr '\n' ' ')
	is "$bad" "" "$name references nothing that exits or prints"
done
[ "$n" -ge 20 ]
ok $? "$n library objects checked"
done_testing
