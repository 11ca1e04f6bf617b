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

# The layers (README.md, HACKING.md): each object of lib/ uses only its
# own layer and those below it, base < io < text < formats < tools; a
# format uses no other format (but RAPID's STD text, formats/std, spells
# RapidBin's events: it uses their model in formats/rapidbin) and not the
# registry that lists them; and
# no two objects use each other.  Every symbol the library or the program
# side exports has a user in another object (a program, a test, a module).
# Symbols of the compiler's own (__odr_asan.* under the sanitizers) are
# not the library's: they are left out.
all=$(find "$builddir/lib" "$builddir/prog" "$builddir/filters" \
    "$builddir/tests" -name '*.o' | sort)
for o in $all; do
	nm -g --defined-only "$o" | awk -v o="${o#"$builddir"/}" \
	    '$2 ~ /^[TDBRC]$/ && $3 !~ /^__/ { print "D", $3, o }'
	nm -u "$o" | awk -v o="${o#"$builddir"/}" '{ print "U", $NF, o }'
done > objects.syms
layers=$(awk '
function layer(o,   p) {
	if (o ~ /^lib\/base\//) return 0
	if (o ~ /^lib\/io\//) return 1
	if (o ~ /^lib\/text\//) return 2
	if (o ~ /^lib\/formats\/[^\/]*$/) return 4	# the registry
	if (o ~ /^lib\/formats\//) return 3
	if (o ~ /^lib\/tools\//) return 4
	return 9
}
function folder(o) { sub(/\/[^\/]*$/, "", o); return o }
$1 == "D" { def[$2] = $3 }
$1 == "U" { use[++n] = $2; user[n] = $3 }
END {
	for (i = 1; i <= n; i++) {
		d = def[use[i]]; u = user[i]
		if (d == "" || d == u) continue
		if (u !~ /^lib\//) continue
		if (layer(d) > layer(u) || (layer(d) == 3 && layer(u) == 3 &&
		    folder(d) != folder(u) && !(folder(u) == "lib/formats/std" &&
		    folder(d) == "lib/formats/rapidbin")))
			print u " uses " use[i] " of " d
		pair[u " " d] = use[i]
	}
	for (p in pair) {
		split(p, a, " ")
		if ((a[2] " " a[1]) in pair && a[1] < a[2])
			print a[1] " and " a[2] " use each other (" pair[p] \
			    ", " pair[a[2] " " a[1]] ")"
	}
}' objects.syms)
is "$layers" "" "no object of lib/ uses a layer above its own, another format, or an object that uses it"
dead=$(awk '
$1 == "D" && ($3 ~ /^lib\// || $3 ~ /^prog\//) { def[$2] = $3 }
$1 == "U" { used[$2] = used[$2] " " $3 }
END {
	for (s in def) {
		n = split(used[s], u, " "); other = 0
		for (i = 1; i <= n; i++) if (u[i] != def[s]) other = 1
		if (!other) print s " (" def[s] ")"
	}
}' objects.syms | sort)
is "$dead" "" "every symbol lib/ and prog/ export has a user in another object"
rm -f objects.syms
done_testing
