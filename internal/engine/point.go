package engine

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/dstgo/dst/internal/event"
)

// Scheduling points: a goroutine reaching one (Point) or blocking (block),
// another waking it, and the run stalling when nobody can run.

// beginSwitch records a switch from goroutine from to goroutine to, which
// becomes the current one. With coroutines, the caller then calls handoff
// itself: a function in between would cost a mispredicted return at every
// switch (see handoff).
//
//go:norace
func (r *Run) beginSwitch(from, to *G) {
	if r.tr != nil {
		r.recordSwitch(from, to)
	}
	r.cur = to
	r.switches++
}

// interrupted reports whether g must not be scheduled as usual: the run is
// tearing it down, or the watchdog abandoned the run.
//
//go:norace
func (g *G) interrupted() bool {
	return g.tear != tearNone || g.run.abandoned.Load()
}

// drainLimit bounds the scheduling points that deferred calls may reach
// once the end of the run is decided (after a fatal failure, or during
// teardown), when no other goroutine will run again: a deferred call that
// spins waiting for another goroutine is cut short with runtime.Goexit.
const drainLimit = 10_000

// Point is a scheduling point: the strategy picks which runnable goroutine
// continues, possibly another one. g must be the calling goroutine.
//
//go:norace
func (g *G) Point(op Op, o *Obj) {
	r := g.run
	if r.abandoned.Load() {
		runtime.Goexit()
	}
	if RaceEnabled {
		r.noteRace(g)
	}
	if g.tear != tearNone || r.stopping {
		r.progress++
		if r.drain++; r.drain > drainLimit {
			runtime.Goexit()
		}
		return
	}
	r.progress++
	r.steps++
	if g.poll == pollIdle && pollOps[g.op] == pollMaybe {
		r.spins++ // its select or TryLock found nothing (G.Polled): futile (livelock.go)
	}
	g.op, g.obj = op, o
	if r.cfg.Detail {
		g.at = callerLoc()
		if g.at == nil {
			// Nothing of the user's on the stack: a point the tool makes
			// for the goroutine, such as WaitGroup.Go's Done once its
			// function returns. It belongs to where the goroutine started.
			g.at = g.spawnAt
		}
		if g.entry == "" {
			g.entry = entryFunc()
		}
		r.noteSpin(g)
	}
	if r.tr != nil {
		r.recordOp(event.KindOp, g, op, o)
	}
	if r.steps == r.cfg.BreakStep {
		Breakpoint(r.steps, g.ID)
	}
	if r.cfg.Cover != nil {
		r.coverPoint(g, op, o)
	}
	if r.steps >= r.checkAt {
		r.checkBounds(g) // the step bound, a livelock, goroutines left behind (livelock.go)
	}
	r.changePoints(g)
	if g.poll|pollOps[op] != 0 { // time passes while goroutines spin (spin.go)
		r.spinPoint(g, op, o)
	} else {
		r.spinPoints = 0
	}
	if int64(r.steps) >= r.nativeAt.Load() { // time spent in native work (nativetime.go)
		r.nativePoint()
	}
	if len(r.timers) > 0 {
		if r.timers[0].when <= r.now {
			r.fireDue()
		} else if p := r.cfg.ClockFaults.BusyProbability; p > 0 && r.src.At(keyBusy).Bool(p) {
			r.advance() // time passes while goroutines compute
		}
	}
	if r.now >= r.cfg.Timeout && r.cfg.Timeout > 0 && r.root.state != gExited {
		// Once the body has returned, the test is over for go test, and
		// what keeps running is the leak oracle's.
		g.failNow(r.stoppedAt(g, r.timeoutFailure()))
	}
	if r.surw {
		r.surwEvent(g, o)
	}
	if len(r.runnable) == 1 {
		return
	}
	if next := r.pick(g, op == OpYield); next != g {
		if r.pastAt == 0 {
			r.preempts++ // not the turns taken past the step bound, which draw nothing
		}
		// Not a function of its own: with coroutines, a frame between
		// here and handoff costs a mispredicted return at every switch.
		if coroutines {
			r.beginSwitch(g, next)
			r.handoff(g)
		} else {
			r.switchTo(g, next)
		}
	}
}

// block parks g until another goroutine wakes it and the scheduler picks it.
//
//go:norace
func (g *G) block(op Op, o *Obj) {
	r := g.run
	if RaceEnabled {
		r.noteRace(g)
	}
	if g.interrupted() || r.stopping {
		// Deferred calls of a goroutine being torn down, or of one whose
		// failure ends the run: nobody will ever wake it.
		runtime.Goexit()
	}
	r.progress++
	r.blocked() // progress for the livelock window (livelock.go)
	g.state = gBlocked
	g.op, g.obj = op, o
	if r.tr != nil {
		r.recordOp(event.KindBlock, g, op, o)
	}
	if r.cfg.Cover != nil {
		g.site = siteOf(op, o)
		r.coverBlock(g)
	}
	if r.surw {
		r.surwEvent(g, o)
	}
	r.removeRunnable(g)
	for len(r.runnable) == 0 && r.advanceIdle() {
	}
	if len(r.runnable) == 0 {
		r.stall(g)
		return
	}
	if next := r.pick(nil, false); next != g { // a timer may have woken g itself
		// Not a function of its own: with coroutines, a frame between
		// here and handoff costs a mispredicted return at every switch.
		if coroutines {
			r.beginSwitch(g, next)
			r.handoff(g)
		} else {
			r.switchTo(g, next)
		}
	}
}

