package context_test

import (
	stdcontext "context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/context"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// start is where a run's virtual clock starts by default.
var start = time.Date(2025, time.June, 18, 14, 23, 47, 318204719, time.UTC)

// run executes body once under the scheduler and fails t if the run fails.
func run(t *testing.T, opts schedtest.Options, body func(*schedtest.T)) {
	t.Helper()
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	res, err := schedtest.Run(opts, body)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("run failed (seed %#x):\n%s", res.Seed, res.Failure)
	}
}

// explore runs body for n schedules from a fixed seed and fails t at the
// first failing one.
func explore(t *testing.T, n int, opts schedtest.Options, body func(*schedtest.T)) {
	t.Helper()
	if opts.Seed == 0 {
		opts.Seed = 7
	}
	opts.Iterations = n
	testutil.Pass(t, opts, body)
}

// at checks that the virtual clock reads want.
func at(t *schedtest.T, what string, want time.Time) {
	if got := vtime.Now(); !got.Equal(want) {
		t.Errorf("%s: vtime.Now() = %v, want %v (offset %v)", what, got, want, got.Sub(want))
	}
}

// canceled reports whether ctx's Done channel is closed, without blocking.
func canceled(ctx context.Context) bool {
	return chans.Select(context.Done(ctx).CaseRecv(nil), chans.Default()) == 0
}

type key string

func TestWithCancel(t *testing.T) {
	explore(t, 30, schedtest.Options{}, func(t *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		if err := ctx.Err(); err != nil {
			t.Errorf("Err before cancel = %v", err)
		}
		if canceled(ctx) {
			t.Error("Done closed before cancel")
		}
		if _, ok := ctx.Deadline(); ok {
			t.Error("WithCancel context has a deadline")
		}
		cancel()
		if err := ctx.Err(); err != context.Canceled {
			t.Errorf("Err after cancel = %v, want Canceled", err)
		}
		if !canceled(ctx) {
			t.Error("Done not closed after cancel")
		}
		select {
		case <-ctx.Done(): // the Go channel is closed too
		default:
			t.Error("ctx.Done() not closed after cancel")
		}
		cancel() // twice is fine
		if err := ctx.Err(); err != context.Canceled {
			t.Errorf("Err after second cancel = %v", err)
		}
		if context.Cause(ctx) != context.Canceled {
			t.Errorf("Cause = %v, want Canceled", context.Cause(ctx))
		}
	})
}

func TestDoneUnblocksWaiter(t *testing.T) {
	explore(t, 30, schedtest.Options{}, func(t *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		woke := chans.Make[time.Time](1)
		for range 3 {
			sched.Go(func() {
				context.Done(ctx).Recv()
				if ctx.Err() != context.Canceled {
					t.Errorf("woken with Err %v", ctx.Err())
				}
				woke.Send(vtime.Now())
			})
		}
		vtime.Sleep(5 * time.Second)
		if woke.Len() != 0 {
			t.Error("a waiter woke before cancel")
		}
		cancel()
		for range 3 {
			if got := woke.Recv(); !got.Equal(start.Add(5 * time.Second)) {
				t.Errorf("waiter woke at %v, want %v", got, start.Add(5*time.Second))
			}
		}
	})
}

func TestDoneInSelect(t *testing.T) {
	explore(t, 30, schedtest.Options{}, func(t *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		work := chans.Make[int](0)
		result := chans.Make[string](1)
		sched.Go(func() {
			n := 0
			for {
				var v int
				switch chans.Select(work.CaseRecv(&v), context.Done(ctx).CaseRecv(nil)) {
				case 0:
					n += v
				case 1:
					result.Send(fmt.Sprintf("%d %v", n, ctx.Err()))
					return
				}
			}
		})
		work.Send(1)
		work.Send(2)
		cancel()
		if got := result.Recv(); got != "3 context canceled" {
			t.Errorf("worker ended with %q", got)
		}
	})
}

