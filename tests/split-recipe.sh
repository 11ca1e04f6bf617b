#!/bin/sh
# The commands of tracepipe(7)'s SCALING OUT, run as the page shows them
# (as tests/man-examples.sh runs EXAMPLES: every command exits 0, writes
# nothing to standard error, and writes the lines the page shows after
# it): tracesplit, GNU parallel locally and across two stand-in hosts
# (an ssh that runs the command here, in a directory of the host's own,
# so a piece reaches "the host" only through --transferfile and its
# summary comes back only through --return), cat, txtstat --merge.
. "$srcdir/tests/tap.sh"

if ! parallel --version 2>/dev/null | grep -q GNU; then
	skip "GNU parallel is not installed" "tracepipe(7) SCALING OUT"
	done_testing
fi
if ! command -v rsync > /dev/null; then
	skip "no rsync (GNU parallel transfers files with it)" \
	    "tracepipe(7) SCALING OUT"
	done_testing
fi

cat > fakessh <<'EOS'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in -l|-p|-o|-S|-i|-F) shift 2 ;; -*) shift ;; *) break ;; esac
done
host=$1; shift
[ "${1:-}" = "--" ] && shift
mkdir -p "$FAKESSH_ROOT/$host" && cd "$FAKESSH_ROOT/$host" || exit 255
exec sh -c "$*"
EOS
chmod +x fakessh
mkdir hosts run
# GNU parallel runs remote jobs with the $SHELL it is sent (unset in CI).
FAKESSH_ROOT=$TMP/hosts PARALLEL_SSH=$TMP/fakessh SHELL=/bin/sh
export FAKESSH_ROOT PARALLEL_SSH SHELL

awk '
/^\.SH/ { inex = ($0 ~ /^\.SH "SCALING OUT"/); next }
!inex { next }
/^\.EX/ { inblk = 1; next }
/^\.EE/ { inblk = 0; next }
!inblk { next }
{
	line = $0
	gsub(/\\-/, "-", line); gsub(/\\\(aq/, "\047", line)
	gsub(/\\&/, "", line); gsub(/\\e/, "\\", line)
	if (substr(line, 1, 2) == "$ ") print "C\t" substr(line, 3)
	else print "O\t" line
}' "$srcdir/man/tracepipe.7" > ex

check() {
	[ -z "$cmd" ] && return
	got=$(cd run && sh -c "$cmd" </dev/null 2>"$TMP/stderr"); rc=$?
	if [ $rc -ne 0 ]; then
		ok 1 "\$ $cmd (exit $rc)"
		sed 's/^/#   /' "$TMP/stderr" | head -5
	elif [ -s "$TMP/stderr" ]; then
		ok 1 "\$ $cmd (writes to standard error)"
		sed 's/^/#   /' "$TMP/stderr" | head -5
	else
		is "$got" "$want" "\$ $cmd"
	fi
	cmd=
}
n=0 cmd= want=
tab=$(printf '\t')
while IFS= read -r rec; do
	case "$rec" in
	C"$tab"*)
		check
		cmd=${rec#C?} want=
		n=$((n + 1)) ;;
	O"$tab"*)
		line=${rec#O?}
		if [ -z "$want" ]; then want=$line
		else want="$want
$line"; fi ;;
	esac
done < ex
check
[ "$n" -ge 8 ]; ok $? "SCALING OUT has its commands ($n)"
grep -q -- '--sshlogin' ex; ok $? "one of them runs across hosts"
# The remote jobs ran on the stand-in hosts and cleaned up after them.
[ -d hosts/host1 ] && [ -d hosts/host2 ]
ok $? "both hosts ran jobs"
left=$(find hosts -type f | wc -l)
is "$left" 0 "--cleanup left nothing on the hosts"
done_testing
