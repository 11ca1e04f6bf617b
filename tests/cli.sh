#!/bin/sh
# The conventions every program shares (tracepipe(7)): --help, --version,
# usage errors, a file operand and stdin giving the same output, "-" as
# stdin, -o written only on success, binary never to a terminal.
. "$srcdir/tests/tap.sh"
formats > table || exit 99

# Inputs: NAME.in for each format's decoder (the bigger generated traces
# where a generator exists, else tests/data/probe/NAME.sample), NAME.txt
# (its text) for its encoder; the same at a size beyond a pipe's buffer.
gen-trac --arch x64 --blocks 30 --seed 9 > trac.in || exit 99
gen-trac --arch x64 --blocks 6000 --threads 2 --seed 3 > trac.big || exit 99
gen-rapidbin --events 200 --seed 9 > rapidbin.in || exit 99
gen-rapidbin --events 40000 --seed 3 > rapidbin.big || exit 99
rapidbin2txt rapidbin.in | txt2std > std.in || exit 99
rapidbin2txt rapidbin.big | txt2std > std.big || exit 99
gen-ucir --frames 5 --ops 30 --seed 9 > ucir.in || exit 99
gen-ucir --frames 40 --ops 400 --seed 3 > ucir.big || exit 99
gen-wtf --records 300 --seed 9 > wtf.in || exit 99
gen-wtf --records 200000 --seed 3 > wtf.big || exit 99
while read -r name dec enc kind desc; do
	[ -f $name.in ] || cp "$srcdir/tests/data/probe/$name.sample" $name.in
	[ -f $name.big ] || cp $name.in $name.big
	$dec $name.in > $name.txt && $dec $name.big > $name.bigtxt || exit 99
done < table

# program, its input, whether its output is binary, whether it takes
# several files: each format's decoder and encoder, txtfilter, txtstat
# and any2txt.
while read -r name dec enc kind desc; do
	[ "$kind" = binary ] && bin=1 || bin=0
	echo "$dec $name.in 0 1"
	echo "$enc $name.txt $bin 0"
done < table > programs
# The programs that are no format's.
txt2json trac.txt > trac.json && txt2json trac.bigtxt > trac.bigjson || exit 99
cat >> programs <<EOF2
txtfilter trac.txt 0 -
txtstat trac.txt 0 -
txtcut trac.txt 0 -
any2txt trac.in 0 1
txtmerge trac.txt 0 -
txt2json trac.txt 0 1
json2txt trac.json 0 1
txt2chrome trac.txt 0 0
EOF2
# A program's own arguments for reading its input (txtcut needs -f).
args_of() {
	case $1 in
	txtcut) echo "-f kind,tid" ;;
	esac
}
while read -r prog input bin multi; do
	args=$(args_of "$prog")
	out=$($prog --help); rc=$?
	like "$rc:$out" "0:Usage: $prog *" "$prog --help"
	like "$($prog --version)" "$prog (tracepipe) *" "$prog --version"
	err=$($prog --no-such-option 2>&1 >/dev/null); rc=$?
	is "$rc:$(echo "$err" | head -n 1)" "2:$prog: unrecognized option '--no-such-option'" \
	    "$prog: unknown option is a usage error"
	# shellcheck disable=SC2086
	$prog $args "$input" > file.out 2>/dev/null; rc1=$?
	# shellcheck disable=SC2086
	$prog $args < "$input" > stdin.out 2>/dev/null; rc2=$?
	# shellcheck disable=SC2086
	$prog $args - < "$input" > dash.out 2>/dev/null; rc3=$?
	ok $(( rc1 + rc2 + rc3 > 1 )) "$prog: runs on its input ($rc1 $rc2 $rc3)"
	same_file file.out stdin.out "$prog: a file operand and stdin give the same output"
	same_file file.out dash.out "$prog: - is stdin"
	# shellcheck disable=SC2086
	$prog $args -o named.out "$input" 2>/dev/null
	same_file file.out named.out "$prog -o FILE"
	if [ "$multi" = 1 ]; then
		# Decoders read several files in turn, as cat does (txtfilter
		# as grep does: its own tests).
		$prog "$input" - "$input" < "$input" > multi.out 2>/dev/null
		cat file.out file.out file.out > multi.want
		same_file multi.out multi.want "$prog: several files are decoded in turn"
	elif [ "$multi" = 0 ]; then
		err=$($prog a b 2>&1); rc=$?
		like "$rc:$err" "2:$prog: too many operands*" "$prog: two operands are a usage error"
	fi
	printf 'read tid=zz\ngarbage \001 "\n' > bad.in
	rm -f never.out
	# txtfilter and txtmerge judge only the fields they use: give them one.
	case $prog in
	txtfilter) sel="--tid 1" ;;
	txtmerge) sel="--renumber-tids" ;;
	*) sel=$args ;;
	esac
	# shellcheck disable=SC2086
	$prog $sel -o never.out bad.in 2>/dev/null
	rc=$?
	[ ! -e never.out ] && [ $rc -ne 0 ]
	ok $? "$prog: no -o file after bad input (exit $rc)"
	ls never.out.* >/dev/null 2>&1
	ok $(( ! $? )) "$prog: no temporary file left behind"
	if [ "$bin" = 1 ]; then
		err=$(script -qec "$prog < $input" /dev/null </dev/null 2>&1 | tr -d '\r')
		like "$err" "$prog: refusing to write binary data to a terminal*" \
		    "$prog: refuses to write binary to a terminal"
	fi
