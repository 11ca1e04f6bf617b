#!/bin/sh
# Where -o and --meta write (tracepipe(7), FILES): a regular file or a new
# path through a temporary file renamed on success, a symlink's target, a
# device or FIFO directly, a directory refused before any input is read;
# no file left behind on any failure or on SIGINT, SIGTERM, SIGHUP and
# SIGPIPE, after which the program dies by that signal.
. "$srcdir/tests/tap.sh"
gen-trac --arch x64 --blocks 30 --seed 9 > t.trace64 || exit 99
trac2txt t.trace64 > t.txt || exit 99
txtfilter -s --type read,write t.txt | txt2rapidbin -q > t.data || exit 99
rapidbin2txt t.data > r.txt && txt2std r.txt > t.std || exit 99
printf 'read tid=zz\ngarbage \001 "\n' > bad.in

# No file of the given names, temporary ones included.
leftovers() {
	for f in "$@"; do
		ls -d "$f" "$f".?????? 2>/dev/null
	done | tr '\n' ' '
}

PROGS="trac2txt t.trace64
any2txt t.trace64
txt2trac t.txt
txtfilter t.txt
txtstat t.txt
rapidbin2txt t.data
txt2rapidbin r.txt
txt2std r.txt
std2txt t.std"

while read -r prog input; do
	$prog "$input" > want.out 2>/dev/null
	# A directory, and -o '': refused before any input is read (the
	# endless input would otherwise keep the program waiting).
	mkdir -p adir
	err=$(yes | timeout 20 $prog -o adir 2>&1 >/dev/null); rc=$?
	like "$rc:$err" "2:$prog: adir: cannot write: Is a directory" \
	    "$prog -o DIRECTORY: refused before reading input"
	err=$(yes | timeout 20 $prog -o '' 2>&1 >/dev/null); rc=$?
	like "$rc:$err" "2:$prog: -o needs a file name*" \
	    "$prog -o '': usage error before reading input"
	# A symlink: its target is written, the link stays a link.
	rm -rf sub && mkdir sub && echo old > sub/target
	ln -s target sub/link
	$prog -o sub/link "$input" 2>/dev/null
	[ -L sub/link ] && cmp -s sub/target want.out
	ok $? "$prog -o SYMLINK: the target is written, the link kept"
	# A dangling symlink: its target is created.
	rm -f sub/target
	$prog -o sub/link "$input" 2>/dev/null
	[ -L sub/link ] && cmp -s sub/target want.out
	ok $? "$prog -o DANGLING-SYMLINK: the target is created"
	# A FIFO: written directly, still a FIFO.
	rm -f fifo && mkfifo fifo
	timeout 20 cat fifo > fromfifo.out &
	$prog -o fifo "$input" 2>/dev/null
	wait
	[ -p fifo ] && cmp -s fromfifo.out want.out
	ok $? "$prog -o FIFO: written into it, the FIFO kept"
	# A regular file keeps its permissions.
	echo old > perm.out && chmod 640 perm.out
	$prog -o perm.out "$input" 2>/dev/null
	is "$(stat -c %a perm.out):$(cmp -s perm.out want.out && echo same)" \
	    "640:same" "$prog -o FILE: replaced, its permissions kept"
	rm -f gone.out
	# txtfilter judges only what it selects on: give it a selector.
	[ "$prog" = txtfilter ] && sel="--tid 1" || sel=
	# shellcheck disable=SC2086
	$prog $sel -o gone.out bad.in 2>/dev/null
	is "$(leftovers gone.out)" "" "$prog: bad input leaves no file"
done <<EOF
$PROGS
EOF

# Devices, on nodes of our own (a mistake must not touch /dev).
if mknod cnull c 1 3 2>/dev/null && mknod cfull c 1 7 2>/dev/null; then
	while read -r prog input; do
		$prog -o cnull "$input" 2>/dev/null; rc=$?
		[ $rc = 0 ] && [ -c cnull ]
		ok $? "$prog -o CHAR-DEVICE: written directly, the device kept"
		ln -sf cnull lnull
		$prog -o lnull "$input" 2>/dev/null
		[ -L lnull ] && [ -c cnull ]
		ok $? "$prog -o SYMLINK-TO-DEVICE: the device written"
		err=$($prog -o cfull "$input" 2>&1); rc=$?
		like "$rc:$err" "2:$prog: cfull: write error: No space left on device" \
		    "$prog -o FULL-DEVICE: a write error (status 2)"
		[ -c cfull ]; ok $? "$prog -o FULL-DEVICE: the device kept"
	done <<EOF
