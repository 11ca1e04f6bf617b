# each_trace WHAT FN: every dial9, WTF and RapidBin trace of the corpus
# decoded to ev.txt, then FN "FORMAT FILE" ev.txt; a format without its
# corpus is a skip of "FORMAT WHAT".  Sourced by the consumer tests.
each_trace() {
	for fmt in dial9 wtf rapidbin; do
		c=$(corpus $fmt)
		if [ -z "$c" ]; then
			skip "no ../shared corpus" "$fmt $1"
			continue
		fi
		for f in "$c"/*.trc* "$c"/*.wtf-trace "$c"/spd-deadlock-benchmarks/*.data; do
			[ -f "$f" ] || continue
			case $fmt:$f in
			dial9:*.trc*) dial92txt "$f" > ev.txt 2> /dev/null ;;
			wtf:*.wtf-trace) wtf2txt "$f" > ev.txt 2> /dev/null ;;
			rapidbin:*.data) rapidbin2txt "$f" > ev.txt 2> /dev/null ;;
			*) continue ;;
			esac
			"$2" "$fmt $(basename "$f")" ev.txt
		done
	done
}

# slices_of TEXT: the slices of a trace text, "pid tid name start dur
# depth", nested by time as the viewers nest a track's slices.
slices_of() {
	awk -f "$srcdir/tests/data/chrome/slices.awk" "$1" |
	    awk '{ print $0, sprintf("%.3f", $4 + $5) }' |
	    sort -k1,1n -k2,2 -k4,4n -k7,7nr -k6,6n |
	    awk -f "$srcdir/tests/data/chrome/depth.awk"
}
