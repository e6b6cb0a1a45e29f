// Package context mirrors the standard context package for code that runs
// under the scheduler: replace the import of "context" with this package.
// Outside a run every function is the standard one. Inside a run,
// WithCancel, WithCancelCause, WithDeadline, WithTimeout (and their Cause
// variants) and AfterFunc return contexts whose deadlines run on the virtual
// clock (package vtime) and whose cancellation the scheduler sees: wait for
// it with Done(ctx).Recv(), or as a case of chans.Select next to channel
// cases, and Err is a scheduling point. The contexts implement
// context.Context, so they pass through any API that takes one; their
// Done() channel is a Go channel, closed on cancellation as usual, but a
// goroutine blocked on it directly is blocked outside the scheduler (the
// watchdog reports it): use Done(ctx) inside a run.
//
// Cancellation propagates from every parent to its children, as in Go. A
// parent made by this package cancels its children itself. One of another
// type (a mock clock's deadline context, say) is followed as the standard
// package follows it: through its AfterFunc method if it has one, else by a
// managed goroutine that waits for the parent's Done channel or the child's
// and exits when either is closed; as in Go it stays while neither is, and
// the leak oracle reports it. The run sees the parent's Done channel when it
// is one of the run's (rewritten code made or used it there); one from
// outside is adopted, as package sched/native adopts channels, and a close
// the run did not see is reported if the run stalls. A parent made by the
// standard package (the enclosing test's context, say) cancels the child
// through context.AfterFunc, whose function runs in a goroutine no run
// manages, at a moment of real time: the child is canceled once the run is
// over (during the run it is not).
package context

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/chanlink"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/vtime"
)

// doneOps are the operations package chans lends Done channels.
var doneOps = chanlink.Dones.(*chanlink.DoneOps[*chans.Chan[struct{}]])

// The standard types and values, so that this package replaces the import.
type (
	Context         = context.Context
	CancelFunc      = context.CancelFunc
	CancelCauseFunc = context.CancelCauseFunc
)

var (
	Canceled         = context.Canceled
	DeadlineExceeded = context.DeadlineExceeded
)

func Background() Context                            { return context.Background() }
func TODO() Context                                  { return context.TODO() }
func WithValue(parent Context, key, val any) Context { return context.WithValue(parent, key, val) }
func WithoutCancel(parent Context) Context           { return context.WithoutCancel(parent) }

// Done returns ctx's Done channel as a *chans.Chan: receiving from it is a
// scheduling point inside a run, and it can be a case of chans.Select. It is
// nil (blocks forever) for a context that is never canceled.
func Done(ctx Context) *chans.Chan[struct{}] {
	if c := ours(ctx); c != nil {
		if g := c.obj.Running(); g != nil {
			return c.schedDone(g)
		}
		if c.done != nil {
			return c.done
		}
		return chans.FromRecv(c.nativeDone())
	}
	d := ctx.Done()
	if d == nil {
		return nil
	}
	return chans.FromRecv(d)
}

// Cause returns why ctx was canceled: the cause given to its
// CancelCauseFunc or WithDeadlineCause, or else ctx.Err(); nil while it is
// not canceled.
func Cause(ctx Context) error {
	if c := ours(ctx); c != nil {
		return c.getCause()
	}
	return context.Cause(ctx)
}

// WithCancel returns a copy of parent with a new Done channel, closed when
// cancel is called or parent is canceled.
func WithCancel(parent Context) (Context, CancelFunc) {
	g := engine.Current()
	if g == nil {
		return context.WithCancel(parent)
	}
	c := newCancelCtx(g, parent)
	return c, func() { c.cancelFrom(engine.Current(), context.Canceled, nil) }
}

// WithCancelCause is WithCancel with a cancel function that records a cause.
func WithCancelCause(parent Context) (Context, CancelCauseFunc) {
	g := engine.Current()
	if g == nil {
		return context.WithCancelCause(parent)
	}
	c := newCancelCtx(g, parent)
	return c, func(cause error) { c.cancelFrom(engine.Current(), context.Canceled, cause) }
}

// WithDeadline returns a copy of parent canceled at deadline d (on the
// virtual clock inside a run), when cancel is called, or when parent is.
func WithDeadline(parent Context, d time.Time) (Context, CancelFunc) {
	return WithDeadlineCause(parent, d, nil)
}