func TestCancelPropagatesToChildrenNotParents(t *testing.T) {
	explore(t, 30, schedtest.Options{}, func(t *schedtest.T) {
		root, cancelRoot := context.WithCancel(context.Background())
		defer cancelRoot()
		parent, cancelParent := context.WithCancel(root)
		valued := context.WithValue(parent, key("k"), "v")
		child, cancelChild := context.WithCancel(valued)
		defer cancelChild()
		grandchild, cancelGrandchild := context.WithTimeout(child, time.Hour)
		defer cancelGrandchild()
		sibling, cancelSibling := context.WithCancel(root)
		defer cancelSibling()

		waiter := chans.Make[error](1)
		sched.Go(func() {
			context.Done(grandchild).Recv()
			waiter.Send(grandchild.Err())
		})

		cancelParent()
		for i, ctx := range []context.Context{parent, valued, child, grandchild} {
			name := []string{"parent", "valued", "child", "grandchild"}[i]
			if err := ctx.Err(); err != context.Canceled {
				t.Errorf("%s: Err = %v, want Canceled", name, err)
			}
			if !canceled(ctx) {
				t.Errorf("%s: Done not closed", name)
			}
		}
		if err := waiter.Recv(); err != context.Canceled {
			t.Errorf("grandchild waiter saw %v", err)
		}
		at(t, "after cancel", start)
		if root.Err() != nil || canceled(root) {
			t.Error("cancel propagated to the parent")
		}
		if sibling.Err() != nil {
			t.Error("cancel propagated to a sibling")
		}
		if got := grandchild.Value(key("k")); got != "v" {
			t.Errorf("Value through the chain = %v", got)
		}
	})
}

// Cancelling a context, or its deadline passing, cancels every one of its
// children, however many (each child's cancel leaves its parent's list
// while the parent goes through it).
func TestCancelReachesEveryChild(t *testing.T) {
	for _, byDeadline := range []bool{false, true} {
		t.Run(fmt.Sprintf("deadline=%v", byDeadline), func(t *testing.T) {
			explore(t, 20, schedtest.Options{}, func(t *schedtest.T) {
				var parent context.Context
				var cancel context.CancelFunc
				if byDeadline {
					parent, cancel = context.WithTimeout(context.Background(), time.Second)
				} else {
					parent, cancel = context.WithCancel(context.Background())
				}
				defer cancel()
				var kids []context.Context
				for range 4 {
					kid, cancelKid := context.WithCancel(parent)
					defer cancelKid()
					grandkid, cancelGrandkid := context.WithCancel(kid)
					defer cancelGrandkid()
					kids = append(kids, kid, grandkid)
				}
				if byDeadline {
					vtime.Sleep(2 * time.Second)
				} else {
					cancel()
				}
				want := context.Canceled
				if byDeadline {
					want = context.DeadlineExceeded
				}
				for i, kid := range kids {
					if err := kid.Err(); err != want || !canceled(kid) {
						t.Errorf("context %d: Err = %v, Done closed %v; want %v", i, err, canceled(kid), want)
					}
				}
			})
		})
	}
}

func TestCancelChildDoesNotCancelParent(t *testing.T) {
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		parent, cancelParent := context.WithCancel(context.Background())
		child, cancelChild := context.WithCancel(parent)
		cancelChild()
		if child.Err() != context.Canceled {
			t.Errorf("child Err = %v", child.Err())
		}
		if parent.Err() != nil {
			t.Errorf("parent Err = %v after canceling the child", parent.Err())
		}
		cancelParent()
		if child.Err() != context.Canceled {
			t.Errorf("child Err = %v", child.Err())
		}
	})
}

func TestChildOfCanceledParent(t *testing.T) {
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		parent, cancel := context.WithCancelCause(context.Background())
		boom := errors.New("boom")
		cancel(boom)
		child, cancelChild := context.WithCancel(parent)
		defer cancelChild()
		if child.Err() != context.Canceled || !canceled(child) {
			t.Errorf("child of a canceled parent: Err %v", child.Err())
		}
		if context.Cause(child) != boom {
			t.Errorf("child Cause = %v, want boom", context.Cause(child))
		}
	})
}

func TestWithCancelCause(t *testing.T) {
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		boom := errors.New("boom")
		ctx, cancel := context.WithCancelCause(context.Background())
		child, cancelChild := context.WithCancel(context.WithValue(ctx, key("a"), 1))
		defer cancelChild()
		if c := context.Cause(ctx); c != nil {
			t.Errorf("Cause before cancel = %v, want nil", c)
		}
		if c := context.Cause(child); c != nil {
			t.Errorf("child Cause before cancel = %v, want nil", c)
		}
		cancel(boom)
		if ctx.Err() != context.Canceled {
			t.Errorf("Err = %v, want Canceled", ctx.Err())
		}
		if c := context.Cause(ctx); c != boom {
			t.Errorf("Cause = %v, want boom", c)
		}
		if c := context.Cause(child); c != boom {
			t.Errorf("child Cause = %v, want the parent's boom", c)
		}
		cancel(errors.New("later")) // the first cause stays
		if c := context.Cause(ctx); c != boom {
			t.Errorf("Cause after second cancel = %v, want boom", c)
		}

		ctx2, cancel2 := context.WithCancelCause(context.Background())
		cancel2(nil)
		if c := context.Cause(ctx2); c != context.Canceled {
			t.Errorf("Cause after cancel(nil) = %v, want Canceled", c)
		}
		if c := context.Cause(context.Background()); c != nil {
			t.Errorf("Cause(Background) = %v", c)
		}
	})
}

