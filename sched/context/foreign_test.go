package context_test

import (
	stdcontext "context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/context"
	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// errForeign is what a foreign context's Err returns once it is done, so
// that a child canceled through it tells it from its own cancel.
var errForeign = errors.New("foreign context done")

// foreignCtx is a Context of a type the code under test defines, as
// github.com/benbjohnson/clock's mock deadline context is: neither this
// package's nor the standard one's. Its Done channel is made and closed as
// rewritten code makes and closes one (package native: the run's channel
// inside a run, a plain one outside), by its own cancel.
type foreignCtx struct {
	done chan struct{}
	err  error
}

func newForeign() *foreignCtx { return &foreignCtx{done: native.Make[chan struct{}](0)} }

func (f *foreignCtx) cancel() {
	f.err = errForeign
	native.Close(f.done)
}

func (f *foreignCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (f *foreignCtx) Done() <-chan struct{}       { return f.done }
func (f *foreignCtx) Err() error                  { return f.err }
func (f *foreignCtx) Value(key any) any           { return nil }

// afterFuncCtx is a foreignCtx with an AfterFunc method, which the
// standard package uses to follow it instead of a goroutine.
type afterFuncCtx struct {
	foreignCtx
	funcs []func() // nil once stopped or started
	calls int      // of AfterFunc
	stops int      // calls of a stop that stopped
}

func newAfterFuncCtx() *afterFuncCtx { return &afterFuncCtx{foreignCtx: *newForeign()} }

func (a *afterFuncCtx) AfterFunc(f func()) func() bool {
	a.calls++
	i := len(a.funcs)
	a.funcs = append(a.funcs, f)
	return func() bool {
		if a.funcs[i] == nil {
			return false
		}
		a.funcs[i] = nil
		a.stops++
		return true
	}
}

func (a *afterFuncCtx) cancel() {
	a.foreignCtx.cancel()
	for i, f := range a.funcs {
		if f != nil {
			a.funcs[i] = nil
			native.Go(f)
		}
	}
}

// checkFollowed checks that child was canceled through its foreign
// parent: Done closed, Err and Cause the parent's Err.
func checkFollowed(t interface{ Errorf(string, ...any) }, what string, child context.Context) {
	select {
	case <-child.Done():
	default:
		t.Errorf("%s: Done not closed", what)
	}
	if err := child.Err(); err != errForeign {
		t.Errorf("%s: Err = %v, want the parent's %v", what, err, errForeign)
	}
	if cause := context.Cause(child); cause != errForeign {
		t.Errorf("%s: Cause = %v, want the parent's Err %v", what, cause, errForeign)
	}
}

// A child of a foreign context is canceled when the parent is, with the
// parent's Err as its Err and its Cause, as in Go (a goroutine waits for
// the parent's Done channel): through WithCancel, WithCancelCause,
// WithTimeout, a WithValue in between, and for AfterFunc.
// Regression (a tool fault found on github.com/benbjohnson/clock@v1.3.5's
// TestMock_WithDeadlineLaterThanCurrent): the parent was checked once,
// when the child was made, and the child stayed uncanceled.
func TestForeignParentCancelsChild(t *testing.T) {
	explore(t, 30, schedtest.Options{}, func(t *schedtest.T) {
		parent := newForeign()
		c1, cancel1 := context.WithCancel(parent)
		defer cancel1()
		c2, cancel2 := context.WithCancelCause(parent)
		defer cancel2(errors.New("not this one"))
		c3, cancel3 := context.WithTimeout(parent, time.Hour)
		defer cancel3()
		c4, cancel4 := context.WithCancel(context.WithValue(parent, key("k"), "v"))
		defer cancel4()
		ran := chans.Make[time.Time](1)
		context.AfterFunc(parent, func() { ran.Send(vtime.Now()) })
		if c1.Err() != nil || canceled(c1) {
			t.Errorf("child done before its parent: %v", c1.Err())
		}
		sched.Go(func() {
			vtime.Sleep(5 * time.Second)
			parent.cancel()
		})
		for i, c := range []context.Context{c1, c2, c3, c4} {
			context.Done(c).Recv()
			at(t, "child canceled", start.Add(5*time.Second))
			checkFollowed(t, []string{"WithCancel", "WithCancelCause", "WithTimeout", "WithValue.WithCancel"}[i], c)
		}
		if got := ran.Recv(); !got.Equal(start.Add(5 * time.Second)) {
			t.Errorf("AfterFunc's f ran at %v", got)
		}
	})
}

// The same outside a run: the standard package's behaviour.
func TestForeignParentCancelsChildOutsideRun(t *testing.T) {
	// Outside a run, a deadline reads the real clock, which would move the
	// default start of the tests' runs after this one (engine.ClockStart).
	t.Cleanup(engine.ForgetRealReadings)
	parent := newForeign()
	child, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	ran := make(chan struct{})
	context.AfterFunc(parent, func() { close(ran) })
	go parent.cancel()
	<-child.Done()
	<-ran
	checkFollowed(t, "outside a run", child)
}

// A child made of a foreign context that is already done is done at once.
func TestForeignParentAlreadyDone(t *testing.T) {
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		parent := newForeign()
		parent.cancel()
		child, cancel := context.WithCancel(parent)
		defer cancel()
		checkFollowed(t, "child of a done parent", child)
		ran := chans.Make[int](0)
		context.AfterFunc(parent, func() { ran.Send(1) })
		ran.Recv()
	})
}

