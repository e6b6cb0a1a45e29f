package engine

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Kind classifies a failed run. Its value is the name that reports,
// traces and the harness's public FailureKind use: this is the one table of
// failure kinds.
type Kind string

// The kinds of failure.
const (
	Deadlock   Kind = "deadlock"    // every goroutine is blocked, the body included
	Leak       Kind = "leak"        // the body returned, other goroutines are blocked forever
	Livelock   Kind = "livelock"    // goroutines kept running (yielding, polling) and none made progress
	StepBound  Kind = "step bound"  // the run reached the step bound though it kept making progress
	Panic      Kind = "panic"       // a managed goroutine panicked
	Fatal      Kind = "fatal error" // misuse Go treats as fatal: "sync: unlock of unlocked mutex"
	TestFailed Kind = "test failed" // the body called T.Error, T.Fatal or similar
	Goexit     Kind = "goexit"      // the body called runtime.Goexit
	Escape     Kind = "escape"      // a goroutine started with a plain go statement outlived the run
	Watchdog   Kind = "watchdog"    // a goroutine stopped reaching scheduling points
	Misuse     Kind = "misuse"      // an object was shared between runs or touched from outside
	Race       Kind = "data race"   // under -race: the race detector reported a race during the run
	Timeout    Kind = "timeout"     // the virtual clock reached Config.Timeout: in Go the test would have timed out
)

func (k Kind) String() string { return string(k) }

// Failure describes how a run failed.
type Failure struct {
	Kind    Kind
	Message string // one line, in words a Go engineer knows
	G       int    // the goroutine that failed, 0 when it is the whole run
	Stack   string // the failing goroutine's stack, when there is one
	Step    int
	// Goroutines is every goroutine that had not exited when the run failed.
	Goroutines []GState
	// Place is where the run failed, as its signature names it: the lines
	// of the failing checks, the panicking frame, the operations and lines
	// the goroutines are stuck in; "" when the engine cannot tell.
	Place string
	// Check is where the first failed check of a TestFailed failure was
	// reported (the caller of T.Error, T.Fatal and the like, past
	// helpers); File is "" for other kinds.
	Check Location

	stopped bool // an oracle stopped the failing goroutine at a scheduling point, where Go would have gone on
}

// GState is a goroutine's state at the end of a failed run.
type GState struct {
	ID      int
	Parent  int
	State   string // "runnable", "blocked", "running"
	Op      Op     // what it is blocked in
	Obj     string // on what, e.g. "Mutex#2"
	At      Location
	Spawned Location
	Runs    string   // the function of the user's it runs (detail mode)
	Holder  int      // for a goroutine blocked on a lock: who holds it
	HeldAt  Location // and where it locked it
	// Spins is where a goroutine that can run reached its recent
	// scheduling points while the run made no progress (detail mode),
	// the most recent last: where it spins.
	Spins []Location
}

// Report formats the failure for people: the message, then one line per
// goroutine with what it was doing and where.
func (f *Failure) Report() string {
	var b strings.Builder
	b.WriteString(f.Message)
	if f.Stack != "" {
		b.WriteString("\n\n")
		b.WriteString(strings.TrimRight(f.Stack, "\n"))
	}
	if len(f.Goroutines) > 0 {
		b.WriteString("\n\ngoroutines:")
		for _, g := range f.Goroutines {
			b.WriteString("\n  ")
			b.WriteString(g.String())
		}
		fmt.Fprintf(&b, "\n\nnote: the %d goroutine(s) above were unwound (their deferred calls ran); package-level "+
			"state they changed stays, and may fail a test that runs after this one in the same process", len(f.Goroutines))
	}
	return b.String()
}

func (g GState) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "goroutine %d", g.ID)
	if g.ID == 1 {
		b.WriteString(" (test body)")
	}
	switch {
	case g.State == "blocked" && g.Op == OpSelect && strings.HasPrefix(g.Obj, "select"):
		fmt.Fprintf(&b, ": blocked in %s", g.Obj) // the label lists the cases
	case g.State == "blocked" && g.Obj != "":
		fmt.Fprintf(&b, ": blocked in %s.%s", g.Obj, g.Op)
	case g.State == "blocked":
		fmt.Fprintf(&b, ": blocked in %s", g.Op)
	case g.Op != OpNone && g.Obj != "":
		fmt.Fprintf(&b, ": %s, last scheduling point %s.%s", g.State, g.Obj, g.Op)
	case g.Op != OpNone:
		fmt.Fprintf(&b, ": %s, last scheduling point %s", g.State, g.Op)
	default:
		fmt.Fprintf(&b, ": %s", g.State)
	}
	if g.State == "blocked" && g.Holder != 0 {
		fmt.Fprintf(&b, ", held by goroutine %d", g.Holder)
	}
	if g.At.File != "" {
		fmt.Fprintf(&b, "\n      at %s", g.At)
	}
	if len(g.Spins) > 0 {
		b.WriteString("\n      spinning at ")
		for i, l := range g.Spins {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(l.String())
		}
	}
	if g.State == "blocked" && g.Holder != 0 && g.HeldAt.File != "" {
		fmt.Fprintf(&b, "\n      %s locked by goroutine %d at %s", g.Obj, g.Holder, g.HeldAt)
	}
	if g.ID != 1 {
		fmt.Fprintf(&b, "\n      started by goroutine %d", g.Parent)
		if g.Spawned.File != "" {
			fmt.Fprintf(&b, " at %s", g.Spawned)
		}
		if g.Runs != "" && g.Runs != g.At.Func { // where it waits says it otherwise
			fmt.Fprintf(&b, ", runs %s", shortFunc(g.Runs))
		}
	}
	return b.String()
}