func TestDeadlineIsVirtual(t *testing.T) {
	s := time.Date(2024, time.February, 29, 12, 0, 0, 0, time.UTC)
	run(t, schedtest.Options{Start: s}, func(t *schedtest.T) {
		vtime.Sleep(10 * time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		d, ok := ctx.Deadline()
		if !ok || !d.Equal(s.Add(10*time.Second+time.Minute)) {
			t.Errorf("Deadline = %v, %v; want %v", d, ok, s.Add(10*time.Second+time.Minute))
		}
		dl := s.Add(time.Hour)
		ctx2, cancel2 := context.WithDeadline(context.Background(), dl)
		defer cancel2()
		if d, ok := ctx2.Deadline(); !ok || !d.Equal(dl) {
			t.Errorf("Deadline = %v, %v; want %v", d, ok, dl)
		}
		child, cancelChild := context.WithCancel(context.WithValue(ctx2, key("k"), 1))
		defer cancelChild()
		if d, ok := child.Deadline(); !ok || !d.Equal(dl) {
			t.Errorf("child Deadline = %v, %v; want %v", d, ok, dl)
		}
	})
}

// A goroutine waiting for a result that comes only after an hour, or for
// the context, wakes at exactly the deadline.
func TestTimeoutWakesSelectAtDeadline(t *testing.T) {
	explore(t, 30, schedtest.Options{}, func(t *schedtest.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		slow := chans.Make[int](1)
		sched.Go(func() {
			vtime.Sleep(time.Hour)
			slow.Send(1)
		})
		switch chans.Select(slow.CaseRecv(nil), context.Done(ctx).CaseRecv(nil)) {
		case 0:
			t.Error("the slow result won")
		case 1:
			at(t, "woken by the deadline", start.Add(3*time.Second))
			if ctx.Err() != context.DeadlineExceeded {
				t.Errorf("Err = %v, want DeadlineExceeded", ctx.Err())
			}
			if context.Cause(ctx) != context.DeadlineExceeded {
				t.Errorf("Cause = %v, want DeadlineExceeded", context.Cause(ctx))
			}
		}
	})
}

func TestDeadlineReachesWaitingGoroutine(t *testing.T) {
	explore(t, 30, schedtest.Options{}, func(t *schedtest.T) {
		dl := start.Add(90 * time.Minute)
		ctx, cancel := context.WithDeadline(context.Background(), dl)
		defer cancel()
		child, cancelChild := context.WithCancel(ctx)
		defer cancelChild()
		woke := chans.Make[time.Time](2)
		for _, c := range []context.Context{ctx, child} {
			sched.Go(func() {
				context.Done(c).Recv()
				if c.Err() != context.DeadlineExceeded {
					t.Errorf("Err = %v, want DeadlineExceeded", c.Err())
				}
				woke.Send(vtime.Now())
			})
		}
		for range 2 {
			if got := woke.Recv(); !got.Equal(dl) {
				t.Errorf("woke at %v, want %v", got, dl)
			}
		}
	})
}

func TestParentEarlierDeadlineWins(t *testing.T) {
	explore(t, 20, schedtest.Options{}, func(t *schedtest.T) {
		parent, cancelParent := context.WithTimeout(context.Background(), time.Second)
		defer cancelParent()
		child, cancelChild := context.WithTimeout(parent, time.Hour)
		defer cancelChild()
		if d, ok := child.Deadline(); !ok || !d.Equal(start.Add(time.Second)) {
			t.Errorf("child Deadline = %v, %v; want the parent's %v", d, ok, start.Add(time.Second))
		}
		context.Done(child).Recv()
		at(t, "child done", start.Add(time.Second))
		if child.Err() != context.DeadlineExceeded {
			t.Errorf("child Err = %v, want DeadlineExceeded", child.Err())
		}
		// A child with an earlier deadline than its parent has its own.
		parent2, cancel2 := context.WithTimeout(context.Background(), time.Hour)
		defer cancel2()
		child2, cancelChild2 := context.WithTimeout(parent2, time.Minute)
		defer cancelChild2()
		context.Done(child2).Recv()
		at(t, "child2 done", start.Add(time.Second+time.Minute))
		if parent2.Err() != nil {
			t.Errorf("parent Err = %v after the child's deadline", parent2.Err())
		}
	})
}

func TestDeadlineInThePast(t *testing.T) {
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		vtime.Sleep(time.Minute)
		for _, d := range []time.Time{vtime.Now(), vtime.Now().Add(-time.Nanosecond), start.Add(-time.Hour)} {
			ctx, cancel := context.WithDeadline(context.Background(), d)
			if ctx.Err() != context.DeadlineExceeded {
				t.Errorf("deadline %v: Err = %v, want DeadlineExceeded at once", d, ctx.Err())
			}
			if !canceled(ctx) {
				t.Errorf("deadline %v: Done not closed", d)
			}
			if got, ok := ctx.Deadline(); !ok || !got.Equal(d) {
				t.Errorf("Deadline = %v, %v; want %v", got, ok, d)
			}
			cancel()
			if ctx.Err() != context.DeadlineExceeded {
				t.Errorf("Err after cancel = %v, want DeadlineExceeded", ctx.Err())
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
		defer cancel()
		if ctx.Err() != context.DeadlineExceeded {
			t.Errorf("negative timeout: Err = %v", ctx.Err())
		}
		at(t, "end", start.Add(time.Minute))
	})
}

func TestWithDeadlineCause(t *testing.T) {
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		slow := errors.New("too slow")
		ctx, cancel := context.WithDeadlineCause(context.Background(), start.Add(time.Second), slow)
		defer cancel()
		if c := context.Cause(ctx); c != nil {
			t.Errorf("Cause before the deadline = %v", c)
		}
		context.Done(ctx).Recv()
		at(t, "deadline", start.Add(time.Second))
		if ctx.Err() != context.DeadlineExceeded {
			t.Errorf("Err = %v, want DeadlineExceeded", ctx.Err())
		}
		if c := context.Cause(ctx); c != slow {
			t.Errorf("Cause = %v, want %v", c, slow)
		}

		// Canceled before the deadline: the cause is Canceled.
		ctx2, cancel2 := context.WithTimeoutCause(context.Background(), time.Second, slow)
		cancel2()
		if c := context.Cause(ctx2); c != context.Canceled {
			t.Errorf("Cause of a canceled WithTimeoutCause = %v, want Canceled", c)
		}
		// In the past: the cause at once.
		ctx3, cancel3 := context.WithDeadlineCause(context.Background(), start, slow)
		defer cancel3()
		if c := context.Cause(ctx3); c != slow || ctx3.Err() != context.DeadlineExceeded {
			t.Errorf("past deadline: Err %v Cause %v", ctx3.Err(), c)
		}
	})
}

