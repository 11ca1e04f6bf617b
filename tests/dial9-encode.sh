#!/bin/sh
# txt2dial9 beyond the round trip: streams without schema, pool or reset
# records (after grep, by hand, from another decoder) still encode, with
# schemas inferred from the values, pools and canonical resets rebuilt;
# bad text is refused with its line and column.
. "$srcdir/tests/tap.sh"
C=$(corpus dial9)

gen-dial9 --events 100000 --seed 11 > bulk.bin
dial92txt bulk.bin > bulk.txt
grep '^event' bulk.txt > events.txt

# Resets, pools: what the encoder adds by itself is what was there.
grep -v '^dial9-reset' bulk.txt | txt2dial9 | cmp -s - bulk.bin
ok $? "without its reset records: the same bytes (canonical resets)"
grep -v '^dial9-strings' bulk.txt | grep -v '^dial9-stacks' | grep -v '^dial9-reset' |
    txt2dial9 | cmp -s - bulk.bin
ok $? "without its pool and reset records: the same bytes (pools rebuilt in order)"

# Schemas inferred: the events read back the same.
txt2dial9 events.txt > inferred.bin
ok $? "only event records: encodes"
dial92txt inferred.bin | grep '^event' > back.txt
same_file back.txt events.txt "only event records: the same event records come back"
dial92txt inferred.bin | grep '^dial9-schema' | sort -u > schemas.txt
grep -q 'name=CpuSampleEvent ts=1 fields={worker_id:varint,tid:varint,source:varint,thread_name:opt-string,callchain:stack,cpu:opt-varint}' schemas.txt
ok $? "inferred CpuSampleEvent: optional fields from null, the OS thread's field tid (key .746964) a field"
grep -q 'name=PollStartEvent ts=1 fields={worker_id:varint,local_queue:varint,task_id:varint,spawn_loc:string}' schemas.txt
ok $? "inferred PollStartEvent: the tid derived from worker_id is no field"
if [ -n "$C" ]; then
	for f in upstream-head-2026-05-15.trc.gz optional-fields-2026-04-16.trc; do
		dial92txt "$C/$f" | grep '^event' > ev.txt
		txt2dial9 ev.txt | dial92txt | grep '^event' | cmp -s - ev.txt
		ok $? "$f: event records alone encode and read back the same"
	done
else
	skip "no ../shared/corpus/dial9" "real events without their schemas"
fi

# Written by hand: every inferred type, hand-checked against the spec.
cat > hand.txt <<'TXT'
# a comment, then events of no schema
event name=Hello ts=1000 msg="hi there" n=3 neg=-2 f=1.5 ok=true b=00ff st=[0x10,0x20] m={k:"v"} dl=[{u8:7}] dm=[[{string:"a"},{i64:-1}]] o=null
event name=Hello ts=999 msg="again" n=4 neg=-3 f=2.0 ok=false b= st=[] m={} dl=[] dm=[] o=null
event name=NoTime v=1
TXT
txt2dial9 hand.txt > hand.bin
ok $? "hand-written events encode"
dial92txt hand.bin > hand.out
cat > hand.want <<'TXT'
dial9-header version=1
dial9-schema id=0 name=Hello ts=1 fields={msg:string,n:varint,neg:i64,f:f64,ok:bool,b:bytes,st:stack,m:string-map,dl:dyn-list,dm:dyn-map,o:opt-varint}
event name=Hello ts=1000 msg="hi there" n=3 neg=-2 f=1.5 ok=true b=00ff st=[0x10,0x20] m={k:"v"} dl=[{u8:7}] dm=[[{string:"a"},{i64:-1}]] o=null
dial9-reset ts=999
event name=Hello ts=999 msg="again" n=4 neg=-3 f=2.0 ok=false b= st=[] m={} dl=[] dm=[] o=null
dial9-schema id=1 name=NoTime ts=0 fields={v:varint}
event name=NoTime v=1
TXT
same_file hand.out hand.want "hand-written: decodes to the records written, with the schemas inferred"

# A stream whose values do not keep one shape: a new schema when needed.
printf 'event name=A x=1\nevent name=A x="s"\nevent name=A x=null\nevent name=A x=2\n' | txt2dial9 | dial92txt > shape.txt
is "$(grep -c '^dial9-schema' shape.txt)" 3 "a value of another kind: a new schema, under a new type id (2 after null and a string: the first one again)"
is "$(grep '^event' shape.txt | cut -d' ' -f2- | sed 's/ id=[0-9]*//')" "$(printf 'name=A x=1\nname=A x="s"\nname=A x=null\nname=A x=2')" "...the values are kept, untimed" 

# The bytes of a small one, worked out by hand from the spec: header;
# schema 0 "Hi" with ts, fields n (varint 09) and s (string 04); the
# event: type 0, delta 5, n=3, s = u32 length 1 and "x".
printf 'event name=Hi ts=5 n=3 s="x"\n' | txt2dial9 | xxd -p | tr -d '\n' > hi.hex
is "$(cat hi.hex)" 5452430001010000020048690102000100""6e0901007304020000050000030100000078 "a hand-written event, byte by byte"