// WithDeadlineCause is WithDeadline with the cause reported when the
// deadline passes.
func WithDeadlineCause(parent Context, d time.Time, cause error) (Context, CancelFunc) {
	g := engine.Current()
	if g == nil {
		return context.WithDeadlineCause(parent, d, cause)
	}
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		return WithCancel(parent) // the parent's deadline comes first
	}
	c := newCancelCtx(g, parent)
	c.setDeadline(g, d, cause)
	return c, func() { c.cancelFrom(engine.Current(), context.Canceled, nil) }
}

// WithTimeout is WithDeadline(parent, vtime.Now().Add(timeout)).
func WithTimeout(parent Context, timeout time.Duration) (Context, CancelFunc) {
	return WithDeadline(parent, vtime.Now().Add(timeout))
}

// WithTimeoutCause is WithDeadlineCause(parent, vtime.Now().Add(timeout), cause).
func WithTimeoutCause(parent Context, timeout time.Duration, cause error) (Context, CancelFunc) {
	return WithDeadlineCause(parent, vtime.Now().Add(timeout), cause)
}

// AfterFunc arranges for f to run in its own goroutine (a managed one inside
// a run) after ctx is canceled, or at once if it already is. stop stops the
// arrangement and reports whether it did (false once f has been started).
// Inside a run, for a ctx of a type of the code under test, a context of
// this package follows ctx (see the package comment) and f runs when it is
// canceled; a ctx that is never canceled, or one made by the standard
// package, is left to the standard package's AfterFunc.
func AfterFunc(ctx Context, f func()) (stop func() bool) {
	g := engine.Current()
	if g == nil {
		return context.AfterFunc(ctx, f)
	}
	if c := ours(ctx); c != nil {
		return c.afterFunc(g, f)
	}
	done := ctx.Done()
	if done == nil || fromStandard(ctx, done) {
		return context.AfterFunc(ctx, f)
	}
	h := newCancelCtx(g, ctx)
	a := h.addFunc(g, f)
	return func() bool {
		if !stopAfter(a) {
			return false
		}
		h.release(engine.Current()) // as Go's stop cancels its context: h's watcher exits
		return true
	}
}

// cancelKey finds the nearest context made by this package through Value,
// as the standard package finds its own.
var cancelKey int

// ours returns the context of this package that ctx's cancellation comes
// from, or nil.
func ours(ctx Context) *cancelCtx {
	c, ok := ctx.Value(&cancelKey).(*cancelCtx)
	if !ok || ctx != Context(c) && ctx.Done() != c.Done() {
		return nil // not ours, or a wrapper (WithoutCancel) with its own Done
	}
	return c
}

// cancelCtx is a cancelable context of a run.
type cancelCtx struct {
	parent Context
	obj    engine.Obj
	// Done's channels, made at its first call, as the standard package
	// makes its own (most contexts are never waited on: a server's
	// request's): done is the scheduler's view (nil until Done is called
	// inside the run), and native, a chan struct{}, the Go channel Done
	// returns; atomic, since Done may be called outside the run.
	// canceledMark stands for a channel not made yet of a context already
	// canceled.
	done     *chans.Chan[struct{}]
	native   unsafe.Pointer
	err      error
	cause    error
	deadline time.Time
	hasDL    bool
	ownDL    bool // the deadline is its own (WithDeadline), not its parent's
	raceSync byte
	// A parent this package did not make, followed through an AfterFunc
	// (its method, or the standard package's function for a standard
	// parent): stop ends that when c is canceled first. stopNative: stop is
	// the standard package's, which may run between two decisions. (The
	// small fields are together: a context is 256 bytes, not 288.)
	stopNative bool
	stop       func() bool
	dlCause    error
	timer      *engine.Timer
	children   []*cancelCtx
	funcs      []*afterFunc
}

type afterFunc struct {
	f       func()
	started bool
	stopped bool
	sync    byte // race edge from AfterFunc's caller to f
}

// run is what the goroutine started for a starts with.
func (a *afterFunc) run() {
	engine.RaceAcquire(unsafe.Pointer(&a.sync))
	a.f()
}