func TestAfterFunc(t *testing.T) {
	explore(t, 30, schedtest.Options{}, func(t *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		ran := chans.Make[time.Time](0) // unbuffered: f blocks until received
		stop := context.AfterFunc(ctx, func() {
			if ctx.Err() == nil {
				t.Error("f ran before cancel")
			}
			ran.Send(vtime.Now())
		})
		vtime.Sleep(2 * time.Second)
		cancel() // f starts in its own goroutine: cancel does not wait for it
		vtime.Sleep(time.Second)
		if got := ran.Recv(); !got.Equal(start.Add(2 * time.Second)) {
			t.Errorf("f ran at %v, want %v", got, start.Add(2*time.Second))
		}
		if stop() {
			t.Error("stop after f ran = true, want false")
		}
	})
}

func TestAfterFuncOnDeadline(t *testing.T) {
	explore(t, 20, schedtest.Options{}, func(t *schedtest.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
		defer cancel()
		ran := chans.Make[time.Time](1)
		context.AfterFunc(ctx, func() { ran.Send(vtime.Now()) })
		if got := ran.Recv(); !got.Equal(start.Add(4 * time.Second)) {
			t.Errorf("f ran at %v, want %v", got, start.Add(4*time.Second))
		}
	})
}

func TestAfterFuncStop(t *testing.T) {
	explore(t, 20, schedtest.Options{}, func(t *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		ran := chans.Make[int](1)
		stop := context.AfterFunc(ctx, func() { ran.Send(1) })
		if !stop() {
			t.Error("stop before cancel = false, want true")
		}
		if stop() {
			t.Error("second stop = true, want false")
		}
		cancel()
		vtime.Sleep(time.Hour)
		if ran.Len() != 0 {
			t.Error("f ran after stop")
		}
	})
}

