# speedscope joins a call that starts where the call before of the same
# frame, thread and depth ended: the same joined here.
{ k = $1 " " $2 " " $3 " " $6
  if (k == pk && $4 == pend) { d = dur + $5; pend = sprintf("%.3f", $4 + $5); dur = d; next }
  if (pk != "") print pline(); pk = k; p1 = $1; p2 = $2; p3 = $3; p4 = $4; p6 = $6; dur = $5; pend = sprintf("%.3f", $4 + $5) }
function pline() { return p1 " " p2 " " p3 " " p4 " " sprintf("%.3f", dur) " " p6 }
END { if (pk != "") print pline() }