# Another decoder's events (WTF style names and a tid of their own): the
# tid is the worker, so it becomes a worker_id field and comes back.
printf 'event name=wtf.scope#enter ts=5 tid=3 args={a:"1"}\nevent name=wtf.scope#leave ts=7 tid=3\n' | txt2dial9 | dial92txt | grep '^event' > wtf.txt
is "$(cat wtf.txt)" "$(printf 'event name=wtf.scope#enter ts=5 tid=3 worker_id=3 args={a:"1"}\nevent name=wtf.scope#leave ts=7 tid=3 worker_id=3')" "events of another format: their tid becomes worker_id and comes back as tid"
# With worker_id= there, tid= is derived and never a field; where the two
# differ (txtmerge --renumber-tids renumbered tid=) tid= is the truth.
printf 'event name=P ts=5 tid=2 worker_id=2\nevent name=P ts=6 tid=9 worker_id=2\n' | txt2dial9 | dial92txt | grep '^event' > p.txt
is "$(cat p.txt)" "$(printf 'event name=P ts=5 tid=2 worker_id=2\nevent name=P ts=6 tid=9 worker_id=9')" "tid= beside worker_id= is the worker's, not a field; the truth where they differ"

# Records dial9 cannot hold: skipped and counted, or an error with --strict.
printf 'insn tid=1 pc=0x10\nevent name=E v=1\n' | txt2dial9 > s.bin 2> s.err
is "$?:$(cat s.err)" '0:txt2dial9: 1 record skipped, not expressible in a dial9 trace (first at line 1: record kind "insn")' "a foreign record is skipped and counted"
printf 'insn tid=1 pc=0x10\n' | txt2dial9 --strict > /dev/null 2> s.err
is "$?:$(cat s.err)" '1:txt2dial9: <stdin>:1: record kind "insn": not expressible in a dial9 trace' "--strict: an error"

# Bad text: the line and the column of the value.
bad() {	# NAME TEXT WANT
	printf '%s\n' "$2" | txt2dial9 > /dev/null 2> b.err
	is "$?:$(cat b.err)" "1:txt2dial9: <stdin>:$3" "$1"
}
S='dial9-schema id=0 name=E ts=1 fields={a:u8,s:pooled-string,v:opt-varint}'
bad "u8 too large" "$S
event name=E ts=1 a=256 s=\"x\"" '2:21: field "a": "256": too large for u8'
bad "field not in the schema" "$S
event name=E ts=1 a=1 s=\"x\" zz=1" '2: field "zz" is not in schema E (type id 0)'
bad "field missing" "$S
event name=E ts=1 a=1" '2: event E without field "s" of its schema'
bad "null for a required field" "$S
event name=E ts=1 a=null s=\"x\"" '2:21: field "a": "null": null for a field that is not optional (u8)'
bad "unknown field type" 'dial9-schema id=0 name=E fields={a:u7}' '1:36: field "fields": "u7": unknown field type'
bad "raw len too short" "$S
event name=E ts=1 a=1 s=\"x\" v=300 raw={v:{len:1}}" '2:31: field "v": "300": raw len 1 cannot hold it'
bad "event without name" 'event ts=1' '1: event record without field "name"'
bad "id of no schema" 'dial9-header version=1
event name=E id=4' '2:17: field "id": "4": no schema with this type id in this segment'
bad "id of another name's schema" 'dial9-header version=1
event name=A ts=1 v=1
event name=B ts=2 id=0 v=1' '3:22: field "id": "0": the schema of this type id has another name'
# Where the text does not say it is dial9's (no dial9 record before it),
# an id= that names no schema of the event's name is a field.
printf 'event name=E id=4\n' | txt2dial9 | dial92txt > idf.txt
is "$?:$(grep -v '^dial9-header' idf.txt | tr '\n' '|')" '0:dial9-schema id=0 name=E ts=0 fields={id:varint}|event name=E .6964=4|' \
    "without a dial9 record before it, an id= of no schema is a field"
# A schema whose type id the segment holds for another (segments of
# merged or sorted streams meet): a new segment for it.
printf '%s\ndial9-schema id=0 name=F ts=1 fields={a:u16}\nevent name=F ts=5 a=300\n' "$S" |
    txt2dial9 | dial92txt > conflict.txt 2>&1
is "$(grep -c '^dial9-header' conflict.txt):$(grep '^event' conflict.txt)" "2:event name=F ts=5 a=300" \
    "a schema whose type id is taken starts a new segment"

# The top pool id in use: new strings get the lowest free ids, not max+1.
printf '%s\n' 'dial9-strings pool={4294967295:"top"}' \
    'dial9-schema id=0 name=E ts=1 fields={s:pooled-string}' \
    'event name=E ts=1000 s="top"' 'event name=E ts=1001 s="other"' \
    'event name=E ts=1002 s="third"' > toppool.txt
txt2dial9 toppool.txt > toppool.trc
is "$?:$(dial92txt toppool.trc | grep -v '^dial9-header' | tr '\n' '|')" \
    '0:dial9-strings pool={4294967295:"top"}|dial9-schema id=0 name=E ts=1 fields={s:pooled-string}|event name=E ts=1000 s="top"|dial9-strings pool={0:"other"}|event name=E ts=1001 s="other"|dial9-strings pool={1:"third"}|event name=E ts=1002 s="third"|' \
    "pool id 4294967295 in use: the next strings get ids 0 and 1"

# An empty or fully filtered stream: a trace of no event (a header), as
# the other encoders write one, which dial92txt reads.
printf '' | txt2dial9 > empty.trc
is "$?:$(dial92txt empty.trc)" "0:dial9-header version=1" \
    "an empty stream: a header alone, read back"
printf 'insn tid=1 pc=0x1\n' | txt2dial9 -q > filtered.trc
is "$?:$(dial92txt filtered.trc)" "0:dial9-header version=1" \
    "a stream of nothing dial9 holds: a header alone, read back"
done_testing
