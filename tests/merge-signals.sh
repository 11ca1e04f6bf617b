#!/bin/sh
# txtmerge --sort keeps the input's text in sorted runs in $TMPDIR: no
# run ever has a name there, so a signal that ends txtmerge at any moment
# (every signal tp_out_fatal_signals lists) leaves none behind, and
# txtmerge still dies by that signal.
. "$srcdir/tests/tap.sh"

if ! command -v perl > /dev/null; then
	skip "no perl to undo the ignored SIGINT" "txtmerge --sort killed"
	done_testing
fi
# 320,000 records out of order, 25 MB: 1 MB runs, merged 16 at a time.
awk 'BEGIN { for (i = 0; i < 320000; i++)
	printf "ev ts=%d tid=%d pad=\"%s\"\n", (i * 7919) % 320000, i % 5,
	    "the input text that a run file must not leave behind ......." }' > big.txt
T=$PWD/tmp.d
rm -rf "$T" && mkdir "$T"

# runs_open PID: the descriptors of PID onto files in $T (Linux /proc).
runs_open() {
	ls -l /proc/$1/fd 2>/dev/null | grep -c "$T/"
}
ulimit -c 0
for sig in TERM INT HUP QUIT ALRM PIPE USR1 USR2 PROF VTALRM XCPU XFSZ IO; do
	num=$(signum "$sig") || continue
	rm -rf "$T" && mkdir "$T"
	# A background job of a script ignores SIGINT and SIGQUIT: undo that.
	TMPDIR=$T perl -e '$SIG{INT} = $SIG{HUP} = $SIG{QUIT} = "DEFAULT"; exec @ARGV or exit 127' \
	    txtmerge --sort --run-size 1048576 big.txt > /dev/null &
	pid=$!
	# Mid-sort: until a name shows in $T (which it must not) or four
	# runs are open.
	n=0 seen=
	while [ $n -lt 2000 ] && kill -0 $pid 2>/dev/null; do
		seen=$(ls "$T")
		[ -n "$seen" ] && break
		[ "$(runs_open $pid)" -ge 4 ] && break
		n=$((n + 1))
	done
	kill -s "$sig" $pid 2>/dev/null
	wait $pid; rc=$?
	is "$rc:$seen:$(ls "$T" | tr '\n' ' ')" "$((128 + num))::" \
	    "txtmerge --sort killed by SIG$sig mid-sort: no run file seen or left, died by SIG$sig"
done

# A sort to its end: no name in $T at any time, the same output as
# sort(1) (stable, by ts).
rm -rf "$T" && mkdir "$T"
TMPDIR=$T txtmerge --sort --run-size 1048576 big.txt > sorted.txt &
pid=$!
seen=
while kill -0 $pid 2>/dev/null; do
	[ -z "$seen" ] && seen=$(ls "$T" | head -n 1)
done
wait $pid; rc=$?
sort -s -t= -k2,2n big.txt > want.txt
is "$rc:$seen" "0:" "txtmerge --sort: no run file has a name in TMPDIR at any time"
same_file sorted.txt want.txt "txtmerge --sort through 25 runs: the order of sort -s"
done_testing
