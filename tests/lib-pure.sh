#!/bin/sh
# The library never prints, exits or aborts: only the mains (with the
# printing layer diag.c, opts.c and prog.c) decide what is said and the
# exit status.  Checked on the built objects of common/: none of the
# others references exit, abort, the printf family or stdout/stderr, and
# only the output module's signal handler raises (to die by the signal
# that removed the temporary files).
. "$srcdir/tests/tap.sh"
if ! command -v nm > /dev/null; then
	skip "no nm" "library objects"
	done_testing
fi
banned='^(exit|_exit|_Exit|abort|printf|fprintf|vfprintf|dprintf|vdprintf|puts|fputs|fputc|putc|putchar|perror|fwrite|fflush|stderr|stdout|err|errx|warn|warnx|verr|vwarn|error|tp_warn|tp_note|tp_err_print|tp_usage_error|tp_die)$'
n=0
for o in $(find "$builddir/lib" "$builddir/prog" -name "*.o" | sort); do
	name=${o##*/}; name=${name#libtracepipe_a-}
	case $name in diag.o | opts.o | prog.o | report.o) continue ;; esac
	n=$((n + 1))
	bad=$(nm -u "$o" | awk '{ print $NF }' | grep -E "$banned" | tr '\n' ' ')
	[ "$name" = output.o ] || bad=$bad$(nm -u "$o" | awk '{ print $NF }' | grep -x raise)
	is "$bad" "" "common/$name: no exit, abort, printing or raise"
done
[ $n -ge 3 ]; ok $? "found the library's objects ($n)"
done_testing