//go:norace
func (r *Run) wake(g *G) {
	if g.state != gBlocked || g.killed {
		return
	}
	g.state = gRunnable
	r.idleAdvances = 0
	r.progressed()
	if r.tr != nil {
		r.tr.AddArgs(event.KindWake, int64(r.steps), gid(r.waker()), int64(r.now), int64(g.ID), 0)
	}
	r.addRunnable(g)
}

// waker is the goroutine on whose behalf a wake happens: the running one,
// or nil while timers fire between two decisions.
//
//go:norace
func (r *Run) waker() *G {
	if r.firing {
		return nil
	}
	return r.cur
}

// remove deletes x from s, keeping the order. It moves elements one by one:
// the copy builtin reports its accesses to the race detector even in a
// norace function, and run state is shared without happens-before edges.
//
//go:norace
func remove(s []*G, x *G) []*G {
	for i := range s {
		if s[i] != x {
			continue
		}
		for j := i + 1; j < len(s); j++ {
			s[j-1] = s[j]
		}
		s[len(s)-1] = nil
		return s[:len(s)-1]
	}
	return s
}

// stall is reached when no goroutine is runnable: the run passed, or it is
// deadlocked or leaking. g is the goroutine that just blocked, or nil.
//
//go:norace
func (r *Run) stall(g *G) {
	if r.live == 0 {
		var f *Failure
		if len(r.errors) > 0 {
			f = &Failure{Kind: TestFailed, Message: strings.Join(r.errors, "\n"), Place: places(r.errorAt), Check: r.firstCheck}
		}
		r.finish(f)
		return
	}
	f := &Failure{Kind: Deadlock, Message: fmt.Sprintf(
		"deadlock: all goroutines are asleep: %d blocked and nothing can wake them", r.live)}
	if r.root.state == gExited {
		n := len(r.unignored())
		if n == 0 {
			// Every goroutine left is one the test said to ignore.
			r.finish(r.endOfBody())
			if g != nil {
				r.park(g) // until teardown, which never returns here
				panic("sched: internal error: a stalled goroutine was resumed")
			}
			return
		}
		f = &Failure{Kind: Leak, Message: fmt.Sprintf(
			"leak: the test body returned but %d goroutine(s) are blocked forever", n)}
		if r.leftSpent {
			f.Message = fmt.Sprintf("leak: the test body returned but %d goroutine(s) are still running on timers: "+
				"the virtual clock advanced %d times, by %v, since the body returned (or since one of them last exited) "+
				"and timers keep waking them or starting more (a ticker, a sleep in a loop, an AfterFunc), whether those "+
				"listed below are waiting for the next tick or blocked; goleak would report them as unexpected goroutines: "+
				"stop them before the test returns, or ignore a known one (Options.IgnoreTopFunction, -dst.ignoretop)",
				n, r.leftTicks, r.now-r.leftSince)
		}
	}
	switch {
	case r.leftSpent:
	case len(r.timers) > 0 && r.idleAdvances >= idleAdvanceLimit:
		f.Message += fmt.Sprintf(" (the virtual clock advanced %d times without waking any: the pending timers wake nobody)", idleAdvanceLimit)
	case len(r.timers) > 0:
		f.Message += " (the only pending timers are tickers whose ticks nobody receives)"
	}
	if len(r.errors) > 0 {
		f.Message += "\n" + strings.Join(r.errors, "\n")
	}
	r.unseen(f)
	f.Place = r.blockedPlaces()
	r.finish(f)
	if g != nil {
		r.park(g) // until teardown, which never returns here
		panic("sched: internal error: a stalled goroutine was resumed")
	}
}

// timeoutFailure is the failure of a run whose virtual clock reached
// Config.Timeout.
//
//go:norace
func (r *Run) timeoutFailure() *Failure {
	blocked := r.live - len(r.runnable)
	f := &Failure{Kind: Timeout, Message: fmt.Sprintf(
		"timeout: the virtual clock reached %v before the test ended: in Go it would have run at least that long, "+
			"and go test's -timeout (%v) would have stopped it; %d goroutine(s) blocked, %d can run "+
			"(a goroutine blocked for ever beside a ticker or a sleeping loop that keeps the run going is a hang "+
			"that Go does not call a deadlock either)", r.now, r.cfg.Timeout, blocked, len(r.runnable))}
	if len(r.errors) > 0 {
		f.Message += "\n" + strings.Join(r.errors, "\n")
	}
	f.Place = r.blockedPlaces()
	return f
}
