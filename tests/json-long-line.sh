#!/bin/sh
# txt2json and txt2chrome hold a long line once: a quoted string is
# unescaped and written as JSON a part at a time (a character cut at a
# part's end goes with the next, escapes are never split), so peak
# memory is the line plus a few MiB, not twice the line.
. "$srcdir/tests/tap.sh"
command -v perl > /dev/null || { skip "no perl" "long lines"; done_testing; }
# A string of 2-, 3- and 4-byte characters, \x01, \n and \" escapes,
# across many 4 KiB parts; a list of strings after it.
perl -e 'binmode STDOUT; my $u = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\x01\\n\\\"b";
	print "event ts=1 tid=1 name=big s=\"", $u x 300000, "\" t=[\"", "\xe2\x82\xac" x 5000, "\",x]\n";
	print "event ts=2 tid=1 name=small n=1\n"' > uni.txt
txt2json uni.txt > uni.json
json2txt uni.json > back.txt
same_file back.txt uni.txt "txt2json | json2txt: a 6 MB string cut into parts comes back byte for byte"
# The JSON itself, character by character, against perl's own decoding
# of the text's escapes.
if perl -MJSON::PP -e 1 2> /dev/null; then
	perl -MJSON::PP -e 'binmode STDOUT; my $u = "a\x{e9}\x{20ac}\x{1f600}\x01\n\"b";
		open my $f, "<", "uni.json" or die; my $j = JSON::PP->new->utf8->decode(scalar <$f>);
		print $j->{s} eq $u x 300000 && $j->{t}[0] eq "\x{20ac}" x 5000 ? "same\n" : "differ\n"' > cmp.txt
	is "$(cat cmp.txt)" same "txt2json: the JSON string holds the text's characters, as JSON::PP reads it"
else
	skip "no JSON::PP" "txt2json: the JSON string, decoded by JSON::PP"
fi
perl -e 'print "event ts=1 tid=1 name=big s=\"", "a" x 24000000, "\"\n"' > long.txt
for p in txt2json txt2chrome; do
	if rss_ok $p; then
		kb=$(/usr/bin/time -f %M $p long.txt 2>&1 > /dev/null)
		# The 24 MB line once and a few MiB: under 32 MB (twice the
		# line was 50 MB).
		[ "$kb" -lt 32000 ]
		ok $? "$p: peak memory $kb KB for a 24 MB line (under 32 MB)"
	else
		skip "no GNU time, or a sanitizer build" "$p: peak memory"
	fi
done
# json2txt: an object whose text would pass the 64 MiB line limit (a
# 0x7f byte is one byte in JSON, \x7f in text) is refused before any of
# it is written; the records before it stay.
perl -e 'print "{\"kind\":\"ev\",\"n\":1}\n{\"kind\":\"ev\",\"s\":\"", "\x7f" x 20000000, "\"}\n{\"kind\":\"ev\",\"n\":2}\n"' > del.json
json2txt del.json > del.txt 2> err.txt; rc=$?
is "$rc:$(cat err.txt):$(cat del.txt)" "1:json2txt: del.json:2:1: its text would be longer than 64 MiB, the line limit of trace text (trace-text(5)), which no encoder reads:ev n=1" \
    "json2txt: a line past 64 MiB refused at its line, none of it written"
perl -e 'print "{\"kind\":\"ev\",\"s\":\"", "\x7f" x 16000000, "\"}\n"' > del2.json
json2txt del2.json | txt2json | cmp -s - del2.json
ok $? "json2txt: a 16 MB object whose text is 64 MB is written, and reads back"
done_testing
