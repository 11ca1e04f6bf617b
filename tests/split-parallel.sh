#!/bin/sh
# The scale-out recipe: split, decode and filter the pieces with GNU
# parallel (locally, and through a local stand-in for ssh), then put the
# texts back together: the same records as the sequential pipeline.
. "$srcdir/tests/tap.sh"

if ! parallel --version 2>/dev/null | grep -q GNU; then
	skip "GNU parallel is not installed" "the parallel recipe"
	done_testing
fi
gen-rapidbin --events 200000 --ops all --seed 5 > run.data
rapidbin2txt run.data | txtfilter --tid 1 | grep -v "^rapidbin-" > seq.txt
tracesplit -n 4 run.data piece
ls piece-*.data | parallel -k -j2 "rapidbin2txt {} | txtfilter --tid 1 | grep -v ^rapidbin- > {.}.txt"
cat piece-*.txt > par.txt
same_file par.txt seq.txt "parallel -j2: the records of the sequential pipeline"

# Across hosts: a stand-in for ssh that runs the command here (parallel
# moves files with rsync).
if ! command -v rsync > /dev/null; then
	skip "no rsync (GNU parallel transfers files with it)" "--sshlogin"
	done_testing
fi
cat > fakessh <<'EOS'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in -*) shift ;; *) shift; break ;; esac
done
[ "${1:-}" = "--" ] && shift
exec sh -c "$*"
EOS
chmod +x fakessh
# One job at a time on the stand-in host: every job shares its workdir,
# and --cleanup of one removed it under the other's transfer.
mkdir remote && rm -f piece-*.txt
# The remote side runs each job with the $SHELL it is sent, which a login
# sets and CI's environment may not (unset, the jobs never ran there).
ls piece-*.data | SHELL=/bin/sh parallel -k -j1 --ssh "$TMP/fakessh" \
    --sshlogin 1/host --workdir "$TMP/remote" --transferfile {} \
    --return {.}.txt --cleanup \
    "PATH=$PATH; rapidbin2txt {} | txtfilter --tid 1 | grep -v ^rapidbin- > {.}.txt" \
    2> ssh.err
st=$?
cat piece-*.txt > remote.txt
same_file remote.txt seq.txt "--sshlogin/--transferfile/--return: the same records"
if ! cmp -s remote.txt seq.txt; then
	# What parallel said, and what came back: for a failure seen elsewhere.
	echo "# parallel exit $st; its standard error:"
	head -n 20 ssh.err | sed 's/^/#   /'
	ls -l piece-* remote | sed 's/^/#   /'
fi
done_testing