// The goroutine that waits for a foreign parent exits when the child is
// canceled first: nothing leaks, whether the child is canceled by its
// cancel function or by its deadline, and an AfterFunc stopped before the
// parent is done leaves nothing behind either.
func TestForeignParentWatcherExitsWithChild(t *testing.T) {
	explore(t, 20, schedtest.Options{}, func(t *schedtest.T) {
		parent := newForeign() // never canceled
		child, cancel := context.WithCancel(parent)
		timed, cancelTimed := context.WithTimeout(parent, time.Second)
		defer cancelTimed()
		stop := context.AfterFunc(parent, func() { t.Error("a stopped f ran") })
		cancel()
		if child.Err() != context.Canceled {
			t.Errorf("child Err = %v", child.Err())
		}
		context.Done(timed).Recv()
		if timed.Err() != context.DeadlineExceeded {
			t.Errorf("timed child Err = %v", timed.Err())
		}
		if !stop() {
			t.Error("stop before the parent is done = false")
		}
		if stop() {
			t.Error("second stop = true")
		}
	})
}

// As in Go, the goroutine stays while neither the parent nor the child is
// canceled: the leak oracle reports it, as goleak would.
func TestForeignParentNeitherCanceledLeaks(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(t *schedtest.T) {
		_, cancel := context.WithCancel(newForeign())
		_ = cancel // never called
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || res.Failure.Kind != schedtest.Leak {
		t.Fatalf("want a leak, got %+v", res.Failure)
	}
}

// A parent with an AfterFunc method is followed through it, with no
// goroutine (Go 1.21 on); a child canceled first stops it.
func TestForeignAfterFuncParent(t *testing.T) {
	explore(t, 20, schedtest.Options{}, func(t *schedtest.T) {
		parent := newAfterFuncCtx()
		child, cancel := context.WithCancel(parent)
		defer cancel()
		other, cancelOther := context.WithCancel(parent)
		if parent.calls != 2 {
			t.Errorf("AfterFunc called %d times, want 2", parent.calls)
		}
		cancelOther()
		if parent.stops != 1 || other.Err() != context.Canceled {
			t.Errorf("canceling a child stopped %d functions (want 1); Err %v", parent.stops, other.Err())
		}
		sched.Go(parent.cancel)
		context.Done(child).Recv()
		checkFollowed(t, "child of an AfterFunc parent", child)
	})
}

// A parent made outside the run by the standard package (the enclosing
// test's context, say) is followed through the standard package's
// AfterFunc, with no goroutine: a child nobody cancels leaks nothing, and
// is canceled when the parent is, after the run.
func TestStandardParentCanceledAfterRun(t *testing.T) {
	boom := errors.New("boom")
	parent, cancelParent := stdcontext.WithCancelCause(stdcontext.Background())
	var child context.Context
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		var cancel context.CancelFunc
		child, cancel = context.WithCancel(context.WithValue(parent, key("k"), "v"))
		_ = cancel // never called
	})
	if child.Err() != nil {
		t.Fatalf("child canceled before its parent: %v", child.Err())
	}
	cancelParent(boom)
	select {
	case <-child.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("child not canceled after its standard parent was")
	}
	if child.Err() != context.Canceled || context.Cause(child) != boom {
		t.Errorf("Err %v Cause %v, want Canceled and boom", child.Err(), context.Cause(child))
	}
}

