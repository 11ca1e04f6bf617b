#!/bin/sh
# any2txt: every sample of every format of the table (the shared corpus,
# found by format name, and generated traces) is recognised as its format
# by exactly one probe and decodes exactly as the format's own decoder
# does: same bytes out, same diagnostic, same exit status, on whole files,
# cut files, gzip, flags passed through; --list, --format, unknown and
# compressed input, several inputs.
. "$srcdir/tests/tap.sh"

any2txt --formats > formats.txt
ok $? "--formats lists the table"
# decoder NAME: the decoder program of a format of the table.
decoder() { awk -v n="$1" '$1 == n { print $2 }' formats.txt; }

# same_as DECODER ARGS... FILE: any2txt $ANY ARGS FILE against DECODER
# ARGS FILE: output, the diagnostics that name FILE (program name aside)
# and status.  The warnings and notes that a decoder's main prints after
# an input (its report(), not its module) are not any2txt's.
ANY=
same_as() {
	dec=$1; shift
	for last; do :; done
	# shellcheck disable=SC2086
	any2txt $ANY "$@" > a.out 2> a.err; a=$?
	"$dec" "$@" > d.out 2> d.err; d=$?
	grep -F "any2txt: $last: " a.err > a.err2
	grep -F "$dec: $last: " d.err | sed "s/^$dec: /any2txt: /" > d.err2
	[ "$a" = "$d" ] && cmp -s a.out d.out && cmp -s a.err2 d.err2
}

# Generated samples of the formats the project writes itself.
gen-trac --arch x64 --threads 3 --blocks 300 --seed 4 > g.trace64 || exit 99
gen-trac --arch x86 --blocks 300 --seed 5 > g.trace32 || exit 99
gen-rapidbin --events 5000 --threads 5 > g.data || exit 99
rapidbin2txt g.data | txt2std > g.std || exit 99
gzip -c g.trace64 > g.trace64.gz
gzip -c g.data > g.data.gz
samples="trac:g.trace64 trac:g.trace32 trac:g.trace64.gz rapidbin:g.data rapidbin:g.data.gz std:g.std"
# The shared corpus: a directory per format; files no probe accepts
# (JSON, notes, decoded text) are left out by --list.
for fmt in $(awk '{ print $1 }' formats.txt); do
	d=$(corpus "$fmt")
	[ -n "$d" ] || continue
	for f in $(find "$d" -type f | sort); do
		got=$(any2txt -l "$f" 2>/dev/null | sed 's/^.*: \([a-z0-9]*\)\( (.*)\)\{0,1\}$/\1/')
		[ -n "$got" ] && samples="$samples $got:$f"
	done
done

