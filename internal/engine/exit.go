package engine

import (
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"unsafe"

	"github.com/dstgo/dst/internal/event"
)

// How goroutines and runs end: a goroutine's exit (exitG), a failure that
// stops it (failNow), and the run's end (finish).

// failNow records f and ends g with runtime.Goexit; the run ends once g's
// deferred calls have run, without switching to any other goroutine.
//
//go:norace
func (g *G) failNow(f *Failure) {
	r := g.run
	if r.pending == nil && r.failure == nil {
		if f.Place == "" && (f.Kind == Fatal || f.Kind == Misuse) {
			f.Place = shortLoc(callerLoc())
		}
		f.Step = r.steps
		f.Goroutines = r.snapshot()
		r.pending = f
	}
	r.stopping = true
	g.fatal = true
	runtime.Goexit()
}

// stoppedByTool reports whether the failure f ends its goroutine where Go
// would not (the step bound, a misuse, a fatal error, which ends the whole
// program in Go): the trace then shows the goroutine where it was, not
// exiting.
func stoppedByTool(f *Failure) bool {
	return f != nil && (f.stopped || f.Kind == Livelock || f.Kind == StepBound || f.Kind == Misuse || f.Kind == Fatal)
}

//go:norace
func (r *Run) exitG(g *G, p any, stack []byte, returned bool) {
	if g.tear != tearNone {
		// Publish what its deferred calls did before the next goroutine's
		// run, so the race detector does not report them against each other.
		RaceReleaseMerge(unsafe.Pointer(&r.endSync))
		r.exitAfterEnd(g, true)
		return
	}
	if r.abandoned.Load() {
		// The running goroutine of an abandoned run has left: the harness
		// may tear down the others.
		r.exitAfterEnd(g, false)
		return
	}
	if RaceEnabled {
		r.noteRace(g)
	}
	r.progress++
	g.state = gExited
	g.op, g.obj = OpExit, nil
	if r.tr != nil && !(g.fatal && p == nil && stoppedByTool(r.pending)) {
		r.recordExit(g, p)
	}
	r.removeRunnable(g)
	r.live--
	r.progressed()
	if r.root.state == gExited {
		r.leftBehind(g)
	}
	RaceReleaseMerge(unsafe.Pointer(&r.exitSync))
	if p != nil || g.fatal || !returned && g.ID == 1 {
		// A Goexit ends only the goroutine, as in Go, except the body's:
		// go test fails a test whose goroutine calls it.
		r.exitFailed(g, p, stack)
		return
	}
	if r.stopping {
		r.finish(nil)
		return
	}
	for len(r.runnable) == 0 && r.advanceIdle() {
	}
	if len(r.runnable) == 0 {
		r.stall(nil)
		return
	}
	next := r.pick(nil, false)
	if r.tr != nil {
		r.recordSwitch(g, next)
	}
	r.cur = next
	r.switches++
	if !coroutines {
		semrelease(&next.sema, false, 1)
		return
	}
	if r.home.slot == &g.own {
		// g's end resumes the home, parked in g's coroutine, which passes
		// the turn on: a switch into the home's place like any other.
		r.claimHome()
	}
}

// exitAfterEnd is the exit of g after its run's end: torn down, or the
// goroutine the watchdog gave up on. With coroutines the home takes the
// turn back and unwinds the rest; with semaphores the teardown hears of it
// (torn), or may begin (the abandoned run's running goroutine has left).
//
//go:norace
func (r *Run) exitAfterEnd(g *G, torn bool) {
	g.state = gExited
	switch {
	case coroutines:
		r.handHome()
	case torn:
		r.ack <- g
	default:
		r.goneOnce.Do(func() { close(r.gone) })
	}
}

// recordFail records the run's failure f as a fail event of the goroutine
// that failed, unless the trace already holds it (a panic event, the fail
// events of the checks that failed the test) or no goroutine failed: the
// whole run did (a deadlock, a leak), as the outcome says.
//
//go:norace
//go:noinline
func (r *Run) recordFail(f *Failure) {
	if f == nil || f.G == 0 || f.Kind == Panic || f.Kind == TestFailed && len(r.errorAt) > 0 {
		return
	}
	e := r.event(event.KindFail, nil)
	e.G = int32(f.G)
	e.Text, _, _ = strings.Cut(f.Message, "\n")
	r.record(e)
}

