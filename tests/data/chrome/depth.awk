# The depth of each slice as the viewers nest them on a track: by time,
# a slice inside the ones still open where it starts (one that ends
# where it starts is not open).  Input: slices.awk's lines with their
# end appended, sorted by track, start, end (the longer first) and
# stack depth (the outer first where two have one start and end).
{
	k = $1 " " $2
	if (k != track) { track = k; sp = 0 }
	while (sp > 0 && stk[sp] + 0 <= $4 + 0) sp--
	print $1, $2, $3, $4, $5, sp
	stk[++sp] = $7
}