$PROGS
EOF
else
	skip "cannot make device nodes (not root)" "-o onto devices"
fi

# rapidbin2txt(1): the events before bad input are kept where they are
# written as they come (standard output, a FIFO), not in a regular file.
head -c 61 t.data > cut.data
rapidbin2txt -q cut.data > prefix.txt 2>/dev/null
rm -f fifo && mkfifo fifo
timeout 20 cat fifo > fromfifo.out &
rapidbin2txt -q -o fifo cut.data 2>/dev/null; rc=$?
wait
is "$rc:$(wc -l < prefix.txt):$(cmp -s fromfifo.out prefix.txt && echo same)" \
    "1:6:same" "rapidbin2txt -o FIFO: the header and 5 events before a cut event"
echo old > keep.txt
rapidbin2txt -q -o keep.txt cut.data 2>/dev/null
is "$?:$(cat keep.txt):$(leftovers keep.txt)" "1:old:keep.txt " \
    "rapidbin2txt -o FILE: a cut trace leaves the file as it was"

# --meta follows the same rules, and goes with the output on failure.
mkdir -p mdir
err=$(yes | timeout 20 txt2rapidbin --meta mdir -o m.bin 2>&1); rc=$?
like "$rc:$err" "2:txt2rapidbin: mdir: cannot write: Is a directory" \
    "--meta DIRECTORY: refused before reading input"
is "$(leftovers m.bin)" "" "--meta DIRECTORY: no output file"
txt2rapidbin --meta m.json -o m.bin bad.in 2>/dev/null
is "$?:$(leftovers m.json m.bin)" "1:" "--meta and -o on bad input: no file at all"
ln -s real.json mlink
txt2rapidbin --meta mlink r.txt > m.bin
[ -L mlink ] && grep -q thread_records real.json
ok $? "--meta SYMLINK: the target written"

# fifo_run PROG ARGS...: start PROG on input from a FIFO held open, and
# wait until its temporary output file (s.*) exists.  Sets pid.
fifo_run() {
	rm -f in.fifo && mkfifo in.fifo
	# A background job of a script ignores SIGINT: undo that, as an
	# interactive shell would have; and SIGHUP, which nohup(1) ignores
	# for the whole run (the programs keep a signal ignored, as they
	# should, and would never die of it).
	perl -e '$SIG{INT} = $SIG{HUP} = $SIG{QUIT} = "DEFAULT"; exec @ARGV or exit 127' "$@" < in.fifo &
	pid=$!
	exec 3> in.fifo
	head -n 200 t.txt >&3
	n=0
	while [ -z "$(ls s.*.?????? 2>/dev/null)" ] && [ $n -lt 200 ]; do
		sleep 0.05
		n=$((n + 1))
	done
}