// recordExit records g's exit, and the panic it exits with, if any.
//
//go:norace
//go:noinline
func (r *Run) recordExit(g *G, p any) {
	if p != nil {
		e := r.event(event.KindPanic, g)
		e.Text = fmt.Sprint(p)
		r.record(e)
	}
	r.tr.AddArgs(event.KindExit, int64(r.steps), gid(g), int64(r.now), 0, 0)
}

// exitFailed ends the run for g, which exits with panic p (and its stack),
// after a fatal failure, or, being the body, with runtime.Goexit. It is exitG's rare path, a
// function of its own so that exitG, which picks the next goroutine deep in
// the exiting one's stack, keeps a small stack frame.
//
//go:norace
//go:noinline
func (r *Run) exitFailed(g *G, p any, stack []byte) {
	switch {
	case p != nil:
		if rp, ok := p.(*Repanic); ok {
			p, stack = rp.Value, rp.Stack
		}
		// A panic outranks a pending test failure: in Go it would crash the
		// test binary.
		r.pending = nil
		msg := fmt.Sprintf("panic in goroutine %d: %v", g.ID, p)
		if e, ok := p.(error); ok && simulatedNetType.MatchString(e.Error()) {
			msg += "\nnote: this simulated listener or connection is package simnet's own type, not Go's *net.TCPListener " +
				"or *net.TCPConn (dstreplay test -wrap gives Go's where it can add its hooks to package net, and says when it " +
				"cannot): code that asserts it is one cannot run over the simulated network here: a limit of the tool, not a bug of the code"
		}
		r.finish(&Failure{Kind: Panic, G: g.ID, Message: msg,
			Stack: userStack(string(stack), true), Place: panicPlace(string(stack))})
	case g.fatal:
		r.finish(nil)
	default:
		r.finish(&Failure{Kind: Goexit, G: g.ID, Message: fmt.Sprintf(
			"the body (goroutine %d) called runtime.Goexit (t.FailNow or t.Fatal on the outer *testing.T? use the *schedtest.T the body receives)", g.ID)})
	}
}

// simulatedNetType matches the runtime's error for a type assertion of a
// simulated listener or connection to one of package net's types.
var simulatedNetType = regexp.MustCompile(`^interface conversion: net\.\w+ is \*simnet\.\w+, not \*net\.`)

// Repanic carries a panic that a shim recovered and raises again, with the
// stack of the original panic, for the report.
type Repanic struct {
	Value any
	Stack []byte
}

func (p *Repanic) Error() string { return fmt.Sprint(p.Value) }

// finish ends the run with f, unless a failure was already recorded.
//
//go:norace
func (r *Run) finish(f *Failure) {
	if !r.ended.CompareAndSwap(0, endedByRun) {
		if coroutines {
			r.handHome() // the watchdog ended it: the home unwinds the rest
		}
		return
	}
	if r.pending != nil {
		f = r.pending
	}
	if f == nil && r.cfg.Timeout > 0 && r.bodyAt >= r.cfg.Timeout && r.root.state == gExited {
		// The clock reached the timeout in a wait the body returned from
		// (a sleep), and the run ended: Go would have stopped it there.
		f = r.timeoutFailure()
	}
	if f != nil && r.failure == nil {
		if f.Goroutines == nil {
			f.Step = r.steps
			f.Goroutines = r.snapshot()
		}
		r.failure = f
	}
	if r.tr != nil {
		r.recordFail(r.failure)
	}
	// What teardown does (deferred calls of goroutines that would never
	// run again in Go) is not part of the run: the trace ends here.
	r.tr = nil
	if coroutines {
		r.handHome() // it unwinds the parked goroutines
		return
	}
	close(r.done)
}

//go:norace
func (r *Run) snapshot() []GState {
	var out []GState
	for _, g := range r.gs {
		if g.state == gExited || g.killed {
			continue
		}
		st := GState{ID: g.ID, Parent: g.parent, Op: g.op, Obj: g.obj.String(), At: loc(g.at), Spawned: loc(g.spawnAt), Runs: g.entry}
		if g.state != gBlocked {
			st.Spins = r.spinsOf(g)
		}
		if g.obj != nil {
			st.Holder, st.HeldAt = int(g.obj.holder), loc(g.obj.heldAt)
		}
		switch {
		case g.state == gBlocked:
			st.State = "blocked"
		case g == r.cur:
			st.State = "running"
		default:
			st.State = "runnable"
		}
		out = append(out, st)
	}
	return out
}

// externalFailure records a failure observed outside the run's goroutines.
func (r *Run) externalFailure(f *Failure) {
	r.external.CompareAndSwap(nil, f)
}
