#!/bin/sh
# txtcut: its tables read back by independent readers (python3's csv
# module for --csv, a split at tabs for TSV) and compared, row by row and
# cell by cell, with the records as a separate decoder of the text
# grammar (in python, below) reads them: a hand-made stream of hostile
# strings, a generated x64dbg trace and the real dial9 and WTF traces.
# Every --time spelling against values computed apart (integer
# arithmetic, python's datetime for dates); an absent field is an empty
# cell; bad -f, bad --time, binary and malformed input are one-line
# diagnostics with the documented status.
. "$srcdir/tests/tap.sh"

if ! command -v python3 > /dev/null 2>&1; then
	skip "no python3" "txtcut: tables read back with python3"
	done_testing
fi

# check.py MODE FIELDS TIME TEXT TABLE: the table MODE (csv, tsv) made
# of TEXT against what an independent reading of TEXT says it must hold.
# Prints "ok ROWS" or the first difference.
cat > check.py <<'EOF'
import csv, sys, datetime

mode, fields, time, text, table = sys.argv[1:6]
fields = fields.split(",")
shared = set("insn read write acquire release request fork join begin "
             "end branch event".split())

def value_end(s, i):
    # end of the value starting at s[i]: quoted, nested or bare
    if s[i] == '"':
        j = i + 1
        while s[j] != '"':
            j += 2 if s[j] == '\\' else 1
        return j + 1
    if s[i] in '[{':
        depth, q, j = 0, False, i
        while True:
            c = s[j]
            if q:
                if c == '\\': j += 1
                elif c == '"': q = False
            elif c == '"': q = True
            elif c in '[{': depth += 1
            elif c in ']}':
                depth -= 1
                if depth == 0: return j + 1
            j += 1
    j = i
    while j < len(s) and s[j] not in ' \t': j += 1
    return j

def record(line):
    s = line.rstrip('\r')
    i = 0
    while i < len(s) and s[i] in ' \t': i += 1
    if i == len(s) or s[i] == '#': return None
    j = i
    while j < len(s) and s[j] not in ' \t': j += 1
    kind, f = s[i:j], {}
    i = j
    while True:
        while i < len(s) and s[i] in ' \t': i += 1
        if i >= len(s): break
        e = s.index('=', i)
        k = s[i:e]
        v_end = value_end(s, e + 1) if e + 1 < len(s) and s[e + 1] not in ' \t' else e + 1
        f.setdefault(k, s[e + 1:v_end])
        i = v_end
    return kind, f

def unescape(body):
    out, i = bytearray(), 0
    b = body.encode('utf-8', 'surrogateescape')
    while i < len(b):
        if b[i:i+1] == b'\\':
            c = chr(b[i+1])
            if c == 'x':
                out.append(int(b[i+2:i+4], 16)); i += 4; continue
            out += {'n': b'\n', 'r': b'\r', 't': b'\t', '\\': b'\\', '"': b'"'}[c]
            i += 2
        else:
            out.append(b[i]); i += 1
    return out.decode('utf-8', 'surrogateescape')