// A foreign context whose Done channel was made outside the run (before
// it, by rewritten code) is followed once the run adopts the channel, and
// rewritten code that closes it inside the run wakes the child.
func TestForeignParentMadeBeforeRun(t *testing.T) {
	parent := newForeign()
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		child, cancel := context.WithCancel(parent)
		defer cancel()
		sched.Go(parent.cancel)
		context.Done(child).Recv()
		checkFollowed(t, "child of a parent made before the run", child)
	})
}

// A foreign parent's Done channel closed by code the scheduler does not
// see (here a plain close, as a dependency that was not rewritten makes)
// cannot wake the run: when it stalls, the report says so and names where
// the run adopted the channel.
func TestForeignParentClosedUnseen(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(t *schedtest.T) {
		done := make(chan struct{})
		parent := &foreignCtx{done: done}
		child, cancel := context.WithCancel(parent)
		defer cancel()
		parent.err = errForeign
		close(done) // not native.Close: the run does not see it
		context.Done(child).Recv()
	})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Failure
	if f == nil || f.Kind != schedtest.Misuse {
		t.Fatalf("want a misuse, got %+v", f)
	}
	if !strings.Contains(f.Error(), "a close of a chan struct {} that the run adopted at foreign_test.go:") {
		t.Errorf("report lacks the adopted channel:\n%s", f)
	}
}

// syncAfterFuncCtx runs its functions in its cancel, in order, and counts
// every call of a stop function it returned.
type syncAfterFuncCtx struct {
	foreignCtx
	funcs     []func()
	stopCalls int
}

func (a *syncAfterFuncCtx) AfterFunc(f func()) func() bool {
	a.funcs = append(a.funcs, f)
	return func() bool { a.stopCalls++; return false }
}

func (a *syncAfterFuncCtx) cancel() {
	a.foreignCtx.cancel()
	for _, f := range a.funcs {
		f()
	}
}

// A child that its parent cancels does not call the parent's stop: in Go
// only a cancel of the child itself does (a parent that runs its functions
// as it ranges over them, and whose stop removes one, would skip a
// sibling, or deadlock on its own lock).
func TestParentCancelDoesNotStopFollowing(t *testing.T) {
	explore(t, 20, schedtest.Options{}, func(t *schedtest.T) {
		parent := &syncAfterFuncCtx{foreignCtx: *newForeign()}
		a, cancelA := context.WithCancel(parent)
		defer cancelA()
		b, cancelB := context.WithCancel(parent)
		defer cancelB()
		sched.Go(parent.cancel)
		context.Done(a).Recv()
		context.Done(b).Recv()
		if parent.stopCalls != 0 {
			t.Errorf("the parent's cancel made its children call its stop %d times, want 0", parent.stopCalls)
		}
		checkFollowed(t, "first child", a)
		checkFollowed(t, "second child", b)
	})
}

// A standard parent canceled during the run, by a managed goroutine, is a
// moment of real time to the run (the standard package's AfterFunc runs
// in a goroutine of its own): the child is canceled once the run is over,
// the same way for every execution of the seed.
func TestStandardParentCanceledDuringRun(t *testing.T) {
	for range 20 {
		parent, cancelParent := stdcontext.WithCancel(stdcontext.Background())
		var child context.Context
		run(t, schedtest.Options{}, func(t *schedtest.T) {
			var cancel context.CancelFunc
			child, cancel = context.WithCancel(parent)
			_ = cancel // never called
			sched.Go(cancelParent)
			for range 50 {
				vtime.Sleep(time.Millisecond)
			}
			if child.Err() != nil {
				t.Errorf("the child was canceled during the run: %v", child.Err())
			}
		})
		select {
		case <-child.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("child not canceled after the run, though its standard parent was during it")
		}
		if child.Err() != context.Canceled {
			t.Fatalf("Err %v, want Canceled", child.Err())
		}
	}
}

// wrapper is a context of another type whose Done is a context of this
// package's, and that hides it from Value.
type wrapper struct{ context.Context }

func (wrapper) Value(any) any { return nil }

// A child of such a wrapper waits on the run's channel of the wrapped
// context: its cancel wakes the child.
func TestForeignWrapperOfOurs(t *testing.T) {
	explore(t, 20, schedtest.Options{}, func(t *schedtest.T) {
		inner, cancelInner := context.WithCancel(context.Background())
		child, cancel := context.WithCancel(wrapper{inner})
		defer cancel()
		sched.Go(cancelInner)
		context.Done(child).Recv()
		if child.Err() != context.Canceled {
			t.Errorf("child of a wrapper: Err = %v, want the wrapped context's Canceled", child.Err())
		}
	})
}
