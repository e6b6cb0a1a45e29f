package engine

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/petermattis/goid"

	"github.com/dstgo/dst/internal/event"
)

// Obj is the header every shim embeds: which run the object belongs to and
// its run-local identity. The zero value is unbound. An object is bound to a
// run on its first use inside the run and rebound, with its run state reset,
// when a later run uses it after the first has ended (a package-level Mutex
// used by many schedules, for example).
type Obj struct {
	run    *Run
	id     int32
	kind   ObjKind
	holder int32     // the goroutine holding the lock, for reports
	heldAt *Location // where it locked it (detail mode)
	label  string    // names the object in reports instead of its kind ("chan int")
	lazy   Labeler   // makes the label only when a report asks for it
	site   uint64    // coverage: where the run bound it (see bindSite)
}

// SetLabel names o in reports, for example with a channel's element type:
// "chan int#3".
//
//go:norace
func (o *Obj) SetLabel(s string) { o.label = s }

// Running returns the calling goroutine if it is the running goroutine of
// the run o is bound to, else nil: the shims' fast way to find their
// caller on an object already in use in the run (see Current).
//
//go:norace
func (o *Obj) Running() *G {
	if r := o.run; r != nil {
		if g := r.cur; g != nil && g.goid == goid.Get() {
			return g
		}
	}
	return nil
}

// Bind attaches o to g's run. It reports whether o was (re)bound, in which
// case the caller resets the object's run state. Using an object that belongs
// to another run still in progress fails g's run.
//
//go:norace
func (o *Obj) Bind(g *G, k ObjKind) bool {
	r := g.run
	if o.run == r {
		return false
	}
	if o.run != nil && !o.run.closed.Load() {
		g.failNow(&Failure{Kind: Misuse, G: g.ID, Message: fmt.Sprintf(
			"%s#%d belongs to another run in progress (%s); objects must not be shared between runs",
			o.kind, o.id, o.run.cfg.Name)})
	}
	r.nobj++
	*o = Obj{run: r, id: r.nobj, kind: k, label: o.label}
	if r.cfg.Cover != nil {
		o.site = bindSite()
	}
	if r.tr != nil {
		e := r.event(event.KindObject, g)
		e.Obj, e.Text = o.id, o.base()
		r.record(e)
	}
	return true
}

// Hold records that g holds the lock o, so that reports of goroutines
// blocked on o can say who holds it and where it took it.
//
//go:norace
func (o *Obj) Hold(g *G) { o.holder, o.heldAt = int32(g.ID), g.at }

// Release records that nobody holds the lock o.
//
//go:norace
func (o *Obj) Release() { o.holder, o.heldAt = 0, nil }

// CheckNative is called by a shim on behalf of a goroutine that no run
// manages. When o belongs to a run in progress, it fails that run as a
// misuse, with the calling goroutine's stack, and ends the goroutine with
// runtime.Goexit (its deferred calls run): such an object may only be
// touched by that run's goroutines, and touching it natively would break the
// run's determinism and the shim's state. A panic would end the whole test
// binary, without the run's report. For an object no run ever used it is
// one inlined load.
func (o *Obj) CheckNative(op Op) {
	if o.bound() {
		o.checkNative(op)
	}
}

//go:norace
func (o *Obj) bound() bool { return o.run != nil }

// WhenRunOver runs f once o's run is over: at once when it is (or o has
// no run), else in a goroutine of its own when the run closes. It is for
// shims that a goroutine no run manages calls while the run may be in
// progress, where acting on the run at a moment of real time would make
// the run depend on it (a standard context's AfterFunc, which cancels a
// child of the run's from a goroutine of its own).
//
//go:norace
func (o *Obj) WhenRunOver(f func()) {
	r := o.run
	if r == nil {
		f()
		return
	}
	r.overMu.Lock()
	if !r.overRan {
		r.over = append(r.over, f)
		r.overMu.Unlock()
		return
	}
	r.overMu.Unlock()
	f()
}