func TestAfterFuncAlreadyCanceled(t *testing.T) {
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		ran := chans.Make[int](0)
		stop := context.AfterFunc(ctx, func() { ran.Send(1) })
		ran.Recv()
		if stop() {
			t.Error("stop after f ran = true")
		}
	})
}

func TestWithoutCancel(t *testing.T) {
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		parent, cancel := context.WithTimeout(context.WithValue(context.Background(), key("k"), "v"), time.Second)
		ctx := context.WithoutCancel(parent)
		cancel()
		if parent.Err() != context.Canceled {
			t.Errorf("parent Err = %v", parent.Err())
		}
		if ctx.Err() != nil {
			t.Errorf("WithoutCancel Err = %v after the parent was canceled", ctx.Err())
		}
		if context.Cause(ctx) != nil {
			t.Errorf("WithoutCancel Cause = %v", context.Cause(ctx))
		}
		if _, ok := ctx.Deadline(); ok {
			t.Error("WithoutCancel has a deadline")
		}
		if ctx.Done() != nil || context.Done(ctx) != nil {
			t.Error("WithoutCancel has a Done channel")
		}
		if got := ctx.Value(key("k")); got != "v" {
			t.Errorf("Value = %v, want v", got)
		}
		// A cancelable child of it is independent of the original parent.
		child, cancelChild := context.WithTimeout(ctx, time.Minute)
		defer cancelChild()
		if child.Err() != nil {
			t.Errorf("child of WithoutCancel Err = %v", child.Err())
		}
		context.Done(child).Recv()
		at(t, "child deadline", start.Add(time.Minute))
		if got := child.Value(key("k")); got != "v" {
			t.Errorf("child Value = %v", got)
		}
	})
}

func TestBlockedOnDoneIsReportedAsLeak(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(t *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		_ = cancel // never called
		sched.Go(func() { context.Done(ctx).Recv() })
	})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Failure
	if f == nil {
		t.Fatal("run passed; want a leak")
	}
	if f.Kind != schedtest.Leak {
		t.Errorf("kind %q, want leak", f.Kind)
	}
	if !strings.Contains(f.Error(), "Context.Done") {
		t.Errorf("report lacks Context.Done:\n%s", f)
	}
	if !strings.Contains(f.Error(), "context_test.go:") {
		t.Errorf("report lacks the location:\n%s", f)
	}

	// Blocked in a select on Done and a channel nobody sends on.
	res, err = schedtest.Run(schedtest.Options{Seed: 1}, func(t *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		_ = cancel
		c := chans.Make[int](0)
		chans.Select(c.CaseRecv(nil), context.Done(ctx).CaseRecv(nil))
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || res.Failure.Kind != schedtest.Deadlock {
		t.Fatalf("want a deadlock, got %+v", res.Failure)
	}
}

// Err is a scheduling point: polling it lets the canceling goroutine run.
func TestErrPollingTerminates(t *testing.T) {
	explore(t, 50, schedtest.Options{MaxSteps: 20000}, func(t *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sched.WaitGroup
		wg.Go(func() {
			for ctx.Err() == nil {
			}
		})
		wg.Go(func() {
			for range 3 {
				sched.Yield()
			}
			cancel()
		})
		wg.Wait()
	})
}

func TestStringAndTypes(t *testing.T) {
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if got, want := fmt.Sprint(ctx), "context.Background.WithCancel"; got != want {
			t.Errorf("String = %q, want %q", got, want)
		}
		// A child of a deadline's context says WithCancel, as Go's does.
		// Regression (found in review, fixed): it took its parent's
		// deadline for its own and said WithDeadline again.
		dl, cancelDL := context.WithTimeout(context.Background(), time.Hour)
		defer cancelDL()
		child, cancelChild := context.WithCancel(dl)
		defer cancelChild()
		if got := fmt.Sprint(child); strings.Count(got, "WithDeadline(") != 1 || !strings.HasSuffix(got, ").WithCancel") {
			t.Errorf("String = %q, want context.Background.WithDeadline(...).WithCancel", got)
		}
		var _ stdcontext.Context = ctx
		if context.TODO() != stdcontext.TODO() || context.Background() != stdcontext.Background() {
			t.Error("Background/TODO differ from the standard ones")
		}
	})
}

