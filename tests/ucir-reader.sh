# ucir-reader.sh: usercorn's own trace reader, the ops package of its Go
# trace code (go/models/trace/ops.go, from a checkout named by
# USERCORN_SRC) over golang/snappy's framing reader, built in the scratch
# directory (sourced after tap.sh by tests/ucir-go.sh and
# tests/split-ucir.sh).  ucir_reader: 0 with ./ucirread built (it prints
# a trace's ops as ucir2txt's text, registers by number), or 1 with
# $ucir_why saying why not, for the caller's skip.  Nothing of usercorn
# is kept.
ucir_reader() {
src=${USERCORN_SRC:-}
if [ -z "$src" ] || [ ! -f "$src/go/models/trace/ops.go" ]; then
	ucir_why="USERCORN_SRC is not a usercorn checkout"
	return 1
fi
if ! command -v go > /dev/null 2>&1; then
	ucir_why="no go (Debian: golang-go)"
	return 1
fi

gp=$PWD/gopath
m=$gp/src/github.com/lunixbochs/usercorn/go/models
mkdir -p "$m/trace" "$gp/src/ucirread"
cp "$src/go/models/op.go" "$m/"
cp "$src/go/models/trace/ops.go" "$src/go/models/trace/ops_json.go" "$m/trace/"
cat > "$gp/src/ucirread/main.go" <<'GO'
// Read a usercorn trace with usercorn's ops package and print its ops as
// ucir2txt's text (registers by number: txt2ucir takes them).
package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/golang/snappy"
	"github.com/lunixbochs/usercorn/go/models"
	"github.com/lunixbochs/usercorn/go/models/trace"
)

var out = bufio.NewWriter(os.Stdout)
var pc uint64
var bare = regexp.MustCompile(`^[A-Za-z0-9_.:/@%+#-]+$`)

func str(s string) string {
	if bare.MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}

func prot(p uint8) string {
	if p > 7 {
		return fmt.Sprintf("0x%x", p)
	}
	s := []byte("---")
	if p&1 != 0 {
		s[0] = 'r'
	}
	if p&2 != 0 {
		s[1] = 'w'
	}
	if p&4 != 0 {
		s[2] = 'x'
	}
	return string(s)
}

func order(b byte) string {
	switch b {
	case 0:
		return "little"
	case 1:
		return "big"
	}
	return strconv.Itoa(int(b))
}

func name(b []byte) string {
	return strings.TrimRight(string(b), "\x00")
}

func op(o models.Op, pid uint64, depth int) {
	head := func(kind string) string {
		s := fmt.Sprintf("%s tid=%d", kind, pid)
		if depth > 0 {
			s += fmt.Sprintf(" depth=%d", depth)
		}
		return s
	}
	switch v := o.(type) {
	case *trace.OpNop:
		fmt.Fprintln(out, head("ucir-nop"))
	case *trace.OpExit:
		fmt.Fprintln(out, head("ucir-exit"))
	case *trace.OpJmp:
		pc = v.Addr
		fmt.Fprintf(out, "%s pc=0x%x size=%d\n", head("ucir-jmp"), v.Addr, v.Size)
	case *trace.OpStep:
		fmt.Fprintf(out, "%s pc=0x%x size=%d\n", head("insn"), pc, v.Size)
		pc += uint64(v.Size)
	case *trace.OpReg:
		fmt.Fprintf(out, "%s reg=%d value=0x%x\n", head("ucir-reg"), v.Num, v.Val)
	case *trace.OpSpReg:
		fmt.Fprintf(out, "%s reg=%d data=%x\n", head("ucir-spreg"), v.Num, v.Val)
	case *trace.OpMemRead:
		fmt.Fprintf(out, "%s pc=0x%x addr=0x%x size=%d\n", head("read"), pc, v.Addr, v.Size)
	case *trace.OpMemWrite:
		fmt.Fprintf(out, "%s pc=0x%x addr=0x%x size=%d data=%x\n", head("write"), pc, v.Addr, len(v.Data), v.Data)
	case *trace.OpMemMap:
		fmt.Fprintf(out, "%s addr=0x%x size=%d prot=%s off=0x%x len=%d desc=%s file=%s\n",
			head("ucir-map"), v.Addr, v.Size, prot(v.Prot), v.Off, v.Len, str(v.Desc), str(v.File))
	case *trace.OpMemUnmap:
		fmt.Fprintf(out, "%s addr=0x%x size=%d\n", head("ucir-unmap"), v.Addr, v.Size)
	case *trace.OpMemProt:
		fmt.Fprintf(out, "%s addr=0x%x size=%d prot=%s\n", head("ucir-prot"), v.Addr, v.Size, prot(v.Prot))
	case *trace.OpSyscall:
		args := make([]string, len(v.Args))
		for i, a := range v.Args {
			args[i] = fmt.Sprintf("0x%x", a)
		}
		fmt.Fprintf(out, "%s num=%d ret=0x%x args=[%s]\n", head("ucir-syscall"), v.Num, v.Ret, strings.Join(args, ","))
		for _, s := range v.Ops {
			op(s, pid, depth+1)
		}
	case *trace.OpKeyframe:
		fmt.Fprintf(out, "ucir-frame tid=%d keyframe=true\n", v.Pid)
		for _, s := range v.Ops {
			op(s, v.Pid, 0)
		}
	case *trace.OpFrame:
		fmt.Fprintf(out, "ucir-frame tid=%d keyframe=false\n", v.Pid)
		for _, s := range v.Ops {
			op(s, v.Pid, 0)
		}
	default:
		fmt.Fprintf(os.Stderr, "unexpected op %T\n", o)
		os.Exit(1)
	}
}

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	var h [74]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:4]) != "UCIR" {
		fmt.Fprintln(os.Stderr, "no usercorn trace header")
		os.Exit(1)
	}
	fmt.Fprintf(out, "ucir-header format=trace version=%d arch=%s os=%s code_order=%s data_order=%s\n",
		binary.BigEndian.Uint32(h[4:]), str(name(h[8:40])), str(name(h[40:72])), order(h[72]), order(h[73]))
	zr := snappy.NewReader(f)
	for {
		o, _, err := trace.Unpack(zr, false)
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "usercorn's reader:", err)
			os.Exit(1)
		}
		op(o, 0, 0)
	}
	out.Flush()
}
GO
export GOPATH="$gp:/usr/share/gocode" GO111MODULE=off GOCACHE="$PWD/gocache" GOFLAGS= GOPROXY=off
if ! go build -o ucirread ucirread > build.txt 2>&1; then
	ucir_why="the Go reader does not build (golang-github-golang-snappy-dev, golang-github-pkg-errors-dev?): $(head -n 1 build.txt)"
	return 1
fi
	return 0
}