// Signature identifies a failure across schedules that fail the same way:
// its kind and its Place, never its message, whose values (ids, counts,
// durations) change from one schedule to the next. A failure without a
// place (an escape, a watchdog) is told by its message with every number
// dropped.
func (f *Failure) Signature() string {
	if f.Place != "" {
		return f.Kind.String() + " at " + f.Place
	}
	return f.Kind.String() + ": " + dropDigits(f.Message)
}

// Where is the line of the code under test the failure is best read at,
// for a CI annotation or an editor: the first failed check (Check), else
// the first frame of the user's in the failing goroutine's stack (a
// panic), else where a goroutine is stuck in the user's code, as the
// detail mode found it: the failing goroutine's place (a leak), else one
// waiting for a lock another holds (a lock-order deadlock), else any; ok
// is false when no such line is known.
func (f *Failure) Where() (l Location, ok bool) {
	if f.Check.File != "" {
		return f.Check, true
	}
	if f.Stack != "" {
		if l := firstUserFrame(f.Stack); l != nil {
			return *l, true
		}
	}
	for _, pick := range []func(g GState) bool{
		func(g GState) bool { return g.ID == f.G },
		func(g GState) bool { return g.Holder != 0 },
		func(GState) bool { return true },
	} {
		for _, g := range f.Goroutines {
			if pick(g) && g.At.File != "" && !ours(g.At.File, g.At.Func) && !inGOROOT(g.At.File) {
				return g.At, true
			}
		}
	}
	return Location{}, false
}

// places joins a failure's places, each once, in a stable order.
func places(ps []string) string {
	ps = slices.Clone(ps)
	slices.Sort(ps)
	return strings.Join(slices.Compact(ps), ", ")
}

// shortLoc is a location as a signature names it: file base name and line.
func shortLoc(l *Location) string {
	if l == nil || l.File == "" {
		return ""
	}
	return filepath.Base(l.File) + ":" + strconv.Itoa(l.Line)
}

// blockedPlaces is the operations, and the lines of the code under test,
// that the run's blocked goroutines are stuck in, read from their stacks
// (the same in detail mode and without it).
//
//go:norace
func (r *Run) blockedPlaces() string {
	stacks := r.stacksByID()
	var ps []string
	for _, g := range r.gs {
		if g.state != gBlocked || g.killed {
			continue
		}
		p := g.op.String()
		if l := firstUserFrame(stacks[g.goid]); l != nil {
			p += " " + shortLoc(l)
		}
		ps = append(ps, p)
	}
	return places(ps)
}

// firstUserFrame is the first frame of a goroutine's stack text that is
// the user's (see userFrame).
func firstUserFrame(stack string) *Location {
	_, frames := splitFrames(stack)
	return firstUser(frames)
}

// firstUser is the first of frames (each its function line and its file
// line) that is the user's, or nil.
func firstUser(frames [][]string) *Location {
	for _, fr := range frames {
		if l, ok := userFrame(fr); ok {
			return &l
		}
	}
	return nil
}

// calledAt names, for a stack whose innermost user frame called into code
// that is not (the standard library, the runtime), the function it called
// and where: "net.(*pipe).Write, called at x_test.go:16 (x.TestPipe)". It
// is "" when the innermost frame is the user's, or the tool's own.
func calledAt(frames [][]string) string {
	for i, fr := range frames {
		l, ok := userFrame(fr)
		if !ok {
			continue
		}
		if i == 0 {
			return ""
		}
		fn, file, _, ok := parseFrame(frames[i-1])
		if !ok || ours(file, fn) {
			return ""
		}
		return fmt.Sprintf("%s, called at %s", fn, l)
	}
	return ""
}

// panicPlace is where a panic was raised: the first frame of the user's in
// the stack the deferred recover took (a shim's or the standard library's
// panic is placed at the user's call).
func panicPlace(stack string) string {
	l := firstUserFrame(stack)
	if l == nil {
		return ""
	}
	return shortFunc(l.Func) + " " + shortLoc(l)
}

func dropDigits(s string) string {
	var b strings.Builder
	digit := false
	for _, c := range s {
		if c >= '0' && c <= '9' {
			if !digit {
				b.WriteByte('N')
			}
			digit = true
			continue
		}
		digit = false
		b.WriteRune(c)
	}
	return b.String()
}