if command -v perl > /dev/null; then
	for sn in INT:2 TERM:15 HUP:1; do
		sig=${sn%:*} num=${sn#*:}
		rm -f s.out s.json s.bin
		fifo_run txtfilter -s -o s.out
		kill -s $sig $pid
		wait $pid; rc=$?
		exec 3>&-
		is "$rc:$(leftovers s.out)" "$((128 + num)):" \
		    "txtfilter -o killed by SIG$sig: no file left, died by SIG$sig"
		fifo_run txt2rapidbin -q --meta s.json -o s.bin
		kill -s $sig $pid
		wait $pid; rc=$?
		exec 3>&-
		is "$rc:$(leftovers s.json s.bin)" "$((128 + num)):" \
		    "txt2rapidbin --meta -o killed by SIG$sig: no file left"
	done
	# Every other signal whose default ends the process, as GNU sort
	# handles them (QUIT and XCPU dump core: not here).
	ulimit -c 0
	for sig in QUIT ALRM USR1 USR2 PROF VTALRM XCPU IO; do
		num=$(signum "$sig") || continue
		rm -f s.out
		fifo_run txtfilter -s -o s.out
		kill -s "$sig" $pid
		wait $pid; rc=$?
		exec 3>&-
		is "$rc:$(leftovers s.out)" "$((128 + num)):" \
		    "txtfilter -o killed by SIG$sig: no file left, died by SIG$sig"
	done
	# A rename that fails (a directory took the name meanwhile).
	rm -rf s.out
	fifo_run txtfilter -s -o s.out
	mkdir s.out
	exec 3>&-
	wait $pid; rc=$?
	is "$rc:$(ls s.out.* 2>/dev/null)" "2:" \
	    "txtfilter: a failed rename is status 2 and leaves no temporary file"
	rm -rf s.json s.bin
	fifo_run txt2rapidbin -q --meta s.json -o s.bin
	mkdir s.json
	exec 3>&-
	wait $pid; rc=$?
	is "$rc:$(ls s.json.* 2>/dev/null)$(leftovers s.bin)" "2:" \
	    "txt2rapidbin: a failed --meta rename leaves no file at all"
else
	skip "no perl to undo the ignored SIGINT" "signals"
fi

# SIGPIPE while --meta's temporary file exists: removed, and quiet.
gen-rapidbin --events 300000 --seed 5 | rapidbin2txt -q > big.txt
txt2rapidbin --meta p.json big.txt 2> pipe.err | head -c 10 > /dev/null
is "$(leftovers p.json):$(cat pipe.err)" ":" \
    "txt2rapidbin --meta | head: no metadata file left, nothing said"

# A file that outgrows ulimit -f: SIGXFSZ removes the temporary file.
rm -f x.out
(ulimit -f 64; exec txtfilter -s -o x.out big.txt) 2> /dev/null; rc=$?
is "$rc:$(leftovers x.out)" "$((128 + $(signum XFSZ))):" \
    "txtfilter -o past ulimit -f: killed by SIGXFSZ, no file left"

# Standard error closed: the warnings do not go into the output file
# (reading standard input, the program would have given it descriptor
# 2), and the output still decodes.
rm -f e.trc
printf 'insn tid=1 pc=0x1\nevent name=a ts=5 v=1\n' > warn.txt
txt2dial9 warn.txt 2>&1 > /dev/null | grep -q skipped
ok $? "txt2dial9 warns of a record it skips (what the next test needs)"
txt2dial9 -o e.trc < warn.txt 2>&-
is "$?:$(dial92txt e.trc | grep -c '^event')" "0:1" \
    "txt2dial9 -o FILE 2>&-: the warning is not in FILE, which decodes"
rm -f e.data
txt2rapidbin -v -o e.data < warn.txt 2>&-
is "$?:$(rapidbin2txt e.data | grep -c .)" "0:1" \
    "txt2rapidbin -o FILE 2>&-: FILE holds the header alone"
printf 'a\n' | txtfilter -o e.out --tid 1 - 0>&- 2>&-
is "$?:$(cat e.out 2>/dev/null)" "1:" \
    "txtfilter 0>&- reads a closed standard input as empty"
# -o onto a file with several hard links is refused (a new file renamed
# into place would break them), the file untouched; onto another user's
# file, the replacement keeps its owner, group and mode, or is refused
# when it cannot (not root), the file untouched.
printf 'old\n' > h1 && ln -f h1 h2
txtfilter -o h1 t.txt 2> err.txt; rc=$?
is "$rc:$(cat h2):$(cat err.txt)" "2:old:txtfilter: h1: the file has 2 hard links, which a new file renamed into place would break: write to another name and copy it over" \
    "-o onto a hard-linked file: refused, the links and the file kept"
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	printf 'old\n' > own.txt && chown nobody:nogroup own.txt && chmod 640 own.txt
	txtfilter -o own.txt t.txt
	is "$?:$(stat -c '%U:%G:%a' own.txt):$(cmp -s own.txt t.txt && echo same)" \
	    "0:nobody:nogroup:640:same" "root, -o onto another user's file: its owner, group and mode kept"
	mkdir shared.d && chmod 777 shared.d && chmod 711 .
	printf 'old\n' > shared.d/f && chmod 666 shared.d/f
	setpriv --reuid=nobody --regid=nogroup --clear-groups txtfilter -o shared.d/f t.txt 2> err.txt; rc=$?
	is "$rc:$(head -c 3 shared.d/f):$(ls shared.d | tr '\n' ' '):$(cat err.txt)" \
	    "2:old:f :txtfilter: shared.d/f: cannot keep the owner of the file (uid 0, gid 0) in its replacement: Operation not permitted" \
	    "another user, -o onto root's writable file: refused, the file untouched"
	chmod 700 .
else
	skip "not root, or no setpriv" "-o onto another user's file"
	skip "not root, or no setpriv" "-o onto another user's file, not root"
fi
done_testing