done < programs

# The shared options have one help text, written once, at the end of
# every program's --help, then the exit statuses; -v says the same
# everywhere except in txtfilter, whose -v inverts as grep's does.
want_verbose="verbose        say what was done, on standard error"
while read -r prog input bin multi; do
	$prog --help > help.txt
	v=$(grep -- '--verbose' help.txt | sed 's/^ *\(-v, \)\{0,1\}--//; s/  */ /g')
	is "$v" "$(echo "$want_verbose" | sed 's/  */ /g')" "$prog --help: the one wording of --verbose"
	like "$(grep -A1 -- '--help ' help.txt | tail -1)" "*-V, --version*show the version and exit" \
	    "$prog --help: the shared options, in their order"
	like "$(tail -n 3 help.txt | tr '\n' ' ')" "*Exit status: 0 *, 2 usage or system*error. " \
	    "$prog --help: ends with the exit statuses"
done < programs
like "$(txtfilter --help | grep -- ' -v,')" "*-v, --invert*" "txtfilter: -v inverts, as grep's"

# Output larger than a pipe holds: a reader that goes away ends the program
# quietly (no message, status 0 or death by SIGPIPE); a full disk is a
# one-line error and status 2.
while read -r name dec enc kind desc; do
	echo "$dec $name.big"
	echo "$enc $name.bigtxt"
done < table > programs
cat >> programs <<EOF2
txtfilter trac.bigtxt
txtstat trac.bigtxt
txtcut trac.bigtxt
any2txt rapidbin.big
txtmerge trac.bigtxt
txt2json trac.bigtxt
json2txt trac.bigjson
txt2chrome trac.bigtxt
EOF2
while read -r prog input; do
	args=$(args_of "$prog")
	# shellcheck disable=SC2086
	{ $prog $args "$input" 2> pipe.err; echo $? > pipe.rc; } | head -c 10 > /dev/null
	case "$(cat pipe.rc):$(cat pipe.err)" in 0: | 141:) ok 0 "$prog: a closed pipe ends it quietly" ;;
	*) ok 1 "$prog: a closed pipe ends it quietly"; sed 's/^/#   /' pipe.rc pipe.err ;;
	esac
	# shellcheck disable=SC2086
	err=$($prog $args "$input" 2>&1 > /dev/full); rc=$?
	like "$rc:$err" "2:$prog: <stdout>: write error: No space left on device" \
	    "$prog: a full disk is an error (status 2)"
done < programs
done_testing