def seconds(ns):
    sign = '-' if ns < 0 else ''
    ns = abs(ns)
    return '%s%d.%09d' % (sign, ns // 10**9, ns % 10**9)

def date(ns):
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=ns // 10**9)
    return d.strftime('%Y-%m-%dT%H:%M:%S') + '.%09dZ' % (ns % 10**9)

first = prev = None
def cell(kind, f, name):
    global first, prev
    if name == 'kind': return kind
    if name not in f: return ''
    v = f[name]
    if name == 'ts' and time != 'ns':
        if kind not in shared or v == 'null': return ''
        ns = int(v, 0)
        if time == 'seconds': return seconds(ns)
        if time == 'date': return date(ns)
        if time == 'rel':
            if first is None: first = ns
            return seconds(ns - first)
        if time == 'delta':
            out = '' if prev is None else seconds(ns - prev)
            prev = ns
            return out
    if v.startswith('"'):
        body = v[1:-1]
        if mode == 'csv': return unescape(body)
        return body.replace('\\"', '"').replace('\t', '\\t').replace('\r', '\\r')
    return v.replace('\t', '\\t') if mode == 'tsv' else v

want = [fields]
with open(text, encoding='utf-8', errors='surrogateescape', newline='\n') as t:
    for line in t:
        r = record(line.rstrip('\n'))
        if r is not None:
            want.append([cell(r[0], r[1], n) for n in fields])

with open(table, encoding='utf-8', errors='surrogateescape', newline='') as t:
    if mode == 'csv':
        got = list(csv.reader(t))
    else:
        data = t.read()
        assert data.endswith('\n'), 'no final newline'
        got = [row.split('\t') for row in data[:-1].split('\n')]

for i, (g, w) in enumerate(zip(got, want)):
    if g != w:
        print('row %d: got %r want %r' % (i, g, w)); sys.exit(1)
if len(got) != len(want):
    print('rows: got %d want %d' % (len(got), len(want))); sys.exit(1)
print('ok %d' % (len(got) - 1))
EOF

# cmp_table MODE FIELDS TIME TEXT NAME: txtcut's table of TEXT checked.
cmp_table() {
	if [ "$1" = csv ]; then opt=--csv; else opt=; fi
	# shellcheck disable=SC2086
	txtcut $opt -f "$2" --time "$3" "$4" > table.out 2> table.err; rc=$?
	res=$(python3 check.py "$1" "$2" "$3" "$4" table.out 2>&1)
	like "$rc:$res" "0:ok *" "$5 ($res)"
}

# A stream of what a table finds hard: tabs, quotes, commas, escapes,
# bytes that are not UTF-8, UTF-8, lists and maps holding strings,
# null, the empty string, absent fields, comments, a CRLF line, a key
# met again inside a string, structure records with a ts that is no time.
printf '%s\n' \
	'trac-header arch=x64 json="{\"a\":1}"' \
	'# a comment' \
	'' \
	'insn seq=0 tid=7 pc=0x401000 name="a\tb \"q\", c" l=[1,"x, \"y\""] m={k:"v w",n:null}' \
	'event ts=1773850000000000012 tid=1 name=plain s="" n=null u="h\xc3\xa9llo \xff" bs="back\\\\slash"' \
	'dial9-schema id=0 name=E ts=1 fields={x:f64}' \
	'event ts=1773850000250000000 name="tid=9 inside" nl="one\ntwo\rthree"' \
	'write tid=2 pc=0x10 addr=0x2000 size=8 old=0x0 new=0x1' \
	'event ts=1773849999999999999 tid=3 name=back' \
	'event ts=null tid=4 name=untimed' > hard.txt
printf 'event ts=1773850000300000000 tid=5 name=crlf v="x,y"\r\n' >> hard.txt
all=kind,ts,tid,pc,name,l,m,s,n,u,bs,nl,addr,size,missing,json
for mode in tsv csv; do
	for t in ns seconds rel delta date; do
		cmp_table $mode $all $t hard.txt "$mode --time $t: hostile strings"
	done
done
# Read by hand too, for what the python decoder shares with txtcut.
printf '%s\t%s\t%s\n' insn 'a\tb "q", c' '[1,"x, \"y\""]' > want.tsv
txtcut -f kind,name,l hard.txt | sed -n 3p > got.tsv
same_file got.tsv want.tsv "TSV: \\t stays escaped, \\\" is a quote, a list is as written"
is "$(txtcut --csv -f kind,name hard.txt | sed -n 3,4p)" \
    "$(printf 'insn,"a\tb ""q"", c"\nevent,plain')" \
    "CSV: the string's bytes, quoted as RFC 4180 says"
is "$(txtcut --no-header -f tid,missing,kind hard.txt | sed -n 2p)" \
    "$(printf '7\t\tinsn')" "--no-header; an absent field is an empty cell"
is "$(txtcut -s -f kind hard.txt | sort | uniq -c | awk '{print $2 $1}' | tr '\n' ' ')" \
    "event5 insn1 kind1 write1 " "-s: the shared kinds' records only"
is "$(txtcut --time delta -f ts hard.txt | sed -n '5p;8p' | tr '\n' ' ')" \
    " -0.250000001 " "delta: negative when time goes back; empty on structure records"
# Found by fuzz-cut: a ts column repeated took the record as its own
# predecessor (delta 0), and times more than 2^63 ns apart wrapped.
is "$(printf 'insn ts=5\ninsn ts=7\n' | txtcut --csv -t delta -f ts,kind,ts)" \
    "$(printf 'ts,kind,ts\n,insn,\n0.000000002,insn,0.000000002')" \
    "delta: a ts column repeated shows the same"
is "$(printf 'insn ts=18446744073709551615\ninsn ts=0\n' | txtcut -t rel -f ts | sed -n 3p)" \
    "-18446744073.709551615" "rel: times 2^64-1 ns apart, exact"
is "$(txtcut --time date -f ts -s hard.txt | sed -n 3p)" \
    "2026-03-18T16:06:40.000000012Z" "date: 1773850000.000000012 s is 2026-03-18T16:06:40 UTC"
is "$(printf 'event ts=0\nevent ts=18446744073709551615\nevent ts=951782400000000000\n' | txtcut --time date -f ts --no-header | tr '\n' ' ')" \
    "1970-01-01T00:00:00.000000000Z 2554-07-21T23:34:33.709551615Z 2000-02-29T00:00:00.000000000Z " \
    "date: the epoch, the last 64-bit time, a leap day"

# Several files make one table with one header; -o.
txtcut -f kind,tid hard.txt hard.txt > two.out
is "$(grep -c '^kind' two.out):$(wc -l < two.out)" "1:19" "two inputs: one header, every row of both"

# A generated x64dbg trace: its memory accesses, and insn rows where the
# instruction has no ts (x64dbg has no time): an empty column.
gen-trac --arch x64 --blocks 3000 --threads 3 --seed 5 | trac2txt > x64.txt || exit 99
for mode in tsv csv; do
	cmp_table $mode kind,seq,tid,pc,addr,size,old,new,bytes,ts ns x64.txt "$mode: generated x64dbg trace"
done
cmp_table tsv kind,ts,seq seconds x64.txt "x64dbg: --time seconds leaves ts empty (no time in the format)"

# The real traces, where present: dial9 (ns) and WTF (us after a timebase).
d=$(corpus dial9)
if [ -n "$d" ]; then
	for f in "$d"/*.trc*; do
		b=$(basename "$f")
		dial92txt "$f" > d.txt 2>/dev/null || { ok 1 "dial92txt $b"; continue; }
		cmp_table csv kind,name,ts,tid,worker_id,task_id,spawn_loc,entries date d.txt "dial9 $b: CSV, dates"
		cmp_table tsv kind,ts,name,fields,pool rel d.txt "dial9 $b: TSV, rel"
	done
else
	skip "no corpus" "dial9 traces"
fi
w=$(corpus wtf)
if [ -n "$w" ]; then
	for f in "$w"/*.wtf-trace; do
		b=$(basename "$f")
		wtf2txt "$f" > w.txt 2>/dev/null || { ok 1 "wtf2txt $b"; continue; }
		cmp_table csv kind,ts,time,tid,name,args,arg.name,json,u,x delta w.txt "wtf $b: CSV, delta"
		cmp_table tsv kind,name,ts,scope seconds w.txt "wtf $b: TSV, seconds"
	done
else
	skip "no corpus" "WTF traces"
fi

# Bad options: a usage error (2), one line and the usage.
for f in '' 'a b' 'ts,' 'x=y' 'name,,ts'; do
	err=$(txtcut -f "$f" hard.txt 2>&1 >/dev/null); rc=$?
	like "$rc:$(echo "$err" | head -n 1)" "2:txtcut: -f: *" "bad -f '$f': usage error"
done
many=$(seq -s, 1 33 | sed 's/\([0-9][0-9]*\)/f\1/g')
err=$(txtcut -f "$many" hard.txt 2>&1 >/dev/null); rc=$?
like "$rc:$err" "2:txtcut: -f: more than 32 distinct fields*" "33 distinct fields: usage error"
err=$(txtcut hard.txt 2>&1 >/dev/null); rc=$?
like "$rc:$err" "2:txtcut: no fields*" "no -f: usage error"
err=$(txtcut -f ts --time minutes hard.txt 2>&1 >/dev/null); rc=$?
like "$rc:$err" "2:txtcut: --time: \"minutes\" is not one of ns, seconds, rel, delta, date*" "bad --time: usage error"

# Bad input: one line naming the input, line and column; status 1; the
# rows before it written.
gen-trac --arch x64 --blocks 5 --seed 1 > t.trace64 || exit 99
err=$(txtcut -f kind t.trace64 2>&1 >/dev/null); rc=$?
like "$rc:$err" "1:txtcut: t.trace64: offset 0x0: this is an x64dbg trace (TRAC), not trace text; use trac2txt" "a binary trace is refused, naming its decoder"
head -c 3000 /dev/urandom | tr -d '\n' > noise.bin
printf 'insn tid=1\n' | cat - noise.bin > noise.txt
out=$(txtcut -f kind,tid noise.txt 2>err.txt); rc=$?
like "$rc:$(wc -l < err.txt):$(cat err.txt)" "1:1:txtcut: noise.txt:2:*" "binary noise: one-line diagnostic at line 2, status 1"
is "$out" "$(printf 'kind\ttid\ninsn\t1')" "the rows before bad input are written"
printf 'event ts=1 a=1\nevent ts=2 a="unterminated\n' > bad.txt
err=$(txtcut -f a bad.txt 2>&1 >/dev/null); rc=$?
like "$rc:$err" "1:txtcut: bad.txt:2:*" "malformed line: status 1 with line and column"
printf 'event ts=1 a=1 a=2\n' > dup.txt
err=$(txtcut -f a dup.txt 2>&1 >/dev/null); rc=$?
like "$rc:$err" "1:txtcut: dup.txt:1:*twice*" "a key twice: malformed"
printf 'event ts=x1 a=1\n' > badts.txt
err=$(txtcut -f ts --time seconds badts.txt 2>&1 >/dev/null); rc=$?
like "$rc:$err" "1:txtcut: badts.txt:1:*ts*" "--time on a ts that is no integer: an error"
is "$(txtcut -f ts badts.txt | tail -n 1)" "x1" "without --time, ts is written as it is"

done_testing
