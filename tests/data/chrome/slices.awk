# The slices a trace text says, by the pairing rule of txt2chrome(1)
# written again for the consumer tests: one line each,
# "pid tid name start(us) dur(us) depth", depth the slices open around it
# on its thread.  Times in us with three decimals, done on the digits
# (awk's doubles do not hold a ns epoch).
function us(ns) { while (length(ns) < 4) ns = "0" ns; return substr(ns, 1, length(ns) - 3) "." substr(ns, length(ns) - 2) }
function diff(a, b,   ha, hb, la, lb) {	# b - a in ns, 0 when b < a
	while (length(a) < 13) a = "0" a; while (length(b) < 13) b = "0" b
	ha = substr(a, 1, length(a) - 12); la = substr(a, length(a) - 11)
	hb = substr(b, 1, length(b) - 12); lb = substr(b, length(b) - 11)
	d = (hb - ha) * 1000000000000 + (lb - la)
	return d < 0 ? 0 : d
}
function val(s) { if (s ~ /^".*"$/) { s = substr(s, 2, length(s) - 2); gsub(/\\"/, "\"", s) } return s }
function pairword(nm,   head, tail, i, w) {	# sets stem, opens; 1 when a pair word
	head = nm; tail = ""
	i = index(nm, ":"); if (i) { head = substr(nm, 1, i - 1); tail = substr(nm, i) }
	if (length(head) > 5 && substr(head, length(head) - 4) == "Event") head = substr(head, 1, length(head) - 5)
	split("Start Begin Enter Park End Stop Exit Leave Unpark", W, " ")
	for (i = 1; i <= 9; i++) {
		w = W[i]
		if (length(head) > length(w) && substr(head, length(head) - length(w) + 1) == w) {
			stem = substr(head, 1, length(head) - length(w))
			if (w == "Park" || w == "Unpark") stem = stem "Park"
			stem = stem tail; opens = i <= 4; return 1
		}
	}
	return 0
}
function emit(k, t, endts, lane,   nm) {
	nm = nm_[t, k]; gsub(/ /, "_", nm)
	print pid_[t, k], lane ? tid_[t, k] "_overlap_" lane : tid_[t, k], nm, us(st_[t, k]), us(diff(st_[t, k], endts) ""), lane ? 0 : k - 1
}
# A slice that ends while one opened after it is open overlaps it, and
# so may one that does not hold the slices closed inside it on its track
# or one opened before the end of a slice already on its track (times
# that go back): on the first lane of its thread whose slices all
# end by its start.
function close_at(t, k, endts,   j, l, e, lane) {
	e = endts + 0 < st_[t, k] + 0 ? st_[t, k] : endts
	lane = k < n[t] || la_[t, k] || (ne_[t, k] && (fs_[t, k] + 0 < st_[t, k] + 0 || ls_[t, k] + 0 > e + 0))
	if (lane) {
		for (l = 1; (t, l) in lend && lend[t, l] + 0 > st_[t, k] + 0; l++) ;
		if (!((t, l) in lend) || lend[t, l] + 0 < endts + 0) lend[t, l] = endts
	} else {
		if (!(t in hi) || e + 0 > hi[t] + 0) hi[t] = e
		if (!ne_[t, k] || st_[t, k] + 0 < fs_[t, k] + 0) fs_[t, k] = st_[t, k]
		if (!ne_[t, k] || e + 0 > ls_[t, k] + 0) ls_[t, k] = e
		ne_[t, k] = 1
	}
	if (k > 1 && ne_[t, k]) {
		if (!ne_[t, k - 1] || fs_[t, k] + 0 < fs_[t, k - 1] + 0) fs_[t, k - 1] = fs_[t, k]
		if (!ne_[t, k - 1] || ls_[t, k] + 0 > ls_[t, k - 1] + 0) ls_[t, k - 1] = ls_[t, k]
		ne_[t, k - 1] = 1
	}
	emit(k, t, endts, lane ? l : 0)
	for (j = k; j < n[t]; j++) { nm_[t, j] = nm_[t, j + 1]; st_[t, j] = st_[t, j + 1]; ty_[t, j] = ty_[t, j + 1]; pid_[t, j] = pid_[t, j + 1]; tid_[t, j] = tid_[t, j + 1]; ne_[t, j] = ne_[t, j + 1]; la_[t, j] = la_[t, j + 1]; fs_[t, j] = fs_[t, j + 1]; ls_[t, j] = ls_[t, j + 1] }
	n[t]--
}
function push(t, name, type) { n[t]++; ne_[t, n[t]] = 0; la_[t, n[t]] = (t in hi) && ts + 0 < hi[t] + 0; nm_[t, n[t]] = name; st_[t, n[t]] = ts; ty_[t, n[t]] = type; pid_[t, n[t]] = pid; tid_[t, n[t]] = tid }
# The time of a record of a shared kind: its ts, or, when the first has
# none (RapidBin), its position among them (one position one us).
/^(insn|read|write|acquire|release|request|fork|join|begin|end|branch|event) / {
	hasts = 0
	for (i = 2; i <= NF; i++) if ($i ~ /^ts=/) { hasts = 1; now = substr($i, 4) }
	if (mode == "") mode = hasts ? "ns" : "pos"
	if (mode == "pos") now = (pos++) * 1000
	last = now
}
# fork and join: a slice of one tick on each thread (1 ns, or one
# position), the second a tick later.
/^(fork|join) / {
	delete F
	for (i = 2; i <= NF; i++) { j = index($i, "="); F[substr($i, 1, j - 1)] = substr($i, j + 1) }
	if (!("child" in F)) next
	tick = mode == "pos" ? 1000 : 1
	pid = ("input" in F) ? F["input"] : 0
	a = $1 == "fork" ? F["tid"] : F["child"]; b = $1 == "fork" ? F["child"] : F["tid"]
	print pid, a, $1, us(now ""), us(tick ""), 0
	print pid, b, $1, us((now + tick) ""), us(tick ""), 0
}
/^event / {
	delete F
	for (i = 2; i <= NF; i++) { j = index($i, "="); F[substr($i, 1, j - 1)] = substr($i, j + 1) }
	if (!("tid" in F)) next
	ts = now; tid = F["tid"]; pid = ("input" in F) ? F["input"] : 0; t = pid " " tid
	nm = val(F["name"])
	if (nm == "wtf.scope#leave") {
		for (k = n[t]; k > 0; k--) if (ty_[t, k] == "scope") { close_at(t, k, ts); break }
		next
	}
	if ("scope" in F) { push(t, nm ~ /#enter$/ && ("arg.name" in F) ? val(F["arg.name"]) : nm, "scope"); next }
	if (nm == "wtf.scope#appendData" || nm ~ /^__wtf_append_scope_/) next
	if (pairword(nm)) {
		if (opens) { push(t, stem, "ev " stem); next }
		for (k = n[t]; k > 0; k--) if (ty_[t, k] == "ev " stem) { close_at(t, k, ts); break }
	}
}
/^(acquire|release|begin|end) / {
	delete F
	for (i = 2; i <= NF; i++) { j = index($i, "="); F[substr($i, 1, j - 1)] = substr($i, j + 1) }
	ts = now; tid = F["tid"]; pid = ("input" in F) ? F["input"] : 0; t = pid " " tid
	if ($1 == "acquire") push(t, "lock " F["lock"], "lock " F["lock"])
	else if ($1 == "begin") push(t, "block", "block")
	else { ty = $1 == "release" ? "lock " F["lock"] : "block"
		for (k = n[t]; k > 0; k--) if (ty_[t, k] == ty) { close_at(t, k, ts); break } }
}
END { for (t in n) while (n[t] > 0) { emit(n[t], t, last, 0); n[t]-- } }
