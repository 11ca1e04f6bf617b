#!/bin/sh
# Diagnostics that name the real problem (issue 7 §7): numbers that
# overflow, bytes a terminal would hide, a range without its start.
. "$srcdir/tests/tap.sh"

printf 'T99999999999999999999999|acq(L3)|362\n' > big.std
err=$(std2txt big.std 2>&1 >/dev/null)
is "$?:$err" "1:std2txt: big.std:1:2: thread: the number overflows 64 bits" \
    "std2txt: a thread id over 64 bits is said to overflow"
printf 'T0|acq(L3)|99999999999999999999999\n' > loc.std
err=$(std2txt loc.std 2>&1 >/dev/null)
is "$?:$err" "1:std2txt: loc.std:1:12: location: the number overflows 64 bits" \
    "std2txt: a location over 64 bits is said to overflow"
printf 'T0|acq(L99999999999999999999999)|3\n' > op.std
err=$(std2txt op.std 2>&1 >/dev/null)
like "$?:$err" "1:std2txt: op.std:1:*: operand: the number overflows 64 bits" \
    "std2txt: an operand over 64 bits is said to overflow"

# A byte a terminal hides in a value is shown as \xHH; a NUL is binary.
printf 'read tid=1\0012 var=2\n' > ctl.txt
err=$(txtfilter --tid 1 ctl.txt 2>&1 >/dev/null)
is "$?:$err" '2:txtfilter: ctl.txt:1:10: field "tid": "1\x012" is not a number' \
    "txtfilter: a control byte in a value is shown"
printf 'read tid=1\0002 var=2\n' > nul.txt
err=$(txtfilter --tid 1 nul.txt 2>&1 >/dev/null)
is "$?:$err" '2:txtfilter: nul.txt:1:11: a NUL byte: binary data, not trace text' \
    "txtfilter: a NUL byte is binary data"
printf 'read tid=1 var=2\n' > ok.txt
err=$(txtfilter --tid "$(printf '4\0017')" ok.txt 2>&1 | head -n 1)
is "$err" 'txtfilter: --tid: "4\x017" is not a number' \
    "txtfilter: a control byte in an option value is shown"

# --ts +5: the range has no start.
err=$(txtfilter --ts +5 ok.txt 2>&1 | head -n 1)
is "$err" 'txtfilter: --ts: "+5": a range A+N needs its start A (write 5- for 5 and after)' \
    "txtfilter --ts +5 names the missing start"
# Names from the input reach a diagnostic escaped as the text writer
# escapes a string: one line each, no byte a terminal acts on (a newline,
# ESC, the C1 CSI), UTF-8 as it is.
n=$(printf 'a\nb\033[2Jc\302\233d\303\251')
printf 'xx' > "$n"
want='a\nb\x1b[2Jc\xc2\x9bd'$(printf '\303\251')
for p in dial92txt wtf2txt any2txt; do
	$p "$n" > /dev/null 2> err.txt
	is "$(wc -l < err.txt | tr -d ' '):$(grep -cF "$p: $want: " err.txt)" 1:1 \
	    "$p: a file name with a newline and escape sequences, escaped on one line"
done
printf 'ev ts=2\nev ts=1\n' > "$n"
txtmerge "$n" > /dev/null 2> err.txt
is "$(wc -l < err.txt | tr -d ' '):$(grep -cF "txtmerge: $want:2: ts 1 goes back in time" err.txt)" 1:1 \
    "a warning (tp_warn) is escaped the same way"
# A binary trace given to a text tool is refused as the encoders refuse
# it, naming the format and its decoder, before a byte is written; trace
# text given to rapidbin2txt (no magic number) likewise, before a header.
trac-sample --blocks 5 > bin.trace64 || exit 99
for p in txtmerge:1 txtstat:1 txt2json:1 txt2chrome:1 txtfilter:2; do
	st=${p#*:} p=${p%:*}
	$p bin.trace64 > out.txt 2> err.txt; rc=$?
	is "$rc:$(cat err.txt):$(wc -c < out.txt | tr -d ' ')" \
	    "$st:$p: bin.trace64: offset 0x0: this is an x64dbg trace (TRAC), not trace text; use trac2txt:0" \
	    "$p: a binary trace: its format and decoder named, nothing written"
done
printf 'ev ts=1\n' > one.txt
txtmerge one.txt bin.trace64 > out.txt 2> err.txt; rc=$?
is "$rc:$(wc -c < out.txt | tr -d ' ')" "1:0" "txtmerge: a binary second input: nothing merged"
if command -v script > /dev/null; then
	err=$(script -qec "txtmerge bin.trace64" /dev/null < /dev/null 2>&1 | tr -d '\r')
	is "$err" "txtmerge: bin.trace64: offset 0x0: this is an x64dbg trace (TRAC), not trace text; use trac2txt" \
	    "txtmerge: a binary trace is not copied to a terminal"
else
	skip "no script(1)" "txtmerge: a binary trace is not copied to a terminal"
fi
printf 'insn tid=1 pc=0x10\nread tid=1 addr=0x5\n' > t.txt
rapidbin2txt t.txt > out.txt 2> err.txt; rc=$?
is "$rc:$(cat err.txt):$(wc -c < out.txt | tr -d ' ')" \
    "1:rapidbin2txt: t.txt: offset 0x0: this looks like trace text, not a RapidBin trace (RAPID, Wasmgrind); use txt2rapidbin to encode it:0" \
    "rapidbin2txt: trace text refused before any header is written"
txt2rapidbin -q t.txt | rapidbin2txt > out.txt 2> err.txt
is "$?:$(head -n 1 out.txt | cut -d' ' -f1)" "0:rapidbin-header" "rapidbin2txt: a RapidBin trace still decodes"
done_testing
