#!/bin/sh
# Replays every fuzz harness over its seed inputs (and the project's test
# data), as zstd's regression driver does; a crash or an abort fails.
. "$srcdir/tests/tap.sh"
for h in "$builddir"/tests/fuzz-*; do
	[ -x "$h" ] || continue
	name=${h##*/fuzz-}
	case $name in *.*) continue ;; esac
	files=$(find "$srcdir/tests/data/$name" "$srcdir/tests/fuzz-corpus/$name" \
	    -type f 2>/dev/null)
	if [ -z "$files" ]; then
		skip "no seeds" "fuzz-$name replay"
		continue
	fi
	# shellcheck disable=SC2086
	"$h" $files >/dev/null 2>&1
	ok $? "fuzz-$name over $(echo "$files" | wc -l) inputs"
done
done_testing