// Outside a run every function is the standard one.
func TestOutsideRunMatchesStandard(t *testing.T) {
	// Outside a run, a deadline reads the real clock, which would move the
	// default start of the tests' runs after this one (engine.ClockStart).
	t.Cleanup(engine.ForgetRealReadings)
	type pair struct {
		name      string
		ours, go_ func() (stdcontext.Context, func())
	}
	boom := errors.New("boom")
	deadline := time.Now().Add(time.Hour)
	pairs := []pair{
		{"WithCancel",
			func() (stdcontext.Context, func()) {
				c, f := context.WithCancel(context.Background())
				return c, func() { f() }
			},
			func() (stdcontext.Context, func()) {
				c, f := stdcontext.WithCancel(stdcontext.Background())
				return c, func() { f() }
			}},
		{"WithCancelCause",
			func() (stdcontext.Context, func()) {
				c, f := context.WithCancelCause(context.Background())
				return c, func() { f(boom) }
			},
			func() (stdcontext.Context, func()) {
				c, f := stdcontext.WithCancelCause(stdcontext.Background())
				return c, func() { f(boom) }
			}},
		{"WithDeadline",
			func() (stdcontext.Context, func()) {
				c, f := context.WithDeadline(context.Background(), deadline)
				return c, func() { f() }
			},
			func() (stdcontext.Context, func()) {
				c, f := stdcontext.WithDeadline(stdcontext.Background(), deadline)
				return c, func() { f() }
			}},
		{"WithDeadlineCause",
			func() (stdcontext.Context, func()) {
				c, f := context.WithDeadlineCause(context.Background(), deadline, boom)
				return c, func() { f() }
			},
			func() (stdcontext.Context, func()) {
				c, f := stdcontext.WithDeadlineCause(stdcontext.Background(), deadline, boom)
				return c, func() { f() }
			}},
		{"WithTimeout",
			func() (stdcontext.Context, func()) {
				c, f := context.WithTimeout(context.Background(), time.Hour)
				return c, func() { f() }
			},
			func() (stdcontext.Context, func()) {
				c, f := stdcontext.WithTimeout(stdcontext.Background(), time.Hour)
				return c, func() { f() }
			}},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			a, cancelA := p.ours()
			b, cancelB := p.go_()
			if ta, tb := fmt.Sprintf("%T", a), fmt.Sprintf("%T", b); ta != tb {
				t.Errorf("type %s, standard %s", ta, tb)
			}
			_, okA := a.Deadline()
			_, okB := b.Deadline()
			if okA != okB {
				t.Errorf("has deadline %v, standard %v", okA, okB)
			}
			if a.Err() != nil || context.Cause(a) != nil {
				t.Errorf("before cancel: Err %v Cause %v", a.Err(), context.Cause(a))
			}
			cancelA()
			cancelB()
			context.Done(a).Recv() // closed: returns at once
			<-b.Done()
			if a.Err() != b.Err() {
				t.Errorf("Err %v, standard %v", a.Err(), b.Err())
			}
			if context.Cause(a) != stdcontext.Cause(b) {
				t.Errorf("Cause %v, standard %v", context.Cause(a), stdcontext.Cause(b))
			}
		})
	}

	t.Run("timeout", func(t *testing.T) {
		t0 := time.Now() // before the deadline is set: a busy machine may stall in between
		ctx, cancel := context.WithTimeoutCause(context.Background(), 3*time.Millisecond, boom)
		defer cancel()
		context.Done(ctx).Recv()
		if e := time.Since(t0); e < 2*time.Millisecond {
			t.Errorf("a 3ms timeout fired after %v", e)
		}
		if ctx.Err() != stdcontext.DeadlineExceeded || context.Cause(ctx) != boom {
			t.Errorf("Err %v Cause %v", ctx.Err(), context.Cause(ctx))
		}
	})

	t.Run("AfterFunc", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan struct{})
		stop := context.AfterFunc(ctx, func() { close(ran) })
		cancel()
		<-ran
		if stop() {
			t.Error("stop after f ran = true")
		}
		ctx2, cancel2 := context.WithCancel(context.Background())
		stop2 := context.AfterFunc(ctx2, func() { t.Error("stopped f ran") })
		if !stop2() {
			t.Error("stop before cancel = false")
		}
		cancel2()
	})

	t.Run("Select", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		c := chans.Make[int](0)
		cancel()
		if chans.Select(c.CaseRecv(nil), context.Done(ctx).CaseRecv(nil)) != 1 {
			t.Error("Select did not take the closed Done")
		}
		if context.Done(context.Background()) != nil {
			t.Error("Done(Background) is not nil")
		}
	})

	t.Run("WithoutCancelAndValue", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.WithValue(context.Background(), key("k"), "v"))
		ctx := context.WithoutCancel(parent)
		cancel()
		if ctx.Err() != nil || ctx.Value(key("k")) != "v" {
			t.Errorf("WithoutCancel: Err %v Value %v", ctx.Err(), ctx.Value(key("k")))
		}
		std := stdcontext.WithoutCancel(parent)
		if fmt.Sprintf("%T", ctx) != fmt.Sprintf("%T", std) {
			t.Errorf("type %T, standard %T", ctx, std)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		if context.Canceled != stdcontext.Canceled || context.DeadlineExceeded != stdcontext.DeadlineExceeded {
			t.Error("error values differ from the standard ones")
		}
	})
}

