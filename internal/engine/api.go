package engine

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/event"
)

// Go starts f as a new managed goroutine of g's run. The spawn is a
// scheduling point, so the new goroutine may run first.
//
//go:norace
func (g *G) Go(f func()) {
	r := g.run
	if r.abandoned.Load() {
		runtime.Goexit() // as its scheduling point would: the run is not its own any more
	}
	if g.tear != tearNone || r.stopping {
		return // the run is over: nothing new starts
	}
	c := r.newG(g)
	if r.cfg.Detail {
		c.spawnAt = callerLoc()
	}
	r.spawn(c, f)
	g.Point(OpGo, nil)
}

// Yield is an explicit scheduling point. It is futile for the livelock
// oracle (livelock.go): a goroutine yields while it waits for another.
//
//go:norace
func (g *G) Yield() {
	g.run.spins++
	g.Point(OpYield, nil)
}

// Fault is a named fault point: it draws from the run's entropy whether the
// fault fires, with the probability configured for the name, and records it
// when it does. After StopFaults, or when the probability is 0, it draws
// nothing and reports false.
//
//go:norace
func (g *G) Fault(name string) bool {
	r := g.run
	if r.faultOff || g.tear != tearNone {
		return false
	}
	p, ok := r.cfg.Faults[name]
	if !ok {
		p = r.cfg.FaultProbability
	}
	if p <= 0 {
		return false
	}
	g.Point(OpFault, nil)
	fired := r.src.At(entropy.KeyOf(name) ^ faultSalt).Bool(p)
	if r.tr != nil {
		e := r.event(event.KindFault, g)
		e.Text = name
		if fired {
			e.Arg = 1
		}
		r.record(e)
	}
	if !fired {
		return false
	}
	r.faults = append(r.faults, FaultEvent{Name: name, Step: r.steps, G: g.ID})
	if r.cfg.Cover != nil {
		r.coverName(tagFault, name)
	}
	return true
}

// FaultPossible reports whether the named fault may fire in the run from
// now on: its probability is above 0 and StopFaults was not called. It
// draws nothing, so that a fault point may skip work its fault alone
// needs.
//
//go:norace
func (g *G) FaultPossible(name string) bool {
	r := g.run
	p, ok := r.cfg.Faults[name]
	if !ok {
		p = r.cfg.FaultProbability
	}
	return !r.faultOff && p > 0
}

// FaultBound is how long the named fault may last when it fires: the
// bound the run was given for it (Config.FaultBounds), else def.
func (g *G) FaultBound(name string, def time.Duration) time.Duration {
	if d, ok := g.run.cfg.FaultBounds[name]; ok && d > 0 {
		return d
	}
	return def
}

// Parent is the goroutine of the run that started g, or nil for the
// body.
//
//go:norace
func (g *G) Parent() *G {
	if g.parent == 0 {
		return nil
	}
	return g.run.gs[g.parent-1]
}

// StopFaults switches every fault point of the run off from now on.
//
//go:norace
func (g *G) StopFaults() { g.run.faultOff = true }

// Source is the run's entropy source, for the body's own draws.
//
//go:norace
func (g *G) Source() *entropy.Source { return g.run.src }

// Log records a line of the body's output, shown when the run fails.
//
//go:norace
func (g *G) Log(s string) {
	r := g.run
	r.logs = append(r.logs, fmt.Sprintf("[goroutine %d] %s", g.ID, s))
	if r.tr != nil {
		e := r.event(event.KindLog, g)
		e.Text = s
		r.record(e)
	}
}

// IO records that g did op on the connection or the file o, of kind k:
// n bytes at offset at, arriving (a message) or lasting (a sync) after.
// o is bound to the run at its first I/O, whether or not the run is
// traced, so that its number is the same in both; in a traced run, the
// trace gets a KindIO event, which the stepper shows and html draws
// (a message as a line from its send to its receipt). It is not a
// scheduling point.
//
//go:norace
func (g *G) IO(op Op, o *Obj, k ObjKind, at, n int64, after time.Duration) {
	r := g.run
	if o.run != r {
		o.Bind(g, k)
	}
	if r.tr != nil {
		e := r.event(event.KindIO, g)
		e.Op, e.Obj, e.Arg, e.N, e.Dur = uint8(op), o.id, at, n, int64(after)
		r.record(e)
	}
}

// Traced reports whether g's run records a trace, for a shim whose event
// costs work of its own (a system call) that an untraced run need not do.
//
//go:norace
func (g *G) Traced() bool { return g.run.tr != nil }

// NativeBoundary records that g, at where, started what runs natively
// (package sched/native/boundary): once per run for each what
// (Outcome.Natives).
//
//go:norace
func (g *G) NativeBoundary(what, where string) {
	r := g.run
	for _, n := range r.natives {
		if n.What == what {
			return
		}
	}
	r.natives = append(r.natives, Native{What: what, Where: where})
}

// Native is a function a run called that starts work outside the
// scheduler, and where it was first called.
type Native struct{ What, Where string }

// Drew records that g drew a value for the test, as a report shows it
// ("IntRange(1, 6) = 4 at store_test.go:42").
//
//go:norace
func (g *G) Drew(s string) {
	r := g.run
	r.draws = append(r.draws, fmt.Sprintf("[goroutine %d] %s", g.ID, s))
}