//go:norace
func newCancelCtx(g *engine.G, parent Context) *cancelCtx {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	c := &cancelCtx{parent: parent}
	c.obj.Bind(g, engine.KindContext)
	c.deadline, c.hasDL = parent.Deadline()
	if p := ours(parent); p != nil {
		if p.err != nil {
			c.cancel(g, nil, p.err, p.cause)
		} else {
			p.children = append(p.children, c)
			// As the standard package's registration under the
			// parent's lock: the parent's cancel, in whichever goroutine,
			// comes after what made the child (its parent chain, which
			// the child's cancel walks).
			engine.RaceReleaseMerge(p.sync())
		}
	} else {
		c.follow(g, parent)
	}
	return c
}

// afterFuncer is a parent that runs a function when it is done; the
// standard package (Go 1.21 on) cancels a child of one through it, with no
// goroutine of its own.
type afterFuncer interface {
	AfterFunc(func()) func() bool
}

// follow arranges for c to be canceled when parent, a context this package
// did not make, is, with parent's Err and Cause, as the standard package's
// WithCancel does: nothing for a parent that is never canceled (a nil Done
// channel); at once for one that is done; through the standard package for
// a standard parent, and through parent's AfterFunc method for one that has
// it; else a managed goroutine waits for either context's Done channel.
//
//go:norace
func (c *cancelCtx) follow(g *engine.G, parent Context) {
	done := parent.Done()
	if done == nil {
		return
	}
	select {
	case <-done:
		c.cancel(g, nil, parentErr(parent), Cause(parent))
		return
	default:
	}
	if fromStandard(parent, done) {
		// The standard package calls this from a goroutine of its own: if
		// the parent is canceled while the run is in progress, when that
		// goroutine runs is real time's choice, so c is canceled once the
		// run is over (during the run it stays as the run found it).
		c.stop, c.stopNative = context.AfterFunc(parent, func() {
			c.obj.WhenRunOver(func() { c.cancelAfterRun(parentErr(parent), Cause(parent)) })
		}), true
	} else if a, ok := parent.(afterFuncer); ok {
		// Canceled by its parent, c does not stop following it: as in Go,
		// only a cancel of c itself calls the parent's stop.
		c.stop = a.AfterFunc(func() {
			c.takeStop()
			c.cancelFrom(engine.Current(), parentErr(parent), Cause(parent))
		})
	} else {
		pdone := runDone(g, done)
		g.Go(func() { c.watch(parent, pdone) })
		return
	}
	if c.err != nil { // the parent's AfterFunc canceled c before it returned: nothing to stop
		c.takeStop()
	}
}

// watch is the goroutine that follows a parent with no AfterFunc method:
// it waits for the parent's Done channel (pdone is the run's channel for
// it) or c's, whichever is closed first.
//
//go:norace
func (c *cancelCtx) watch(parent Context, pdone *chans.Chan[struct{}]) {
	if chans.Select(pdone.CaseRecv(nil), c.schedDone(engine.Current()).CaseRecv(nil)) == 0 {
		c.cancel(engine.Current(), nil, parentErr(parent), Cause(parent))
	}
}

// parentErr is the Err of a parent whose Done channel is closed; nil breaks
// the Context contract, and panics as in the standard package.
func parentErr(parent Context) error {
	err := parent.Err()
	if err == nil {
		panic("context: internal error: missing cancel error")
	}
	return err
}

// stdCancelKey is the key by which the standard package finds, through
// Value, the cancelable context of its own that a context derives from
// (&cancelCtxKey). Cause asks a context for it, so a context that records
// the keys asked of it learns it.
var stdCancelKey = func() any {
	var p keyProbe
	context.Cause(&p)
	return p.key
}()

type keyProbe struct{ key any }

func (*keyProbe) Deadline() (time.Time, bool) { return time.Time{}, false }
func (*keyProbe) Done() <-chan struct{}       { return nil }
func (*keyProbe) Err() error                  { return context.Canceled } // Cause asks Value only of a done context
func (p *keyProbe) Value(key any) any {
	if p.key == nil {
		p.key = key
	}
	return nil
}

// fromStandard reports whether ctx's cancellation is that of a cancelable
// context of the standard package, by the test of the standard package's
// parentCancelCtx: the standard package follows such a parent without a
// goroutine.
func fromStandard(ctx Context, done <-chan struct{}) bool {
	if stdCancelKey == nil {
		return false
	}
	p, ok := ctx.Value(stdCancelKey).(interface{ Done() <-chan struct{} })
	return ok && p.Done() == done
}

