package native

import (
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/dstgo/dst/internal/engine"
)

// Introspection of the program's goroutines. Inside a run the process holds
// goroutines the program would not have in Go: the one that runs the run
// (its body stands for it), the watchdog, and goroutines that the
// scheduler has seen exit but that the runtime has not yet let go of (under
// -race a handoff lets the next goroutine run before the last one has left).
// NumGoroutine and Stack answer as Go would for the program the user wrote:
// the goroutines outside the run, and the run's live ones.

// NumGoroutine is runtime.NumGoroutine. Inside a run it is the number of
// goroutines outside the run that are not the tool's (counted at the run's
// first call, so it stays the same through the run), plus the run's
// goroutines that have not exited, the body included. Goroutines that code
// not rewritten starts during the run are not counted.
func NumGoroutine() int {
	g := engine.Current()
	if g == nil {
		return runtime.NumGoroutine()
	}
	return outside(g) + g.Live()
}

// outsideKey is the key under which a run keeps the number of goroutines
// outside it (its shadow table is the run's only store for this package).
var outsideKey byte

// outsideCount is what the run keeps under outsideKey.
type outsideCount struct{ n int }

// outside is how many goroutines outside g's run the program has: every
// goroutine in the process but the run's own and the tool's.
func outside(g *engine.G) int {
	key := unsafe.Pointer(&outsideKey)
	if c, ok := g.Shadow(key).(*outsideCount); ok {
		return c.n
	}
	ours := runGoroutines(g)
	c := &outsideCount{}
	for _, s := range splitDump(allStacks()) {
		if _, ok := ours[s.id]; !ok && !s.tools() {
			c.n++
		}
	}
	g.SetShadow(key, nil, c)
	return c.n
}

// runGoroutines is g's run's goroutines that have had a turn, by runtime
// id.
func runGoroutines(g *engine.G) map[int64]engine.Goroutine {
	ours := map[int64]engine.Goroutine{}
	for _, c := range g.Goroutines() {
		if c.Goid != 0 {
			ours[c.Goid] = c
		}
	}
	return ours
}

// Stack is runtime.Stack. Inside a run the calling goroutine's stack ends
// at the function it runs, as in Go, not in the scheduler; with all set,
// the dump holds the goroutines the program would have in Go: those outside
// the run that are not the tool's, and the run's live goroutines, each with
// the state Go would show (chan receive, select, sync.Mutex.Lock, ...) and
// without the scheduler's frames above the code that blocked and below the
// function the goroutine runs. A goroutine of the run that has not yet
// reached the code it runs shows no frame; one that has not had a turn at
// all, no runtime id either: it is numbered from 1<<40 by its number in the
// run.
func Stack(buf []byte, all bool) int {
	g := engine.Current()
	if g == nil {
		return runtime.Stack(buf, all)
	}
	if !all {
		return copy(buf, ownStack())
	}
	me, _ := goroutineID()
	ours := runGoroutines(g)
	shown := map[int64]bool{}
	var b strings.Builder
	for _, s := range splitDump(allStacks()) {
		c, ok := ours[s.id]
		switch {
		case ok && c.Live:
			state := waitReason(c.Blocked)
			if s.id == me {
				state = "running"
			}
			s.header = "goroutine " + strconv.FormatInt(s.id, 10) + " [" + state + "]:"
			s.trim()
			shown[s.id] = true
		case ok, s.tools():
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s.String())
	}
	for _, c := range g.Goroutines() {
		if c.Live && (c.Goid == 0 || !shown[c.Goid]) {
			id := c.Goid
			if id == 0 {
				id = 1<<40 + int64(c.ID)
			}
			b.WriteString("\ngoroutine " + strconv.FormatInt(id, 10) + " [" + waitReason(c.Blocked) + "]:\n")
		}
	}
	return copy(buf, b.String())
}

// ownStack is the calling goroutine's stack as Go would show it, without
// the scheduler's frames below the function it runs.
func ownStack() string {
	buf := make([]byte, 16<<10)
	for {
		n := runtime.Stack(buf, false)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	s := splitDump(buf)
	if len(s) == 0 {
		return string(buf)
	}
	s[0].trim()
	return s[0].String()
}

// goroutineID is the calling goroutine's id, read from its own stack's
// header.
func goroutineID() (int64, bool) {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	s := splitDump(buf[:n])
	if len(s) == 0 {
		return 0, false
	}
	return s[0].id, true
}

// waitReason is the state Go's traceback shows for a goroutine blocked in
// op.
func waitReason(op engine.Op) string {
	switch op {
	case engine.OpNone:
		return "runnable"
	case engine.OpRecv:
		return "chan receive"
	case engine.OpSend:
		return "chan send"
	case engine.OpSelect:
		return "select"
	case engine.OpLock, engine.OpTryLock:
		return "sync.Mutex.Lock"
	case engine.OpRLock, engine.OpTryRLock:
		return "sync.RWMutex.RLock"
	case engine.OpWaitGroupWait:
		return "sync.WaitGroup.Wait"
	case engine.OpCondWait:
		return "sync.Cond.Wait"
	case engine.OpSleep:
		return "sleep"
	}
	return "semacquire"
}

// allStacks is runtime.Stack of every goroutine, whole.
func allStacks() []byte {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// goroutineDump is one goroutine of a runtime.Stack dump: its header line
// and its frames, each a function line and, but for an elision, the file
// line after it.
type goroutineDump struct {
	id     int64
	header string
	frames [][]string
}

func splitDump(dump []byte) []goroutineDump {
	var gs []goroutineDump
	for block := range strings.SplitSeq(strings.TrimRight(string(dump), "\n"), "\n\n") {
		lines := strings.Split(block, "\n")
		rest, ok := strings.CutPrefix(lines[0], "goroutine ")
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, " ")
		id, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			continue
		}
		s := goroutineDump{id: id, header: lines[0]}
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "\t") && len(s.frames) > 0 {
				last := &s.frames[len(s.frames)-1]
				*last = append(*last, l)
				continue
			}
			s.frames = append(s.frames, []string{l})
		}
		gs = append(gs, s)
	}
	return gs
}

