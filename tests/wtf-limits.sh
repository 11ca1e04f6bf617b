#!/bin/sh
# WTF's 64 arguments per definition (issue 27, point 9): WTF itself sets
# no such limit, so both man pages state it; wtf2txt reads 64 and
# refuses 65 naming the definition, txt2wtf likewise for a wtf-define,
# and a rebuilt event of more fields keeps 64 and says what it dropped.
. "$srcdir/tests/tap.sh"
command -v perl > /dev/null || { skip "no perl" "WTF's argument limit"; done_testing; }
# A chunked trace with one definition of N int32 arguments a1..aN and
# one event of it.
gen() {
	perl -e 'my $n = shift; my @a = map { "int32 a$_" } 1..$n; my @v = map { "a$_=" . (1000 * $_) } 1..$n;
	print "wtf-header version=10 build=0\n",
	    "wtf-chunk id=1 type=file_header start=4294967295 end=4294967295\n",
	    "wtf-part type=file_header json=\"{\\\"timebase\\\":1.5}\"\n",
	    "wtf-chunk id=2 type=event_data start=0 end=10\n",
	    "wtf-part type=string_table unique=true\n",
	    "wtf-part type=binary_event_buffer\n",
	    "wtf-define ts=1505000 time=5 wire=2 class=instance flags=0x0 name=big args=\"", join(", ", @a), "\"\n",
	    "event ts=1510000 time=10 name=big ", join(" ", @v), "\n"' "$1"
}
gen 64 > a64.txt
txt2wtf a64.txt > a64.wtf 2> err.txt
is "$?:$(cat err.txt)" "0:" "txt2wtf: a definition of 64 arguments is written"
wtf2txt a64.wtf > back.txt 2> err.txt
is "$?:$(cat err.txt)" "0:" "wtf2txt: a definition of 64 arguments is read"
same_file back.txt a64.txt "64 arguments: wtf2txt | txt2wtf round trip, every value (a64=64000 last)"
is "$(grep -c ' a64=64000$' back.txt)" 1 "the 64th argument's value is read"

# The same file with three arguments of its signature made four of the
# same length in its string table: 65 arguments, refused at the
# definition's record.
perl -0777 -pe 's/int32 a10, int32 a11, int32 a12/int8 a, int8 b, int8 c, int8 dd/ or exit 1' a64.wtf > a65.wtf || exit 99
[ "$(wc -c < a65.wtf)" -eq "$(wc -c < a64.wtf)" ] || exit 99
wtf2txt a65.wtf > out.txt 2> err.txt; rc=$?
like "$rc:$(cat err.txt)" '1:wtf2txt: a65.wtf: offset 0x32c, record 0: definition of wire id 2 (big): more than 64 arguments: "int32 a1, int32 a2, *' \
    "wtf2txt: 65 arguments refused, naming the offset, wire id and event"
is "$(grep -c '^event' out.txt)" 0 "wtf2txt: no event of the refused definition is written"

gen 65 > a65.txt
txt2wtf a65.txt > o.wtf 2> err.txt; rc=$?
like "$rc:$(cat err.txt)" '1:txt2wtf: a65.txt:7:[0-9]*: field "args": ""int32 a1, int32 a2, *: more than 64 arguments' \
    "txt2wtf: a wtf-define of 65 arguments refused at its line"

# Another format's event of 66 fields: rebuilt with the first 64 as
# arguments, the loss counted (and an error under --strict).
perl -e 'print "event ts=1000000 tid=1 name=wide ", join(" ", map { "f$_=$_" } 1..66), "\n"' > wide.txt
txt2wtf wide.txt > wide.wtf 2> err.txt
is "$?:$(cat err.txt)" "0:txt2wtf: 1 record changed: a field past WTF's 64 arguments of an event dropped (first at line 1: 66 fields)" \
    "txt2wtf: a 66-field event keeps 64 and counts the change"
wtf2txt wide.wtf | grep '^event' | tr ' ' '\n' | sed -n 's/^\(f[0-9]*\)=.*/\1/p' | tr '\n' ' ' > names.txt
is "$(cat names.txt)" "$(perl -e 'print map { "f$_ " } 1..64')" "wtf2txt reads f1..f64 back, in order"
txt2wtf --strict wide.txt > /dev/null 2> err.txt
is "$?:$(cat err.txt)" "1:txt2wtf: wide.txt:1: 66 fields: a field past WTF's 64 arguments of an event dropped" \
    "txt2wtf --strict: the 66-field event is an error"

# Both pages state the limit (they did not on 743ec23).
grep -q 'more than 64 arguments: WTF itself sets no such' "$srcdir/man/wtf2txt.1"
ok $? "wtf2txt(1) LIMITS states the 64 arguments and that WTF has no such limit"
tr '\n' ' ' < "$srcdir/man/txt2wtf.1" | grep -q 'at most 64 arguments, as .BR wtf2txt (1) reads them (WTF itself sets neither limit)'
ok $? "txt2wtf(1) LIMITS states the 64 arguments"
done_testing
