#!/bin/sh
# txtmerge on bad input: unsorted streams (reported, or an error with
# --sort-check), bad ts values, truncated gzip, missing files, usage.
. "$srcdir/tests/tap.sh"

printf 'ev ts=1 n=a1\nev ts=4 n=a2\n' > a.txt
printf 'ev ts=2 n=b1\nev ts=6 n=b2\nev ts=3 n=b3\nev ts=5 n=b4\nev ts=1 n=b5\n' > b.txt

# Unsorted: merged as it comes, the first fault reported with file and line.
txtmerge a.txt b.txt > out 2> err; rc=$?
is "$rc" 0 "an unsorted input is merged (exit 0)"
is "$(cat err)" "txtmerge: b.txt:3: ts 3 goes back in time (the record before has 6); 2 such records in b.txt (--sort sorts it)" \
    "it is reported with file, line and count"
is "$(wc -l < out | tr -d ' ')" 7 "every record is written"
txtmerge -q a.txt b.txt > /dev/null 2> err
is "$(cat err)" "" "-q keeps quiet about it"

# --sort-check: an error at the record, after the records merged before.
txtmerge --sort-check a.txt b.txt > out 2> err; rc=$?
is "$rc" 1 "--sort-check: exit 1"
is "$(cat err)" "txtmerge: b.txt:3:7: ts 3 goes back in time (the record before has 6)" \
    "--sort-check: file, line and column"
is "$(cat out | tr '\n' '|')" "ev ts=1 n=a1|ev ts=2 n=b1|ev ts=4 n=a2|ev ts=6 n=b2|" \
    "--sort-check: the records before it are written"
txtmerge -s -o never.txt a.txt b.txt 2> /dev/null
[ ! -e never.txt ]; ok $? "--sort-check -o FILE: no file"

# --sort: sorted first; with --sort-check a usage error; temporary
# files in $TMPDIR, none left; a TMPDIR that cannot be written.
txtmerge --sort a.txt b.txt > out 2> err; rc=$?
is "$rc:$(cat err):$(cat out | tr '\n' '|')" \
    "0::ev ts=1 n=a1|ev ts=1 n=b5|ev ts=2 n=b1|ev ts=3 n=b3|ev ts=4 n=a2|ev ts=5 n=b4|ev ts=6 n=b2|" \
    "--sort: every record in ts order, ties in input order, quietly"
txtmerge --sort --sort-check a.txt b.txt > /dev/null 2> err
is "$?" 2 "--sort with --sort-check: a usage error"
mkdir -p runs
TMPDIR=$PWD/runs txtmerge --sort --run-size 20 a.txt b.txt > out2
cmp -s out out2; ok $? "--run-size 20: a run per record or two, the same merge"
is "$(ls runs | wc -l | tr -d ' ')" 0 "no temporary file left"
TMPDIR=$PWD/no/such/dir txtmerge --sort a.txt b.txt > /dev/null 2> err; rc=$?
like "$rc:$(cat err)" "2:txtmerge: a.txt: cannot create a sorted run in $PWD/no/such/dir: No such file or directory" \
    "a TMPDIR that cannot be written: exit 2, said"
printf 'ev ts=3 n=c1\n# before c2\nev ts=1 n=c2\n# after c2\n' > c.txt
txtmerge --sort --run-size 1 c.txt a.txt > out
is "$(cat out | tr '\n' '|')" "# before c2|ev ts=1 n=c2|# after c2|ev ts=1 n=a1|ev ts=3 n=c1|ev ts=4 n=a2|" \
    "--sort, a run per record: a comment goes with the record after it, the last ones with the last record, ties to the first FILE"
txtmerge --sort --run-size 0 a.txt > /dev/null 2>&1
is "$?" 2 "--run-size 0 is a usage error"