func (s goroutineDump) String() string {
	var b strings.Builder
	b.WriteString(s.header)
	b.WriteString("\n")
	for _, fr := range s.frames {
		for _, l := range fr {
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// tools reports whether the goroutine is one of the tool's, or on its way
// out: one that runs a run or the harness, the watchdog, a goroutine of a
// run that is over and leaving (which may show no frame but the line that
// says the engine created it), or an earlier test's.
func (s goroutineDump) tools() bool {
	if len(s.frames) > 0 && strings.HasPrefix(s.frames[0][0], "testing.tRunner.func1(") &&
		(strings.Contains(s.header, "[runnable") || strings.Contains(s.header, "[running")) {
		// An earlier test's goroutine on its way out: its function has
		// returned, and it runs testing's last deferred call.
		return true
	}
	for _, fr := range s.frames {
		if toolsFunc(strings.TrimPrefix(fr[0], "created by ")) {
			return true
		}
	}
	return false
}

// trim drops the frames of a goroutine of the run that Go would not show:
// the scheduler's and the shims' above the code that called them, and
// those below the function the goroutine runs (the run's start, the
// coroutine it runs in, and whatever created that).
func (s *goroutineDump) trim() {
	// On top: the shims' and the engine's frames, and the runtime's or
	// package sync's above them that park the goroutine.
	i, j := 0, len(s.frames)
	for k := 0; k < j && (hidden(s.frames[k][0]) || standardFunc(s.frames[k][0])); k++ {
		if hidden(s.frames[k][0]) {
			i = k + 1
		}
	}
	for j > i && hidden(s.frames[j-1][0]) {
		j--
	}
	s.frames = s.frames[i:j]
}

// standardFunc reports whether the function line fn names a function of
// the standard library.
func standardFunc(fn string) bool {
	first, _, slash := strings.Cut(fn, "/")
	if !slash {
		first, _, _ = strings.Cut(fn, ".")
	}
	return first != "main" && !strings.Contains(first, ".")
}

// modulePrefix is the tool's module path with a slash, read from a
// function's name, so that it holds in a fork.
var modulePrefix = func() string {
	name := runtime.FuncForPC(reflect.ValueOf(engine.Current).Pointer()).Name()
	return strings.TrimSuffix(name, "internal/engine.Current")
}()

// toolsFunc reports whether the function line fn names a function of the
// packages that only the tool's own goroutines run: the engine, the
// harness and the hunt.
func toolsFunc(fn string) bool {
	rest, ok := strings.CutPrefix(fn, modulePrefix)
	if !ok {
		return false
	}
	for _, p := range []string{"internal/engine.", "sched/schedtest.", "internal/hunt."} {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return false
}

// hidden reports whether the function line fn (a frame, or a "created by"
// line) is one that a goroutine of the run shows only because it runs
// under the scheduler: the tool's own, but for its examples and its
// external test packages, and the runtime's and package iter's, which run
// the coroutines.
func hidden(fn string) bool {
	fn = strings.TrimPrefix(fn, "created by ")
	if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "iter.") {
		return true
	}
	rest, ok := strings.CutPrefix(fn, modulePrefix)
	if !ok || strings.HasPrefix(rest, "examples/") || strings.Contains(rest, "/testdata/") {
		return false
	}
	pkg := rest
	if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
		pkg = pkg[i+1:]
	}
	pkg, _, _ = strings.Cut(pkg, ".")
	return !strings.HasSuffix(pkg, "_test")
}

// Boundary notes, inside a run, that the code that called into the tool
// (rewritten code, through package boundary or simnet; the first caller
// outside the tool and the standard library) starts what, which runs
// natively: a listener, a connection, a server, a child process. A run
// notes each once; the test's report says what ran outside the scheduler.
// Outside a run it does nothing.
func Boundary(what string) {
	if g := engine.Current(); g != nil {
		g.NativeBoundary(what, engine.UserCaller())
	}
}
