package trace_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/trace"
)

// allKinds lists every valid kind, from the spec table.
func allKinds() []trace.Kind {
	var ks []trace.Kind
	for k := trace.Kind(1); k < 64; k++ {
		if strings.HasPrefix(trace.SpecOf(k).Name, "kind(") {
			break
		}
		ks = append(ks, k)
	}
	return ks
}

// The string pools stay well under 32 distinct strings per frame: see
// TestManyDistinctStrings for what happens above that.
var (
	textPool = []string{"", "a", "Mutex#1", "Chan#2", "disk.write", "hello, world", "ünïcode ✓", "line1\nline2", "\x00\xff", "quote\"d"}
	funcPool = []string{"main.main", "github.com/dstgo/dst/sched.(*Mutex).Lock", "example.com/x.worker.func1"}
	filePool = []string{"/src/main.go", "/home/u/go/pkg/mod/github.com/dstgo/dst/sched/mutex.go", "x_test.go"}
)

// randInt64 returns a value of varied magnitude and sign.
func randInt64(r *rand.Rand) int64 {
	switch r.IntN(5) {
	case 0:
		return 0
	case 1:
		return int64(r.IntN(10))
	case 2:
		return int64(r.Uint64())
	case 3:
		return -int64(r.IntN(1000))
	default:
		return int64(r.Uint64() >> r.UintN(64))
	}
}

// genEvents returns n random events: each carries exactly the fields of its
// kind's spec, some carry a location, steps and times never decrease.
func genEvents(r *rand.Rand, n int) []trace.Event {
	kinds := allKinds()
	evs := make([]trace.Event, n)
	step := int64(r.IntN(3)) * int64(r.IntN(1<<20))
	now := int64(r.IntN(2)) * int64(r.Uint64()>>20)
	g := int32(0)
	for i := range evs {
		switch p := r.IntN(10); {
		case p < 5:
		case p < 9:
			step++
		default:
			step += int64(r.IntN(1 << uint(r.IntN(30))))
		}
		if r.IntN(8) == 0 {
			now += int64(r.IntN(1 << uint(r.IntN(40))))
		}
		if r.IntN(4) == 0 {
			switch r.IntN(10) {
			case 0:
				g = int32(r.Uint32())
			default:
				g = int32(r.IntN(8))
			}
		}
		k := kinds[r.IntN(len(kinds))]
		e := trace.Event{Kind: k, Step: step, Time: now, G: g}
		for _, f := range trace.SpecOf(k).Fields {
			switch f {
			case trace.FieldOp:
				e.Op = uint8(r.IntN(256))
			case trace.FieldObj:
				if r.IntN(10) == 0 {
					e.Obj = int32(r.Uint32())
				} else {
					e.Obj = int32(r.IntN(20))
				}
			case trace.FieldArg:
				e.Arg = randInt64(r)
			case trace.FieldChoice:
				e.Choice = randInt64(r)
			case trace.FieldN:
				e.N = randInt64(r)
			case trace.FieldDur:
				e.Dur = randInt64(r)
			case trace.FieldText:
				e.Text = textPool[r.IntN(len(textPool))]
			}
		}
		if r.IntN(3) == 0 {
			e.Loc = trace.Location{
				Func: funcPool[r.IntN(len(funcPool))],
				File: filePool[r.IntN(len(filePool))],
				Line: r.IntN(1 << uint(r.IntN(20))),
			}
		}
		evs[i] = e
	}
	return evs
}

func genHeader(r *rand.Rand) *trace.Header {
	h := &trace.Header{
		Package:   "github.com/dstgo/dst/example",
		Test:      fmt.Sprintf("TestX/case_%d", r.IntN(100)),
		GoVersion: "go1.26.0",
		GOOS:      "linux",
		GOARCH:    "amd64",
		Module:    "v0.1.2",
		Strategy:  []string{"pct", "random", "portfolio"}[r.IntN(3)],
		Depth:     r.IntN(10),
		PCTSteps:  r.IntN(100000),
		MaxSteps:  r.IntN(1000000),
		Seed:      r.Uint64(),
		Detail:    r.IntN(2) == 0,
	}
	for range r.IntN(4) {
		h.Options = append(h.Options, fmt.Sprintf("opt%d=%g", r.IntN(100), r.Float64()))
	}
	slices.Sort(h.Options) // the writer sorts them
	h.Recording = make([]byte, r.IntN(300))
	for i := range h.Recording {
		h.Recording[i] = byte(r.Uint32())
	}
	return h
}

func genOutcome(r *rand.Rand) *trace.Outcome {
	return &trace.Outcome{
		Kind:       []string{"pass", "deadlock", "panic"}[r.IntN(3)],
		Message:    "something went wrong",
		Report:     "goroutine 1:\n\tmain.go:12\n",
		Steps:      int64(r.IntN(1 << 20)),
		Switches:   int64(r.IntN(1 << 20)),
		Goroutines: int64(r.IntN(100)),
	}
}

// encode writes a whole trace of evs through a Buffer and trace.Write.
func encode(tb testing.TB, h *trace.Header, evs []trace.Event, o *trace.Outcome) []byte {
	tb.Helper()
	var b trace.Buffer
	for i := range evs {
		b.Add(&evs[i])
	}
	var out bytes.Buffer
	if err := trace.Write(&out, h, &b, o); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

func open(tb testing.TB, data []byte) *trace.Reader {
	tb.Helper()
	r, err := trace.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return r
}

func headersEqual(a, b *trace.Header) bool {
	x, y := *a, *b
	for _, h := range []*trace.Header{&x, &y} {
		if len(h.Recording) == 0 {
			h.Recording = nil
		}
		if len(h.Options) == 0 {
			h.Options = nil
		}
	}
	return reflect.DeepEqual(x, y)
}

// layout is where the parts of a well-formed trace sit, parsed
// independently of the package.
type layout struct {
	body   int64 // first frame
	frames []frameLayout
	footer int64
	index  int64
	size   int64
}

type frameLayout struct {
	off, first, n, data, comp, end int64
}

func parseLayout(tb testing.TB, data []byte) layout {
	tb.Helper()
	l := layout{size: int64(len(data))}
	pos := 8
	uv := func() int64 {
		v, n := binary.Uvarint(data[pos:])
		if n <= 0 {
			tb.Fatalf("parseLayout: bad uvarint at %d", pos)
		}
		pos += n
		return int64(v)
	}
	if uv() != trace.Version {
		tb.Fatal("parseLayout: version")
	}
	hl := uv()
	pos += int(hl) + 4 // the header and its CRC-32
	l.body = int64(pos)
	for data[pos] == 'F' {
		f := frameLayout{off: int64(pos)}
		pos++
		f.first, f.n = uv(), uv()
		uv() // first step
		if _, n := binary.Varint(data[pos:]); n > 0 {
			pos += n
		}
		uv() // raw
		f.comp = uv()
		f.data = int64(pos)
		f.end = f.data + f.comp + 4
		pos = int(f.end)
		l.frames = append(l.frames, f)
	}
	if data[pos] != 'O' {
		tb.Fatalf("parseLayout: no footer at %d", pos)
	}
	l.footer = int64(pos)
	l.index = int64(binary.LittleEndian.Uint64(data[len(data)-16:]))
	return l
}

// frameStarts are the indices of the first events of the frames a trace of
// n events is written in (see FrameSize).
func frameStarts(n int) []int {
	var out []int
	for i := 0; i < n; i += trace.FrameSize(int64(i)) {
		out = append(out, i)
	}
	return out
}