// runDone returns the run's channel that stands for done, the Done channel
// of a context this package did not make: the one rewritten code made it
// with, or used it through, in the run; else the run adopts done as package
// sched/native does at a channel's first use (with what it holds), so that
// rewritten code that closes done later closes the run's channel too, and
// a close by code that is not rewritten is reported if the run stalls.
//
//go:norace
func runDone(g *engine.G, done <-chan struct{}) *chans.Chan[struct{}] {
	key := *(*unsafe.Pointer)(unsafe.Pointer(&done))
	if s, ok := g.Shadow(key).(*chans.Chan[struct{}]); ok {
		return s
	}
	c := *(*chan struct{})(unsafe.Pointer(&done)) // the engine checks a bidirectional channel for closes it did not see
	s := chans.Make[struct{}](cap(c))
	g.SetShadow(key, c, s)
	g.ShadowAdopted(key, callerLine())
	for s.Len() < cap(c) {
		select {
		case _, ok := <-c:
			if !ok {
				s.Close()
				g.ShadowClosed(key)
				return s
			}
			s.Send(struct{}{})
		default:
			return s
		}
	}
	return s
}

// shims are the function name prefixes of this package and of package
// sched/native, which calls it for rewritten code.
var shims = func() [2]string {
	pkg := reflect.TypeFor[cancelCtx]().PkgPath()
	return [2]string{pkg + ".", strings.TrimSuffix(pkg, "context") + "native."}
}()

// callerLine is the file and line of the code that called into the shims.
func callerLine() string {
	var pcs [16]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, shims[0]) && !strings.HasPrefix(f.Function, shims[1]) &&
			!strings.HasPrefix(f.Function, "runtime.") {
			return filepath.Base(f.File) + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return ""
		}
	}
}

// stopFollowing ends c's following of its parent through an AfterFunc, c
// being canceled. The standard package's stop runs at once, also between
// two decisions (it only takes the parent's lock). A parent's own stop is
// code under test: it runs on the canceling goroutine, or on one of its own
// when a deadline cancels c between two decisions.
//
//go:norace
func (c *cancelCtx) stopFollowing(g *engine.G, t *engine.Timer) {
	stopNative, stop := c.stopNative, c.takeStop()
	if stop == nil {
		return
	}
	switch {
	case g != nil || stopNative:
		stop()
	case t != nil:
		t.Go(func() { stop() })
	}
}

//go:norace
func (c *cancelCtx) setDeadline(g *engine.G, d time.Time, cause error) {
	c.deadline, c.hasDL, c.ownDL = d, true, true
	if c.err != nil {
		return // canceled by its parent when it was made
	}
	dur := d.Sub(g.Now())
	if dur <= 0 {
		c.cancel(g, nil, context.DeadlineExceeded, cause)
		return
	}
	c.dlCause = cause
	c.timer = g.NewTimer(deadlinePassed, c)
	c.timer.Arm(dur)
}

// deadlinePassed is a deadline timer's fire function: t.Data is the context.
//
//go:norace
func deadlinePassed(t *engine.Timer, _ time.Time) {
	c := t.Data.(*cancelCtx)
	c.cancel(nil, t, context.DeadlineExceeded, c.dlCause)
}

// cancelFrom is a cancel function's call: a scheduling point, then cancel.
// From a goroutine that no run manages (one that code not rewritten
// started), it fails the run in progress as a misuse and ends that
// goroutine, as every shim does; once the run is over, it closes Done.
func (c *cancelCtx) cancelFrom(g *engine.G, err, cause error) {
	if g == nil {
		c.obj.CheckNative(engine.OpContext)
		c.cancelAfterRun(err, cause)
		return
	}
	g.Point(engine.OpContext, &c.obj)
	c.cancel(g, nil, err, cause)
}

// afterRun serializes the cancels of contexts whose run is over: their
// goroutines are gone, but plain goroutines may still cancel them.
var afterRun sync.Mutex