// markClosed says that the run is over, and starts what waited for that
// (Obj.WhenRunOver).
func (r *Run) markClosed() {
	r.closed.Store(true)
	r.overMu.Lock()
	over := r.over
	r.over, r.overRan = nil, true
	r.overMu.Unlock()
	for _, f := range over {
		go f()
	}
}

//go:norace
func (o *Obj) checkNative(op Op) {
	r := o.run
	if r.closed.Load() {
		return
	}
	stack := string(debug.Stack())
	msg := fmt.Sprintf("sched: %s.%s on %s#%d from a goroutine that no run manages, while its run (%s) is in progress; %s",
		o.kind, op, o.kind, o.id, r.cfg.Name, NativeStarter(stack))
	r.externalFailure(&Failure{Kind: Misuse, Message: msg, Stack: shimCallStack(stack)})
	runtime.Goexit()
}

// NativeStarter says, for the stack of a goroutine that no run manages,
// which code started it and how to bring such a goroutine into the run:
// code that dstreplay test did not rewrite (a dependency, whose package it
// names for -rewrite), or a go statement that did not go through sched.Go.
func NativeStarter(stack string) string {
	const advice = "start goroutines that use run objects with sched.Go"
	i := strings.LastIndex(stack, "\ncreated by ")
	if i < 0 {
		return advice
	}
	fn, _, _ := strings.Cut(stack[i+len("\ncreated by "):], "\n")
	fn, _, _ = strings.Cut(fn, " in goroutine ")
	pkg := funcPackage(fn)
	if pkg == "" || isStd(pkg) {
		return fmt.Sprintf("it was started by %s, of the standard library, which the scheduler does not run", fn)
	}
	return fmt.Sprintf("it was started by %s: under dstreplay test, rewrite that package too (-rewrite=%s); in code written for the scheduler, %s", fn, pkg, advice)
}

// isStd reports whether an import path is of the standard library (no dot
// in its first element).
func isStd(pkg string) bool {
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".")
}

// base is the object's name without its id: its label or its kind. Traces
// record it once per object, with the id beside it.
//
//go:norace
func (o *Obj) base() string {
	if o.label != "" {
		return o.label
	}
	return o.kind.String()
}

// String names the object as reports show it, for example "Mutex#3".
//
//go:norace
func (o *Obj) String() string {
	if o == nil || o.kind == KindNone {
		return ""
	}
	if o.lazy != nil {
		return o.lazy.Label()
	}
	if o.label != "" && o.id == 0 {
		return o.label // a static object, such as a nil channel
	}
	if o.label != "" {
		return fmt.Sprintf("%s#%d", o.label, o.id)
	}
	return fmt.Sprintf("%s#%d", o.kind, o.id)
}

// WaitQ is a list of goroutines blocked on an object, oldest first.
type WaitQ struct {
	gs []*G
}

// Len reports how many goroutines wait.
//
//go:norace
func (q *WaitQ) Len() int { return len(q.gs) }

// Reset forgets every waiter (used when an object is rebound to a new run).
//
//go:norace
func (q *WaitQ) Reset() { q.gs = q.gs[:0] }

// Wait blocks g on q until another goroutine wakes it with WakeOne or WakeAll
// and the scheduler picks it again.
//
//go:norace
func (q *WaitQ) Wait(g *G, op Op, o *Obj) {
	q.gs = append(q.gs, g)
	g.block(op, o)
}

// WakeOne makes the oldest waiter runnable and reports whether there was
// one. A waiter that crashed (G.Crash) is passed over.
//
//go:norace
func (q *WaitQ) WakeOne() bool {
	for len(q.gs) > 0 {
		g := q.gs[0]
		q.gs = remove(q.gs, g)
		if !g.killed {
			g.run.wake(g)
			return true
		}
	}
	return false
}

// WakeAll makes every waiter runnable.
//
//go:norace
func (q *WaitQ) WakeAll() {
	for i, g := range q.gs {
		g.run.wake(g)
		q.gs[i] = nil
	}
	q.gs = q.gs[:0]
}
