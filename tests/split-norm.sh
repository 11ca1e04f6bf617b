# split-norm.sh (sourced): norm_FMT filters FMT's decoded text down to
# what a piece of a trace and the whole must agree on, record by record:
# the structure records every piece restates left out, and the fields that
# say where a piece starts (x64dbg's seq, tprev and ctx., WTF's scope=).
# WTF's zone events and Usercorn's setup keyframe are restated by every
# piece: taken away from the whole's decode too.
norm_rapidbin() { grep -v '^rapidbin-'; }
norm_std() { grep -v '^std-'; }
norm_trac() {
	grep -v '^trac-' | sed -e 's/ seq=[0-9]*//' -e 's/ tprev=[0-9a-z]*//' \
	    -e 's/ ctx\.[^ ]*//g'
}
norm_dial9() { grep '^event '; }
norm_wtf() {
	grep '^event ' | grep -v ' name=wtf\.zone#\(create\|set\|delete\) ' |
	    sed 's/ scope=[0-9]*//'
}
norm_ucir() {
	awk '/^ucir-header/ { next }
	    /^ucir-frame/ { f++; skip = (f == 1 && $0 ~ / keyframe=true/) }
	    !skip'
}
