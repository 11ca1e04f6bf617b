# tap.sh: a small TAP library for the shell tests (sourced).
#   plan N | ok COND-STATUS NAME | is GOT WANT NAME | skip REASON NAME | done_testing
# Each test runs in its own scratch directory, removed at exit.
set -u
tap_n=0
tap_failed=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tracepipe-test.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 99

plan() { echo "1..$1"; }
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then printf 'ok %d - %s\n' "$tap_n" "$2"
	else printf 'not ok %d - %s\n' "$tap_n" "$2"; tap_failed=$((tap_failed + 1)); fi
}
# is GOT WANT NAME: string equality, with a diagnostic on failure.
is() {
	if [ "$1" = "$2" ]; then ok 0 "$3"
	else ok 1 "$3"; printf '#   got:  %s\n#   want: %s\n' "$1" "$2" | head -20; fi
}
# like GOT PATTERN NAME: shell glob match.
like() {
	case "$1" in
	$2) ok 0 "$3" ;;
	*) ok 1 "$3"; printf '#   got:  %s\n#   want like: %s\n' "$1" "$2" | head -20 ;;
	esac
}
# same_file A B NAME: byte-identical files.
same_file() {
	if cmp -s "$1" "$2"; then ok 0 "$3"
	else ok 1 "$3"; cmp "$1" "$2" 2>&1 | sed 's/^/#   /' | head -5; fi
}
# rss_ok PROG: PROG's peak memory can be measured here (GNU time, and no
# AddressSanitizer, whose shadow memory is no measure of ours).
rss_ok() {
	! grep -q __asan_init "$(command -v "$1")" 2>/dev/null &&
	    [ -x /usr/bin/time ] && /usr/bin/time -f %M true 2>/dev/null
}
# signum NAME: the number of signal NAME (dash's kill -l maps only the
# other way).
signum() {
	n=1
	while [ $n -lt 65 ]; do
		[ "$(kill -l $n 2>/dev/null)" = "$1" ] && { echo $n; return 0; }
		n=$((n + 1))
	done
	return 1
}
skip() { tap_n=$((tap_n + 1)); printf 'ok %d - %s # SKIP %s\n' "$tap_n" "$2" "$1"; }
done_testing() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; exit $?; }

# The shared corpus, or empty when ../shared is absent.
corpus() {
	if [ -n "${TP_SHARED:-}" ] && [ -d "$TP_SHARED/corpus/$1" ]; then
		echo "$TP_SHARED/corpus/$1"
	fi
}

# An awk function for tests that read the text stream's values: the
# length of the value at the start of s, up to the first of the
# characters stops outside quotes and brackets (" " for a record's field
# value, "," for a list element, ",:" for a map key).  Use as
# awk "$TV_AWK"'...program...'.
TV_AWK='
function tv_len(s, stops,   i, d, q, ch, c) {
	c = substr(s, 1, 1)
	if (c == "\"" && match(s, /^"([^"\\]|\\.)*"/) &&
	    (RLENGTH == length(s) || index(stops, substr(s, RLENGTH + 1, 1))))
		return RLENGTH
	if (c != "\"" && c != "[" && c != "{" && length(stops) == 1) {
		i = index(s, stops)
		return i ? i - 1 : length(s)
	}
	d = 0; q = 0
	for (i = 1; i <= length(s); i++) {
		ch = substr(s, i, 1)
		if (q) { if (ch == "\\") i++; else if (ch == "\"") q = 0 }
		else if (ch == "\"") q = 1
		else if (ch == "[" || ch == "{") d++
		else if (ch == "]" || ch == "}") d--
		else if (d == 0 && index(stops, ch)) return i - 1
	}
	return length(s)
}'