// cancelAfterRun cancels c and its children when their run is over: the
// scheduler's side (its channel, timers, AfterFunc goroutines) went with the
// run, so only Done and Err change.
func (c *cancelCtx) cancelAfterRun(err, cause error) {
	afterRun.Lock()
	c.closeAfterRun(err, cause)
	stop := c.takeStop()
	afterRun.Unlock()
	if stop != nil {
		stop() // code under test, maybe: not under the lock
	}
}

//go:norace
func (c *cancelCtx) takeStop() func() bool {
	stop := c.stop
	c.stop = nil
	return stop
}

//go:norace
func (c *cancelCtx) closeAfterRun(err, cause error) {
	if c.err != nil {
		return
	}
	if cause == nil {
		cause = err
	}
	c.err, c.cause = err, cause
	c.closeNative()
	for _, child := range c.children {
		child.closeAfterRun(err, cause)
	}
	c.children = nil
}

// cancel closes c and its children. It runs either in a managed goroutine g
// or, for a deadline, in the timer's fire function (g nil, t set), so it
// never blocks and has no scheduling point of its own.
//
//go:norace
func (c *cancelCtx) cancel(g *engine.G, t *engine.Timer, err, cause error) {
	if c.err != nil {
		return
	}
	if cause == nil {
		cause = err
	}
	engine.RaceAcquire(c.sync()) // the children's registrations (newCancelCtx)
	engine.RaceReleaseMerge(c.sync())
	c.err, c.cause = err, cause
	if c.done != nil {
		doneOps.Close(c.done)
	}
	c.closeNative()
	if c.timer != nil {
		c.timer.Disarm()
	}
	// Detached first: each child's cancel removes it from its parent's list.
	children := c.children
	c.children = nil
	for _, child := range children {
		child.cancel(g, t, err, cause)
	}
	for _, a := range c.funcs {
		if a.stopped || a.started {
			continue
		}
		a.started = true
		switch {
		case g != nil:
			g.Go(a.run)
		case t != nil:
			t.Go(a.run)
		}
	}
	if p := ours(c.parent); p != nil {
		p.removeChild(c)
	} else {
		c.stopFollowing(g, t)
	}
}

// release cancels c, a context AfterFunc made to follow a parent of another
// type, once its function is stopped: as the standard package's stop does,
// so that nothing waits for the parent any more.
func (c *cancelCtx) release(g *engine.G) {
	if g == nil {
		c.obj.CheckNative(engine.OpContext)
		c.cancelAfterRun(context.Canceled, nil)
		return
	}
	c.cancel(g, nil, context.Canceled, nil)
}

//go:norace
func (c *cancelCtx) removeChild(child *cancelCtx) {
	for i, x := range c.children {
		if x == child {
			c.children[i] = c.children[len(c.children)-1]
			c.children[len(c.children)-1] = nil
			c.children = c.children[:len(c.children)-1]
			return
		}
	}
}

func (c *cancelCtx) afterFunc(g *engine.G, f func()) func() bool {
	a := c.addFunc(g, f)
	return func() bool { return stopAfter(a) }
}

// addFunc arranges for f to run when c is canceled, or starts it now.
//
//go:norace
func (c *cancelCtx) addFunc(g *engine.G, f func()) *afterFunc {
	a := &afterFunc{f: f}
	engine.RaceReleaseMerge(unsafe.Pointer(&a.sync))
	if c.err != nil {
		a.started = true
		g.Go(a.run)
	} else {
		c.funcs = append(c.funcs, a)
	}
	return a
}

// AfterFunc is AfterFunc(c, f) as a method: the standard package's
// contexts made from c (context.WithCancel(c), a library's
// context.WithTimeout(c, d)) learn through it that c is done, in a managed
// goroutine, where without it each would start a goroutine of its own that
// the scheduler does not manage.
func (c *cancelCtx) AfterFunc(f func()) func() bool {
	if g := engine.Current(); g != nil {
		return c.afterFunc(g, f)
	}
	// Outside the run (a context of a run used after it): as the standard
	// package does for a parent it does not know.
	var state atomic.Int32 // 0: waiting, 1: f started, 2: stopped
	stopped := make(chan struct{})
	go func() {
		select {
		case <-c.nativeDone():
			if state.CompareAndSwap(0, 1) {
				f()
			}
		case <-stopped:
		}
	}()
	return func() bool {
		if state.CompareAndSwap(0, 2) {
			close(stopped)
			return true
		}
		return false
	}
}