# Bad values and lines.
printf 'ev ts=1\nev ts=x2 n=1\n' > badts.txt
txtmerge a.txt badts.txt > out 2> err; rc=$?
is "$rc:$(cat err)" '1:txtmerge: badts.txt:2:7: field "ts": "x2": not an unsigned 64-bit number' \
    "a ts that is not a number"
printf 'ev ts=1 tid=1\nev ts=2 tid=-1\n' > badtid.txt
txtmerge -r a.txt badtid.txt > out 2> err; rc=$?
is "$rc:$(cat err)" '1:txtmerge: badtid.txt:2:13: field "tid": not an unsigned 64-bit number' \
    "--renumber-tids: a tid that is not a number"
printf 'ev ts=1 input=0\n' > tagged.txt
txtmerge --tag a.txt tagged.txt > out 2> err; rc=$?
like "$rc:$(cat err)" '1:txtmerge: tagged.txt:1:*: the record has an input field already*' \
    "--tag on a record that has one"
# With --sort the lines are checked as they are read, not in the runs:
# the error names the line of the FILE, and nothing is written.
printf 'ev ts=5 tid=1\nev ts=3 tid=2\nev ts=4 tid=x\n' > late.txt
txtmerge --sort -r a.txt late.txt > out 2> err; rc=$?
is "$rc:$(cat err):$(wc -c < out | tr -d ' ')" '1:txtmerge: late.txt:3:13: field "tid": not an unsigned 64-bit number:0' \
    "--sort --renumber-tids: a tid that is not a number, at its line in the FILE"
printf 'ev ts=5\nev ts=3 input=1\n' > late2.txt
txtmerge --sort --tag late2.txt > out 2> err; rc=$?
like "$rc:$(cat err):$(wc -c < out | tr -d ' ')" '1:txtmerge: late2.txt:2:*: the record has an input field already*:0' \
    "--sort --tag on a record that has one: at its line in the FILE"

# Truncated gzip: the records read before, then the error.
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "ev ts=%d n=%d\n", i, i }' > big.txt
gzip -c big.txt > big.gz
size=$(wc -c < big.gz)
head -c $((size / 2)) big.gz > cut.gz
txtmerge cut.gz a.txt > out 2> err; rc=$?
like "$rc:$(cat err)" "1:txtmerge: cut.gz*" "truncated gzip input: exit 1, named"
n=$(wc -l < out)
head -n "$n" big.txt > want
# The records of a.txt merge in among the first lines: compare without them.
grep -v ' n=a' out | cmp -s - "$(head -n $((n - 2)) big.txt > want2; echo want2)"
ok $? "truncated gzip input: the records before the damage are written"

# A disk that fills while runs are written and merged (a 3 MB tmpfs, for
# root where mount is allowed): exit 2, said, no temporary file left.
mkdir full
if mount -t tmpfs -o size=3m tmpfs full 2> /dev/null; then
	TMPDIR=$PWD/full txtmerge --sort --run-size 2000 big.txt > out 2> err; rc=$?
	is "$rc:$(cat err)" "2:txtmerge: big.txt: cannot write a sorted run in $PWD/full: No space left on device" \
	    "--sort onto a full disk: exit 2, said"
	is "$(ls -A full | wc -l | tr -d ' ')" 0 "--sort onto a full disk: no temporary file left"
	umount full
else
	skip "cannot mount a tmpfs" "--sort onto a full disk: exit 2, said"
	skip "cannot mount a tmpfs" "--sort onto a full disk: no temporary file left"
fi

# Files and usage.
txtmerge a.txt nosuch.txt > out 2> err; rc=$?
like "$rc:$(cat err)" "2:txtmerge: nosuch.txt*" "a missing file: exit 2, named"
[ ! -s out ]; ok $? "a missing file: nothing written"
txtmerge < a.txt > out 2> err; rc=$?
same_file out a.txt "no operand: standard input"
txtmerge --no-such > out 2> err; rc=$?
like "$rc:$(head -1 err)" "2:txtmerge: unrecognized option*" "an unknown option: usage error"
done_testing
