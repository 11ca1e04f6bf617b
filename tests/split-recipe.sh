#!/bin/sh
# The commands of tracepipe(7)'s SCALING OUT, run as the page shows them
# (as tests/man-examples.sh runs EXAMPLES: every command exits 0, writes
# nothing to standard error, and writes the lines the page shows after
# it): tracesplit, GNU parallel locally and across two stand-in hosts
# (an ssh that runs the command here, in a directory of the host's own,
# so a piece reaches "the host" only through --transferfile and its
# summary comes back only through --return), cat, txtstat --merge.
. "$srcdir/tests/tap.sh"
. "$srcdir/tests/man-run.sh"

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

dir=$TMP/run page=tracepipe.7
man_run "$srcdir/man/tracepipe.7" "SCALING OUT"
n=$man_n
man_extract "$srcdir/man/tracepipe.7" "SCALING OUT" > ex
[ "$n" -ge 8 ]; ok $? "SCALING OUT has its commands ($n)"
grep -q -- '--sshlogin' ex; ok $? "one of them runs across hosts"
# The remote jobs ran on the stand-in hosts and cleaned up after them.
[ -d hosts/host1 ] && [ -d hosts/host2 ]
ok $? "both hosts ran jobs"
left=$(find hosts -type f | wc -l)
is "$left" 0 "--cleanup left nothing on the hosts"
done_testing