//go:norace
func stopAfter(a *afterFunc) bool {
	if a.started || a.stopped {
		return false
	}
	a.stopped = true
	return true
}

//go:norace
func (c *cancelCtx) sync() unsafe.Pointer { return unsafe.Pointer(&c.raceSync) }

// Deadline returns the deadline, on the virtual clock inside a run.
//
//go:norace
func (c *cancelCtx) Deadline() (time.Time, bool) { return c.deadline, c.hasDL }

// Done returns a Go channel closed on cancellation, the same one at each
// call. Inside the run, the run has a channel of its own that stands for
// it, so that rewritten code's receives from it are scheduled.
func (c *cancelCtx) Done() <-chan struct{} {
	if g := c.obj.Running(); g != nil {
		c.schedDone(g)
	}
	return c.nativeDone()
}

// canceledMark is c.native's value for a context canceled before its
// Done channel was made.
var canceledMark = unsafe.Pointer(new(byte))

// nativeDone returns c's Go Done channel, made now if it has not been,
// closed if c is canceled.
func (c *cancelCtx) nativeDone() chan struct{} {
	for {
		p := atomic.LoadPointer(&c.native)
		if p != nil && p != canceledMark {
			return *(*chan struct{})(unsafe.Pointer(&p))
		}
		ch := make(chan struct{})
		if p == canceledMark {
			close(ch)
		}
		if atomic.CompareAndSwapPointer(&c.native, p, *(*unsafe.Pointer)(unsafe.Pointer(&ch))) {
			return ch
		}
	}
}

// closeNative closes c's Go Done channel, or marks it to be made closed;
// once, when c is canceled.
func (c *cancelCtx) closeNative() {
	for {
		p := atomic.LoadPointer(&c.native)
		if p == nil {
			if atomic.CompareAndSwapPointer(&c.native, nil, canceledMark) {
				return
			}
			continue
		}
		if p != canceledMark {
			close(*(*chan struct{})(unsafe.Pointer(&p)))
		}
		return
	}
}

// schedDone returns the run's channel for c's Done channel (g is a goroutine
// of c's run), made now if it has not been: it stands for the Go channel in
// the run's shadow table, also for a context of another type that returns
// it as its own Done (runDone), as the receive-only channel Done returns,
// which the run does not check for closes it did not see (c's cancel closes
// it natively).
//
//go:norace
func (c *cancelCtx) schedDone(g *engine.G) *chans.Chan[struct{}] {
	if c.done != nil {
		// As the standard package's Done loads its channel atomically:
		// what the goroutine that made it did comes before.
		engine.RaceAcquire(unsafe.Pointer(&c.done))
		return c.done
	}
	c.done = doneOps.New()
	engine.RaceReleaseMerge(unsafe.Pointer(&c.done))
	var done <-chan struct{} = c.nativeDone()
	g.SetShadow(*(*unsafe.Pointer)(unsafe.Pointer(&done)), done, c.done)
	if c.err != nil {
		doneOps.Close(c.done)
	}
	return c.done
}

// Err is nil until c is canceled, then Canceled or DeadlineExceeded. Inside
// a run it is a scheduling point, so a loop polling it lets other goroutines
// run.
func (c *cancelCtx) Err() error {
	if g := engine.Current(); g != nil {
		g.Point(engine.OpContext, &c.obj)
	}
	return c.getErr()
}

//go:norace
func (c *cancelCtx) getErr() error {
	if c.err != nil {
		engine.RaceAcquire(c.sync())
	}
	return c.err
}

//go:norace
func (c *cancelCtx) getCause() error {
	if c.err != nil {
		engine.RaceAcquire(c.sync())
	}
	return c.cause
}

// Value returns the value for key from the parent chain; it also lets this
// package find the context.
func (c *cancelCtx) Value(key any) any {
	if key == &cancelKey {
		return c
	}
	return c.parent.Value(key)
}

func (c *cancelCtx) String() string {
	if c.ownDL {
		return fmt.Sprintf("%v.WithDeadline(%v [%v])", c.parent, c.deadline, vtime.Until(c.deadline))
	}
	return fmt.Sprintf("%v.WithCancel", c.parent)
}
