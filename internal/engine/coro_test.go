package engine

import (
	"testing"
	"time"
)

// Without a watchdog, a deferred call that blocks outside the scheduler
// while the run is unwound stops the unwinding for unwindLimit at most:
// Execute returns with the run's failure, and the rest is unwound when the
// call returns.
func TestUnwindBlockedWithoutWatchdog(t *testing.T) {
	defer func(d time.Duration) { unwindLimit = d }(unwindLimit)
	unwindLimit = 100 * time.Millisecond
	release := make(chan struct{})
	unwound := make(chan struct{})
	done := make(chan *Outcome)
	go func() {
		done <- Execute(Config{Watchdog: 0}, func() {
			g := Current()
			var q WaitQ
			o := NilObj("never", KindChan)
			g.Go(func() {
				defer close(unwound)
				defer func() { <-release }()
				q.Wait(Current(), OpRecv, o)
			})
			g.Go(func() { q.Wait(Current(), OpRecv, o) })
			g.Yield()
		})
	}()
	var out *Outcome
	select {
	case out = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Execute has not returned")
	}
	if out.Failure == nil || out.Failure.Kind != Leak {
		t.Fatalf("want the leak, got %v", out.Failure)
	}
	close(release)
	select {
	case <-unwound:
	case <-time.After(10 * time.Second):
		t.Fatal("the blocked deferred call's goroutine was not unwound")
	}
}

// The home may be slow to pass the turn on after a goroutine's end hands it
// the turn in the middle of a run (here: for longer than the watchdog's
// limit), either before it has marked itself running (resumed) or after
// (the switch away). The watchdog must not switch into the home's place
// before it is parked again: that place is the ended goroutine's coroutine,
// which has exited.
func TestWatchdogWaitsForTheHomeToPark(t *testing.T) {
	if !coroutines {
		t.Skip("under -race the handoff goes through semaphores: there is no home")
	}
	// The watchdog leaves a run alone while its turn is in the scheduler's
	// hands (inScheduler), as it is here: this test is about what happens
	// if it does not.
	defer func(w bool) { watchScheduler = w }(watchScheduler)
	watchScheduler = true
	for _, when := range []bool{true, false} {
		stalled := false
		homeHook = func(r *Run, resumed bool) {
			if resumed == when && r.root.state == gExited && !r.unwinding.Load() && !stalled {
				stalled = true
				time.Sleep(300 * time.Millisecond)
			}
		}
		out := Execute(Config{Watchdog: 100 * time.Millisecond, Strategy: Random}, func() {
			var q WaitQ
			o := NilObj("q", KindChan)
			Current().Go(func() {
				q.Wait(Current(), OpRecv, o)
				for range 3 {
					Current().Yield()
				}
			})
			for q.Len() == 0 {
				Current().Yield()
			}
			q.WakeOne()
			// The body returns with goroutine 2 runnable: its end hands the
			// turn to the home, which passes it on to goroutine 2.
		})
		homeHook = nil
		if !stalled {
			t.Fatalf("resumed %v: the home never passed the turn on in the middle of the run", when)
		}
		if out.Failure == nil || out.Failure.Kind != Watchdog {
			t.Fatalf("resumed %v: want the watchdog's failure, got %v", when, out.Failure)
		}
	}
}

// A run whose turn stays in the scheduler's hands for longer than the
// watchdog's limit (here the home, slow to pass the turn on; in runs of
// tens of thousands of goroutines, the runtime's work in a switch or an
// unwinding) is not a goroutine blocked or spinning in the code under
// test: the watchdog leaves it alone.
// Regression (issue 25): GoKer's Cockroach3710, 30,000 goroutines, failed
// with the default 5s watchdog, naming a goroutine without a stack.
func TestWatchdogLeavesTheSchedulerAlone(t *testing.T) {
	if !coroutines {
		t.Skip("under -race the handoff goes through semaphores: there is no home")
	}
	stalled := false
	homeHook = func(r *Run, resumed bool) {
		if resumed && r.root.state == gExited && !r.unwinding.Load() && !stalled {
			stalled = true
			time.Sleep(300 * time.Millisecond)
		}
	}
	defer func() { homeHook = nil }()
	out := Execute(Config{Watchdog: 100 * time.Millisecond, Strategy: Random}, func() {
		var q WaitQ
		o := NilObj("q", KindChan)
		Current().Go(func() {
			q.Wait(Current(), OpRecv, o)
			for range 3 {
				Current().Yield()
			}
		})
		for q.Len() == 0 {
			Current().Yield()
		}
		q.WakeOne()
	})
	if !stalled {
		t.Fatal("the home never passed the turn on in the middle of the run")
	}
	if out.Failure != nil {
		t.Fatalf("want the run to pass, got %v", out.Failure)
	}
}
