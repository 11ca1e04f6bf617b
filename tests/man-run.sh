# Sourced by tests that run the commands a man page shows (after
# tests/tap.sh): inside .EX/.EE of one section, a line "$ CMD" is a
# command run with sh in directory $dir; the lines after it, up to the
# next "$ " line or .EE, are its exact expected standard output.  Every
# command must exit 0 and write nothing to standard error: a warning the
# page shows is made output (2>&1).

# man_extract FILE SECTION: the section's lines as "C<tab>command" and
# "O<tab>output" (SECTION as .SH names it, quotes left out).
man_extract() {
	awk -v sec="$2" '
	/^\.SH/ { t = $0; sub(/^\.SH[ \t]+/, "", t); gsub(/"/, "", t)
		inex = (t == sec); next }
	!inex { next }
	/^\.EX/ { inblk = 1; next }
	/^\.EE/ { inblk = 0; next }
	!inblk { next }
	{
		line = $0
		gsub(/\\-/, "-", line); gsub(/\\\(aq/, "\047", line)
		gsub(/\\&/, "", line); gsub(/\\e/, "\\", line)
		if (substr(line, 1, 2) == "$ ") print "C\t" substr(line, 3)
		else print "O\t" line
	}' "$1"
}

# Run $cmd in $dir; compare its output with $want (tests named $page).
man_check() {
	if [ -z "$cmd" ]; then return; fi
	got=$(cd "$dir" && sh -c "$cmd" </dev/null 2>"$TMP/stderr"); rc=$?
	if [ $rc -ne 0 ]; then
		ok 1 "$page: \$ $cmd (exit $rc)"
		sed 's/^/#   /' "$TMP/stderr" | head -5
	elif [ -s "$TMP/stderr" ]; then
		ok 1 "$page: \$ $cmd (a warning the page does not show)"
		sed 's/^/#   /' "$TMP/stderr" | head -5
	elif [ -n "$want" ]; then
		is "$got" "$want" "$page: \$ $cmd"
	else
		ok 0 "$page: \$ $cmd"
	fi
	cmd=
}

# man_run FILE SECTION: run the section's commands in turn in $dir;
# man_n gets how many there were.
man_run() {
	man_n=0
	cmd=
	want=
	man_tab=$(printf '\t')
	man_extract "$1" "$2" > "$TMP/ex"
	while IFS= read -r rec; do
		case "$rec" in
		C"$man_tab"*)
			man_check
			cmd=${rec#C?}
			want=
			man_n=$((man_n + 1)) ;;
		O"$man_tab"*)
			line=${rec#O?}
			if [ -z "$want" ]; then want=$line
			else want="$want
$line"; fi ;;
		esac
	done < "$TMP/ex"
	man_check
}
