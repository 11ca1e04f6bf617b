#!/bin/sh
# One limit for both directions of dial9: txt2dial9 refuses a record
# whose frame dial92txt would refuse (16 MiB), at its line, rather than
# write a trace that does not decode; a frame just under it is written
# and decodes to the same event.
. "$srcdir/tests/tap.sh"
command -v perl > /dev/null || { skip "no perl" "dial9 frame limit"; done_testing; }
perl -e 'print "event ts=1 tid=1 name=a n=1\nevent ts=2 tid=1 name=big s=\"", "a" x 17000000, "\"\n"' > s17.txt
txt2dial9 s17.txt > s17.trc 2> err.txt; rc=$?
is "$rc:$(cat err.txt):$(wc -c < s17.trc | tr -d ' ')" \
    "1:txt2dial9: s17.txt:2: the record makes a frame of 17000011 bytes, over the 16777215-byte frame limit of dial92txt:0" \
    "txt2dial9: a 17 MB string refused at its line, no trace written"
perl -e 'print "event name=big ts=2 tid=1 worker_id=1 s=\"", "a" x 16777000, "\"\n"' > s16.txt
txt2dial9 s16.txt > s16.trc && dial92txt s16.trc | grep '^event' > back.txt
same_file back.txt s16.txt "a string of 16,777,000 bytes: written, and dial92txt gives the event back"
done_testing