// A parent made outside the run (by the standard package) is checked when
// the child is made.
func TestStandardParentCanceledBeforeRun(t *testing.T) {
	boom := errors.New("boom")
	parent, cancel := stdcontext.WithCancelCause(stdcontext.Background())
	cancel(boom)
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		child, cancelChild := context.WithCancel(parent)
		defer cancelChild()
		if child.Err() != context.Canceled || !canceled(child) {
			t.Errorf("child of a canceled standard parent: Err %v", child.Err())
		}
		if context.Cause(child) != boom {
			t.Errorf("Cause = %v, want boom", context.Cause(child))
		}
	})
}

// firedElsewhere runs arm in the body, then blocks the body in wait, while
// a goroutine started before arm (so with no happens-before edge from it)
// yields until it is most likely the last runnable goroutine and then
// sleeps: the clock advances from that goroutine, and a deadline set by the
// body passes there. A correct program: under -race it must not report a
// data race.
func firedElsewhere(t *testing.T, arm func() (wait func())) {
	t.Helper()
	explore(t, 10, schedtest.Options{Strategy: "random"}, func(t *schedtest.T) {
		var wg sched.WaitGroup
		wg.Go(func() {
			for range 20 {
				sched.Yield()
			}
			vtime.Sleep(time.Hour)
		})
		wait := arm()
		wait()
		wg.Wait()
	})
}

func TestRaceDeadlinePassedByAnotherGoroutine(t *testing.T) {
	firedElsewhere(t, func() func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		return func() {
			context.Done(ctx).Recv()
			if ctx.Err() != context.DeadlineExceeded {
				panic(ctx.Err())
			}
			cancel()
		}
	})
}

// Regression (found in review, fixed): under -race, context.AfterFunc's f, when a deadline starts it, runs
// in a goroutine that the goroutine advancing the clock starts (t.Go from
// the deadline timer's fire function), with no happens-before edge from the
// goroutine that called AfterFunc: what f captured (here a channel made by
// the body) is reported as a data race. The standard package gives f a
// happens-before edge from AfterFunc. (Passes without -race.)
func TestRaceAfterFuncOnDeadlinePassedByAnotherGoroutine(t *testing.T) {
	firedElsewhere(t, func() func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		ran := chans.Make[int](0)
		context.AfterFunc(ctx, func() { ran.Send(1) })
		return func() {
			ran.Recv()
			cancel()
		}
	})
}

// Regression (found in review, fixed): under -race, context.AfterFunc's f, when another goroutine's cancel
// starts it, runs with no happens-before edge from the goroutine that
// called AfterFunc: registering f does not release anything that the
// cancel function acquires (the standard package registers f under the
// context's mutex, which cancel takes before it starts f). What f captured
// (here a channel the body made after starting the canceler) is reported
// as a data race. (Passes without -race.)
func TestRaceAfterFuncCanceledByAnotherGoroutine(t *testing.T) {
	explore(t, 10, schedtest.Options{Strategy: "random"}, func(t *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sched.WaitGroup
		wg.Go(func() {
			for range 20 {
				sched.Yield()
			}
			cancel()
		})
		ran := chans.Make[int](0)
		context.AfterFunc(ctx, func() { ran.Send(1) })
		ran.Recv()
		wg.Wait()
	})
}