n=0 bad=0 badfmt=0
for s in $samples; do
	fmt=${s%%:*} f=${s#*:}
	got=$(any2txt -l "$f" | sed 's/^.*: \([a-z0-9]*\)\( (.*)\)\{0,1\}$/\1/')
	[ "$got" = "$fmt" ] || { badfmt=$((badfmt + 1)); echo "# $f: $got, not $fmt"; }
	same_as "$(decoder "$fmt")" "$f" || { bad=$((bad + 1)); echo "# $f: not as $(decoder "$fmt")"; }
	n=$((n + 1))
done
is "$badfmt/$n" "0/$n" "every sample is recognised as its format, by one probe"
is "$bad/$n" "0/$n" "every sample decodes as its own decoder decodes it ($(echo "$samples" | tr ' ' '\n' | cut -d: -f1 | sort | uniq -c | awk '{ printf "%s%s %s", s, $1, $2; s = ", " }'))"
# No two probes claim one input equally: every file of the corpus (of
# every format, in the table yet or not) and prefixes of every sample.
ties=0 n=0
all=$samples
if [ -n "${TP_SHARED:-}" ] && [ -d "$TP_SHARED/corpus" ]; then
	for f in $(find "$TP_SHARED/corpus" -type f | sort); do all="$all -:$f"; done
fi
for s in $all; do
	f=${s#*:}
	for cut in 4 8 18 26 100 4095 4096 5000 full; do
		if [ "$cut" = full ]; then cp "$f" pre.bin; else head -c "$cut" "$f" > pre.bin; fi
		any2txt -l pre.bin 2>&1 | grep -q "both accept" && { ties=$((ties + 1)); echo "# $f, $cut bytes: $(any2txt -l pre.bin 2>&1)"; }
		n=$((n + 1))
	done
done
is "$ties/$n" "0/$n" "no input or prefix is claimed by two probes equally"
case "$samples" in
*rapidbin:*/spd-deadlock-benchmarks/*) ok 0 "the real RapidBin traces are among them" ;;
*) skip "no corpus" "the real RapidBin traces are among them" ;;
esac

# Round trips through any2txt as through X2txt.
any2txt g.trace64 | txt2trac | cmp -s - g.trace64
ok $? "any2txt | txt2trac gives the x64dbg trace back byte for byte"
any2txt < g.data.gz | txt2rapidbin | cmp -s - g.data
ok $? "any2txt (gzip, stdin) | txt2rapidbin gives the RapidBin trace back"

# Cut files: the same prefix, diagnostic and status as the decoder's when
# a probe still recognises them; when none does (too short to show a
# magic, RapidBin cut inside an event), unknown, and --format decodes
# them as the decoder does.
# cut_as FMT FILE [ARGS]: one cut file.
cut_as() {
	fmt=$1 f=$2; shift 2
	if [ -n "$(any2txt -l "$f" 2>/dev/null)" ]; then
		recognised=$((recognised + 1))
		same_as "$(decoder "$fmt")" "$@" "$f"
	else
		any2txt "$@" "$f" > /dev/null 2> a.err
		[ $? -eq 1 ] && grep -q "not a trace format tracepipe knows" a.err &&
		    ANY="-F $fmt" same_as "$(decoder "$fmt")" "$@" "$f"
	fi || { bad=$((bad + 1)); echo "# $fmt $f $*: $(cat a.err) / $(cat d.err)"; }
	n=$((n + 1))
}
size=$(wc -c < g.trace64)
bad=0 n=0 recognised=0
for cut in 1 3 4 7 8 50 100 $((size / 3)) $((size / 2)) $((size - 1)); do
	head -c "$cut" g.trace64 > cut.trace64
	cut_as trac cut.trace64
	cut_as trac cut.trace64 --allow-truncated
done
size=$(wc -c < g.data)
for cut in 18 19 25 26 1000 $((size - 3)); do
	head -c "$cut" g.data > cut.data
	cut_as rapidbin cut.data
done
is "$bad/$n" "0/$n" "cut traces as the decoders decode them ($recognised recognised, the others with --format)"
head -c $(($(wc -c < g.trace64) / 2)) g.trace64 > half.trace64
any2txt half.trace64 > /dev/null 2> err.txt
like "$?:$(cat err.txt)" "1:any2txt: half.trace64: offset 0x*" "a cut trace: status 1, offset named"
any2txt -t half.trace64 > /dev/null 2> err.txt
is "$?:$(cat err.txt)" "0:" "-t (--allow-truncated) passes through"
dir=$(corpus rapidbin)
if [ -n "$dir" ]; then
	same_as rapidbin2txt --strict "$dir/spd-deadlock-benchmarks/Bensalem.data"
	ok $? "--strict passes through (as rapidbin2txt --strict: $(cat d.err))"
else
	skip "no corpus" "--strict passes through"
fi
same_as trac2txt --repair-tid g.trace32
ok $? "--repair-tid passes through"

# --list: the format and its details, gzip named.
is "$(any2txt -l g.trace32 g.trace64.gz)" "g.trace32: trac (x86, version 1, JSON header of $(od -An -tu4 -j4 -N4 g.trace32 | tr -d ' ') bytes)
g.trace64.gz: trac (x64, version 1, JSON header of $(od -An -tu4 -j4 -N4 g.trace64 | tr -d ' ') bytes, gzip)" "--list: architecture, version, compression"
like "$(any2txt --list g.data)" "g.data: rapidbin (threads=5 events=*)" "--list: RapidBin"
is "$(any2txt -l < g.std)" "<stdin>: std" "--list: STD text from stdin"

# Unknown and compressed input, forced formats.
printf 'hello, world\n' > hello.txt
any2txt hello.txt > out.txt 2> err.txt
is "$?:$(cat err.txt)" "1:any2txt: hello.txt: offset 0x0: not a trace format tracepipe knows ($(awk '{ printf "%s%s", s, $1; s = ", " }' formats.txt))" "unknown input: status 1 and the formats known"
any2txt < /dev/null > /dev/null 2> err.txt
is "$?" 1 "empty input is unknown"
if command -v xz > /dev/null 2>&1; then
	xz -c g.trace64 > g.xz
	any2txt g.xz > /dev/null 2> err.txt
	is "$?:$(cat err.txt)" "1:any2txt: g.xz: offset 0x0: this is xz-compressed data; decompress it first (xz -dc)" "xz data named as such"
else
	skip "no xz" "xz data named as such"
fi
rapidbin2txt g.trace64 2> d.err
any2txt -F rapidbin g.trace64 > /dev/null 2> err.txt
is "$?:$(cat err.txt)" "1:$(sed 's/^rapidbin2txt: /any2txt: /' d.err)" "--format rapidbin on a trac file: the decoder's refusal"
any2txt --format std g.std | cmp -s - "$(std2txt g.std > s.txt; echo s.txt)"
ok $? "--format std decodes STD"
any2txt -F nosuch g.data > /dev/null 2> err.txt
like "$?:$(head -1 err.txt)" "2:any2txt: --format: unknown format 'nosuch' (trac, rapidbin*" "--format with an unknown name: usage error"

# Several inputs: decoded in turn into one stream; the first failure stops.
any2txt g.trace32 g.data g.std > all.txt
{ trac2txt g.trace32; rapidbin2txt g.data; std2txt g.std; } > want.txt
same_file all.txt want.txt "several inputs of different formats, in turn"
any2txt g.data hello.txt g.trace32 > part.txt 2> err.txt
is "$?:$(cat err.txt)" "1:any2txt: hello.txt: offset 0x0: not a trace format tracepipe knows ($(awk '{ printf "%s%s", s, $1; s = ", " }' formats.txt))" "an unknown input among several: status 1"
rapidbin2txt g.data > want.txt
same_file part.txt want.txt "the inputs before it are written, none after"
rm -f o.txt
any2txt -o o.txt g.data hello.txt 2> /dev/null
is "$? $(ls o.txt* 2>/dev/null)" "1 " "-o: no file when an input fails"
any2txt -o o.txt g.data
same_file o.txt want.txt "-o FILE"
any2txt g.data missing.data > /dev/null 2> err.txt
like "$?:$(cat err.txt)" "2:any2txt: missing.data: cannot open*" "a missing input: status 2"
any2txt -l g.data hello.txt g.std > l.txt 2> err.txt
is "$?:$(cat l.txt):$(cat err.txt)" "1:g.data: rapidbin (threads=5 events=$(od -An -tu1 -j10 -N8 g.data | awk '{ v = 0; for (i = 1; i <= NF; i++) v = v * 256 + $i; print v }'))
g.std: std:any2txt: hello.txt: offset 0x0: not a trace format tracepipe knows ($(awk '{ printf "%s%s", s, $1; s = ", " }' formats.txt))" "--list goes on past an unknown input, status 1"

# What a decoder's program says after an input, any2txt says too.
printf 'read tid=0 var=1 loc=0\nwrite tid=0 var=1 loc=0\n' | txt2rapidbin > two.bin
head -c 26 two.bin > short.bin
rapidbin2txt -v short.bin > want.txt 2> want.err
any2txt -v short.bin > got.txt 2> got.err
same_file got.txt want.txt "a RapidBin file shorter than its header says: the same records"
is "$(grep -v ': a RapidBin' got.err)" "$(sed 's/^rapidbin2txt: /any2txt: /' want.err)" \
    "... and the decoder's warning and notes, word for word"
like "$(cat got.err)" "*header says events=2 but the file ends after 1 event*" "... which names the cut"
trac2txt -v g.trace32 2>&1 > /dev/null | sed 's/^trac2txt: /any2txt: /' > want.err
any2txt -v g.trace32 2>&1 > /dev/null | grep -v ': an x64dbg' > got.err
same_file got.err want.err "x64dbg: the counts trac2txt -v prints"

# The decoders' options and -v are their registrations': any2txt passes
# each one as the decoder's own program takes it, and -v sets what the
# decoder's -v sets (rapidbin2txt -v counts distinct ids).
rapidbin2txt -v g.data 2>&1 > /dev/null | sed 's/^rapidbin2txt: /any2txt: /' > want.err
any2txt -v g.data 2>&1 > /dev/null | grep -v ': a RapidBin' > got.err
same_file got.err want.err "RapidBin: the report rapidbin2txt -v prints, the distinct ids included"
head -c 1001 g.data > cut.data
ANY="-F rapidbin" same_as rapidbin2txt --allow-truncated cut.data
is "$a:$d" "0:0" "-F rapidbin --allow-truncated: a cut event dropped, as rapidbin2txt --allow-truncated does"
ANY="-F rapidbin" same_as rapidbin2txt -t cut.data
is "$a:$d" "0:0" "... and -t"
{ cat "$srcdir/tests/data/probe/dial9.sample"; printf '\007'; } > tag.trc
same_as dial92txt tag.trc
is "$a:$(grep -c 'unknown frame tag' a.err)" "1:1" "dial9: an unknown frame tag is an error, as for dial92txt"
same_as dial92txt --lenient tag.trc
is "$a:$(cat a.err)" "0:" "--lenient passes through (its -l is any2txt's --list)"
gen-ucir --frames 5 --ops 30 --seed 9 > g.ucir || exit 99
same_as ucir2txt --max-frame=64 g.ucir
is "$a:$(grep -c 'more than the limit of 64 (--max-frame)' a.err)" "1:1" "ucir: --max-frame passes through, as ucir2txt takes it"
same_as ucir2txt -m 64 g.ucir
ok $? "... and -m"
any2txt --max-frame=x g.ucir > /dev/null 2> err.txt
like "$?:$(head -1 err.txt)" "2:any2txt: --max-frame: 'x' is not a number from 1 to *" "... a bad value is a usage error, in its words"

done_testing