// schedulerPrefixes start the functions of the frames that run every
// managed goroutine's function: the engine's, sched's wrappers (sched.Go,
// WaitGroup.Go), the harness's call of the test body (schedtest), and
// iter.Pull's coroutine.
var schedulerPrefixes = func() []string {
	module := strings.TrimSuffix(enginePrefix, "internal/engine.")
	return []string{enginePrefix, module + "sched.", module + "sched/schedtest.", "iter.Pull[", "runtime.corostart"}
}()

// userStack is a goroutine's stack as a report shows it: without the
// frames below the goroutine's own function that the scheduler runs it
// through, and the "created by" line naming iter.Pull instead of the
// goroutine that called sched.Go (the goroutines section of the report
// says who started it). With fromPanic, it starts at the panic, as Go
// prints a panic, without the frames of the deferred call that captured
// the stack, nor the header, whose goroutine number is the runtime's and
// not the run's, nor the runtime's frames that raised the panic. Its frames
// are stable (see stableFrames): a report, and the trace that holds it, is
// the same in every run of the schedule.
func userStack(stack string, fromPanic bool) string {
	header, frames := splitFrames(stack)
	isScheduler := func(fr []string) bool {
		fn := strings.TrimPrefix(fr[0], "created by ")
		for _, p := range schedulerPrefixes {
			if strings.HasPrefix(fn, p) {
				return true
			}
		}
		return false
	}
	// Past a panic, keep the function that panicked even when it is the
	// scheduler's (a shim's misuse panic in a goroutine that runs the shim
	// directly).
	keep := 0
	if fromPanic {
		for i, fr := range frames {
			if strings.HasPrefix(fr[0], "panic(") {
				frames, header = frames[i:], ""
				// The runtime's frames that raised it (a nil map's
				// assignment, a nil dereference's signal) differ with the
				// build (-race) and say what the message says.
				j := 1
				for j < len(frames) && strings.HasPrefix(frames[j][0], "runtime.") {
					j++
				}
				frames = append(frames[:1], frames[j:]...)
				keep = min(2, len(frames))
				break
			}
		}
	}
	end := len(frames)
	for end > keep && isScheduler(frames[end-1]) {
		end--
	}
	if end == 0 {
		end = len(frames) // nothing of the user's: show it all
	}
	return joinFrames(header, stableFrames(frames[:end]))
}

// stableFrames rewrites frames without what changes from one run of a
// schedule to the next, or with the build: the arguments' values (addresses,
// mostly), the offsets of the program counters, and the runtime's goroutine
// numbers.
func stableFrames(frames [][]string) [][]string {
	out := make([][]string, len(frames))
	for i, fr := range frames {
		fr = slices.Clone(fr)
		fn := fr[0]
		if before, _, ok := strings.Cut(fn, " in goroutine "); ok && strings.HasPrefix(fn, "created by ") {
			fn = before
		} else if strings.HasSuffix(fn, ")") {
			// The arguments are the last parenthesized list.
			depth := 0
			for j := len(fn) - 1; j >= 0; j-- {
				switch fn[j] {
				case ')':
					depth++
				case '(':
					depth--
				}
				if depth == 0 {
					if fn[j+1:len(fn)-1] != "" {
						fn = fn[:j] + "(...)"
					}
					break
				}
			}
		}
		fr[0] = fn
		for k := 1; k < len(fr); k++ {
			if at, _, ok := strings.Cut(fr[k], " +0x"); ok {
				fr[k] = at
			}
		}
		out[i] = fr
	}
	return out
}

// splitFrames splits a stack as runtime/debug.Stack writes it into its
// header line and its frames: a function line and the lines indented by a
// tab under it.
func splitFrames(stack string) (header string, frames [][]string) {
	lines := strings.Split(strings.TrimRight(stack, "\n"), "\n")
	if len(lines) > 0 && strings.HasPrefix(lines[0], "goroutine ") {
		header, lines = lines[0], lines[1:]
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "\t") && len(frames) > 0 {
			frames[len(frames)-1] = append(frames[len(frames)-1], l)
			continue
		}
		frames = append(frames, []string{l})
	}
	return header, frames
}

func joinFrames(header string, frames [][]string) string {
	var b strings.Builder
	if header != "" {
		b.WriteString(header)
		b.WriteByte('\n')
	}
	for _, fr := range frames {
		for _, l := range fr {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// shimCallStack is a stack taken inside a shim (by runtime/debug.Stack) as
// a report shows it: from the shim the goroutine called on, without the
// header, whose goroutine number is the runtime's.
func shimCallStack(stack string) string {
	_, frames := splitFrames(stack)
	inShim := func(fr []string) bool {
		fn, file, _, ok := parseFrame(fr)
		return ok && (funcPackage(fn) == "runtime/debug" || ours(file, fn))
	}
	start := 0
	for start+1 < len(frames) && inShim(frames[start+1]) {
		start++
	}
	return joinFrames("", stableFrames(frames[start:]))
}