func TestNilParentPanics(t *testing.T) {
	want := func() (r any) {
		defer func() { r = recover() }()
		_, cancel := stdcontext.WithCancel(nil)
		cancel()
		return nil
	}()
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		got := func() (r any) {
			defer func() { r = recover() }()
			_, cancel := context.WithCancel(nil)
			cancel()
			return nil
		}()
		if got != want {
			t.Errorf("WithCancel(nil) panicked with %v, want %v", got, want)
		}
	})
}

// Regression (found in review, fixed): the String of a deadline context differs from the standard
// package's: Go prints "<parent>.WithDeadline(<deadline> [<time until the
// deadline>])", the shim omits the " [<remaining>]" part.
func TestDeadlineString(t *testing.T) {
	run(t, schedtest.Options{}, func(t *schedtest.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		want := "context.Background.WithDeadline(" + start.Add(time.Second).String() + " [1s])"
		if got := fmt.Sprint(ctx); got != want {
			t.Errorf("String = %q, want %q", got, want)
		}
	})
}

// A context the standard package makes from one of a run's (as a library
// that takes a context does) is cancelled with it, through a managed
// goroutine: nothing runs outside the scheduler.
// Regression (found in review, fixed): the standard package started a
// goroutine of its own to watch the parent, and the run failed with an
// escape, or the child stayed uncancelled.
func TestStandardChildOfRunContext(t *testing.T) {
	explore(t, 30, schedtest.Options{}, func(t *schedtest.T) {
		parent, cancel := context.WithCancel(context.Background())
		child, cancelChild := stdcontext.WithTimeout(parent, time.Hour)
		defer cancelChild()
		cancel()
		for child.Err() == nil {
			sched.Yield()
		}
		if child.Err() != context.Canceled {
			t.Errorf("child: %v", child.Err())
		}
	})
}

// A cancel function of a run's context called by a goroutine that no run
// manages (started by code that was not rewritten) fails the run as a
// misuse naming who started it, instead of crashing the test binary; called
// after the run, it cancels.
func TestCancelFromOutsideTheRun(t *testing.T) {
	var cancel stdcontext.CancelFunc
	var ctx context.Context
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(t *schedtest.T) {
		ctx, cancel = context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { // a plain goroutine: no run manages it
			defer close(done)
			cancel()
		}()
		<-done
	})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Failure
	if f == nil || f.Kind != schedtest.Misuse {
		t.Fatalf("want a misuse, got %+v", f)
	}
	for _, want := range []string{"from a goroutine that no run manages", "it was started by github.com/dstgo/dst/sched/context_test.TestCancelFromOutsideTheRun.func1",
		"-rewrite=github.com/dstgo/dst/sched/context_test"} {
		if !strings.Contains(f.Error(), want) {
			t.Errorf("report lacks %q:\n%s", want, f)
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("the misused cancel canceled: %v", ctx.Err())
	}
	// After the run, a plain goroutine's cancel closes Done.
	done := make(chan struct{})
	go func() { defer close(done); cancel() }()
	<-done
	select {
	case <-ctx.Done():
	default:
		t.Fatal("Done is not closed after cancel")
	}
	if !errors.Is(ctx.Err(), stdcontext.Canceled) {
		t.Fatalf("Err = %v", ctx.Err())
	}
}

type valueKey struct{}

// TestCancelChildOfValueRace (under -race): a parent's cancel in another
// goroutine cancels a child made, after that goroutine started, on a
// value context of the parent: the cancel walks the child's parent chain,
// which the child's maker wrote, and is ordered after it as the standard
// package's registration under the parent's lock orders it. Regression
// (chi's TestMuxContextIsThreadSafe under -wrap -race): the race detector
// reported the walk as racing with context.WithValue.
func TestCancelChildOfValueRace(t *testing.T) {
	res, err := schedtest.Explore(schedtest.Options{Seed: 3, Iterations: 100}, func(st *schedtest.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sched.WaitGroup
		wg.Go(func() { cancel() })
		v := context.WithValue(ctx, valueKey{}, 1)
		child, stop := context.WithCancel(v)
		defer stop()
		wg.Wait()
		<-child.Done()
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}
