#!/bin/sh
# Replays every fuzz harness over its seed inputs (and the project's test
# data), as zstd's regression driver does; a crash or an abort fails.
# The xxd dumps (*.hex) among them are replayed as the bytes they hold,
# as scripts/fuzz seeds them (when xxd is there).
. "$srcdir/tests/tap.sh"

# The files under the directories given, a dump as its bytes (in $TMP).
seeds() {
	find "$@" -type f ! -name '*.hex' 2>/dev/null
	command -v xxd >/dev/null || return 0
	find "$@" -type f -name '*.hex' 2>/dev/null | while read -r f; do
		b=$TMP/hex/$(echo "$f" | tr / _)
		mkdir -p "$TMP/hex"
		sed 's/#.*//' "$f" | xxd -r -p > "$b.bin" && echo "$b.bin"
	done
}

for h in "$builddir"/tests/fuzz-*; do
	[ -x "$h" ] || continue
	name=${h##*/fuzz-}
	case $name in *.* | format) continue ;; esac
	files=$(seeds "$srcdir/tests/data/$name" "$srcdir/tests/fuzz-corpus/$name")
	if [ -z "$files" ]; then
		skip "no seeds" "fuzz-$name replay"
		continue
	fi
	# shellcheck disable=SC2086
	"$h" $files >/dev/null 2>&1
	ok $? "fuzz-$name over $(echo "$files" | wc -l) inputs"
done
# The harness every format has, keyed by its row: its sample, its test
# data and its regression inputs.
formats > table || exit 99
while read -r name dec enc kind desc; do
	files=$(seeds "$srcdir/tests/data/probe/$name.sample" "$srcdir/tests/data/$name" \
	    "$srcdir/tests/fuzz-corpus/format-$name")
	# shellcheck disable=SC2086
	FUZZ_FORMAT=$name "$builddir/tests/fuzz-format" $files >/dev/null 2>&1
	ok $? "fuzz-format $name over $(echo "$files" | wc -l) inputs"
done < table
done_testing