// TraceSelect records that g's select chose case chosen among n ready ones.
//
//go:norace
func (g *G) TraceSelect(chosen, n int) {
	r := g.run
	if r.tr != nil {
		r.tr.AddArgs(event.KindSelect, int64(r.steps), int32(g.ID), int64(r.now), int64(chosen), int64(n))
	}
}

// Error records a test failure; the run goes on and fails when it ends. In
// detail mode the message starts with the caller's file and line, as
// testing's does.
//
//go:norace
func (g *G) Error(s string) {
	at := g.run.failLoc() // for the failure's place: a failing run pays for it once
	if g.run.cfg.Detail {
		if l := loc(at); l.File != "" {
			s = fmt.Sprintf("%s:%d: %s", filepath.Base(l.File), l.Line, s)
		}
	}
	r := g.run
	r.errors = append(r.errors, fmt.Sprintf("goroutine %d: %s", g.ID, s))
	r.errorAt = append(r.errorAt, shortLoc(at))
	if r.firstCheck.File == "" {
		r.firstCheck = loc(at)
	}
	if r.tr != nil {
		e := r.event(event.KindFail, g)
		e.Text = s
		r.record(e)
	}
}

// Failed reports whether the run has recorded a failure.
//
//go:norace
func (g *G) Failed() bool {
	r := g.run
	return len(r.errors) > 0 || r.pending != nil || r.failure != nil
}

// FailNow ends the run as failed, as t.FailNow ends a test: g exits with
// runtime.Goexit and no other goroutine runs again.
//
//go:norace
func (g *G) FailNow() {
	msg, place, check := strings.Join(g.run.errors, "\n"), places(g.run.errorAt), g.run.firstCheck
	if msg == "" {
		at := g.run.failLoc()
		msg, place, check = fmt.Sprintf("goroutine %d: FailNow", g.ID), shortLoc(at), loc(at)
	}
	g.failNow(&Failure{Kind: TestFailed, G: g.ID, Message: msg, Place: place, Check: check})
}

// Fatal ends the run the way the Go runtime ends a program on fatal misuse
// of a synchronisation primitive ("sync: unlock of unlocked mutex").
//
//go:norace
func (g *G) Fatal(msg string) {
	g.failNow(&Failure{Kind: Fatal, G: g.ID, Message: fmt.Sprintf("fatal error: %s (goroutine %d)", msg, g.ID)})
}

// ID is g's run-local number: 1 for the body, then in order of creation.
//
//go:norace
func (g *G) Num() int { return g.ID }

// Block parks g, which must be the calling goroutine, until another goroutine
// calls Unblock on it and the scheduler picks it. Shims that keep their own
// waiter lists (Cond) use it; the others use WaitQ.
//
//go:norace
func (g *G) Block(op Op, o *Obj) { g.block(op, o) }

// Scratch is what a shim package kept in g with SetScratch: state it reuses
// from one operation of g to the next instead of allocating it each time
// (chans keeps a select's bookkeeping). One package uses it.
//
//go:norace
func (g *G) Scratch() any { return g.scratch }

// SetScratch keeps x in g for Scratch.
//
//go:norace
func (g *G) SetScratch(x any) { g.scratch = x }

// PoolItems is the run's own store of the items of pool p (a sched.Pool):
// a pool's Get and Put inside a run see only what the run put in it, never
// what an earlier run or another process-wide user left there. The store
// is a slice searched in turn, not a Go map: the run's goroutines use it
// one after another with no happens-before edge the race detector sees,
// and the runtime checks map accesses for races even in norace functions
// (net/http's pools, used by a server's and a transport's goroutines).
//
//go:norace
func (g *G) PoolItems(p any) *[]any {
	r := g.run
	for i := range r.pools {
		if r.pools[i].pool == p {
			return r.pools[i].items
		}
	}
	s := new([]any)
	r.pools = append(r.pools, poolItems{p, s})
	return s
}

// poolItems is a pool's entry in the run's store (G.PoolItems).
type poolItems struct {
	pool  any
	items *[]any
}

// Unblock makes g runnable again if it is blocked.
//
//go:norace
func (g *G) Unblock() { g.run.wake(g) }

// TornDown reports whether g is running its deferred calls because the run
// ended while g was blocked (calls that would never run in Go).
//
//go:norace
func (g *G) TornDown() bool { return g.tear != tearNone }

// Misuse ends the run because a shim was used in a way Go does not allow
// here (a channel made outside the run used inside it, for example).
//
//go:norace
func (g *G) Misuse(msg string) {
	g.failNow(&Failure{Kind: Misuse, G: g.ID, Message: fmt.Sprintf("misuse: %s (goroutine %d)", msg, g.ID)})
}

// NilObj returns a static object naming something that belongs to no run,
// such as a nil channel, for reports of goroutines blocked on it.
func NilObj(label string, k ObjKind) *Obj { return &Obj{label: label, kind: k} }

// Labeler names an object for reports.
type Labeler interface{ Label() string }

// LazyObj is NilObj with a label that l makes only when a report needs it
// (a select blocks far more often than it is reported). It returns the
// object itself, so that the caller can keep it in a structure of its own
// instead of allocating it.
func LazyObj(l Labeler, k ObjKind) Obj { return Obj{lazy: l, kind: k} }
