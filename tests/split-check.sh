# split-check.sh: the property every splitter keeps (sourced by
# tests/split-*.sh after tap.sh).  split_prop NAME DEC ENC NORM FILE
# OPTION...: tracesplit FILE with OPTION... into pieces; decoding the
# pieces and concatenating their records gives the records of decoding
# the whole (NORM, a filter, takes the structure records and the fields
# that say where a piece starts away: grep -v, sed, independent of
# tracesplit), and every piece round-trips by itself (DEC | ENC gives
# its bytes back).  Sets $pieces to the number of pieces.
# With SP_EVERY=K (thousands of one-line pieces, three processes each
# under a sanitizer), the pieces are decoded by one run of DEC (a file
# after another, each by itself) and every Kth piece alone, and round-trips.
split_prop() {
	sp_name=$1 sp_dec=$2 sp_enc=$3 sp_norm=$4 sp_file=$5
	shift 5
	rm -rf pieces && mkdir pieces
	tracesplit -q "$@" "$sp_file" pieces/x 2> split.err
	ok $? "$sp_name: tracesplit $* exits 0"
	pieces=$(ls pieces | wc -l)
	$sp_dec -q "$sp_file" | $sp_norm > whole.txt
	sp_bad=0 sp_i=0 sp_every=${SP_EVERY:-1}
	: > pieces.txt
	if [ "$sp_every" -gt 1 ]; then
		$sp_dec -q pieces/x-* > piece.txt || sp_bad=$((sp_bad + 1))
		$sp_norm < piece.txt > pieces.txt
	fi
	for sp_p in pieces/x-*; do
		sp_i=$((sp_i + 1))
		[ $((sp_i % sp_every)) -eq $((1 % sp_every)) ] || continue
		$sp_dec -q "$sp_p" > piece.txt || sp_bad=$((sp_bad + 1))
		[ "$sp_every" -gt 1 ] || $sp_norm < piece.txt >> pieces.txt
		$sp_enc -q piece.txt | cmp -s - "$sp_p" || sp_bad=$((sp_bad + 1))
	done
	same_file pieces.txt whole.txt "$sp_name: $* ($pieces pieces): the pieces' records are the whole's"
	is "$sp_bad" 0 "$sp_name: $*: each piece decodes and round-trips byte for byte${SP_EVERY:+ (every ${SP_EVERY}th alone)}"
	rm -f pieces.txt
}
