#!/bin/sh
# dial92txt(1) MEMORY: the largest frame, about 5 MiB more and the pools;
# the text is never held whole.  A 16 MB frame of one list of 8 million
# booleans (over 100 MB of text, cut at the 64 MiB line limit) stays
# under 16 MiB + 8 MiB of peak memory.
. "$srcdir/tests/tap.sh"
command -v perl > /dev/null || { skip "no perl" "dial92txt memory"; done_testing; }
rss_ok dial92txt || { skip "no GNU time, or a sanitizer build" "dial92txt memory"; done_testing; }
perl -e 'print "event name=big ts=2 tid=1 worker_id=1 v=[", join(",", ("true") x 8000000), "]\n"' |
    txt2dial9 > big.trc || exit 99
[ "$(wc -c < big.trc)" -gt 16000000 ] || exit 99
/usr/bin/time -f %M -o rss.txt dial92txt big.trc > /dev/null 2> err.txt
is "$?:$(cat err.txt)" "2:dial92txt: <stdout>: a record's text is longer than 64 MiB, the line limit of trace text, which no encoder reads: File too large" \
    "the list's text is refused at the line limit"
kb=$(tail -1 rss.txt)
[ "$kb" -le $((24 * 1024)) ]; ok $? "peak memory ${kb} KiB, at most 24 MiB (a 16 MB frame + 8 MiB)"
done_testing
