package engine_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// TestCrash: the goroutines a crash ends never run again, blocked or
// runnable, are not woken, and are neither a deadlock nor a leak when the
// body returns; the others go on, a lock's next waiter included, though a
// crashed one waited before it; the crashed goroutines' deferred calls
// run only once the run is over.
func TestCrash(t *testing.T) {
	// Atomics: the deferred calls run in the teardown, which orders
	// nothing after the body for the race detector.
	var deferredInRun, deferred atomic.Int32
	var over atomic.Bool
	res, err := schedtest.Explore(schedtest.Options{Seed: 1, Iterations: 200}, func(st *schedtest.T) {
		var mu sched.Mutex
		ran := 0
		stop := chans.Make[struct{}](0)
		over.Store(false)
		mu.Lock()
		for range 3 { // goroutines 2 to 4
			sched.Go(func() {
				defer func() {
					deferred.Add(1)
					if !over.Load() {
						deferredInRun.Add(1)
					}
				}()
				for {
					mu.Lock() // the first ones wait here, before the survivor
					ran++
					mu.Unlock()
					sched.Yield()
				}
			})
		}
		survivor := chans.Make[int](1)
		sched.Go(func() { // goroutine 5
			vtime.Sleep(time.Millisecond) // the victims wait on mu first
			mu.Lock()
			mu.Unlock()
			stop.Recv()
			survivor.Send(1)
		})
		vtime.Sleep(time.Microsecond) // every goroutine has started
		live := native.NumGoroutine()
		n := engine.Current().Crash(func(h *engine.G) bool { return h.Num() >= 2 && h.Num() <= 4 })
		if n != 3 {
			st.Fatalf("Crash ended %d goroutines, want 3", n)
		}
		if after := native.NumGoroutine(); after != live-3 {
			st.Errorf("NumGoroutine is %d after the crash, %d before", after, live)
		}
		before := ran
		mu.Unlock()
		stop.Send(struct{}{})
		survivor.Recv()
		vtime.Sleep(time.Second)
		if ran != before {
			st.Errorf("the crashed goroutines ran %d more times", ran-before)
		}
		over.Store(true)
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if deferredInRun.Load() != 0 || deferred.Load() == 0 {
		t.Errorf("the crashed goroutines' deferred calls ran %d times in their runs and %d in all; want none in the run, each at its end", deferredInRun.Load(), deferred.Load())
	}
}

// TestCrashSelf: a goroutine that ends itself with the others does not
// return from Crash; the run goes on without it, and ends when the others
// do, with no failure; its crash is in the run's log.
func TestCrashSelf(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 2}, func(st *schedtest.T) {
		var wg sched.WaitGroup
		returned := false
		wg.Add(1)
		sched.Go(func() {
			defer wg.Done() // only at the run's end
			me := engine.Current().Num()
			num := chans.Make[int](1)
			sched.Go(func() {
				num.Send(engine.Current().Num())
				chans.Make[int](0).Recv() // blocked for ever, but crashed
			})
			child := num.Recv()
			engine.Current().Crash(func(h *engine.G) bool { return h.Num() == me || h.Num() == child })
			returned = true
		})
		vtime.Sleep(time.Second)
		if returned {
			st.Error("Crash returned to a goroutine it ended")
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if logs := strings.Join(res.Logs, "\n"); !strings.Contains(logs, "crash: goroutine(s) 2, 3 end") {
		t.Errorf("the log does not name the crashed goroutines:\n%s", logs)
	}
}

// TestCrashThenDeadlock: a goroutine that waits for one that crashed is
// deadlocked, and the report names it alone.
func TestCrashThenDeadlock(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		done := chans.Make[int](0)
		sched.Go(func() { vtime.Sleep(time.Second); done.Send(1) })
		sched.Yield()
		engine.Current().Crash(func(h *engine.G) bool { return h.Num() == 2 })
		done.Recv()
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || !strings.Contains(res.Failure.Error(), "deadlock: all goroutines are asleep: 1 blocked") {
		t.Fatalf("want a deadlock of the body alone, got %v", res.Failure)
	}
}
