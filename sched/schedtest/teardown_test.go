package schedtest_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/schedtest"
	"go.uber.org/goleak"
)

// When a run ends with goroutines blocked forever, the scheduler unwinds
// them one at a time with runtime.Goexit so that their deferred calls run.
// Those deferred calls still run as managed goroutines of the run.
func TestTeardownDeferredCallsAreManaged(t *testing.T) {
	var recovered []string
	res, _ := schedtest.Run(schedtest.Options{Seed: 1, Strategy: "random"}, func(t *schedtest.T) {
		var mu, other sched.Mutex
		other.Lock()
		other.Unlock()
		mu.Lock()
		for range 2 {
			sched.Go(func() {
				defer sched.Go(func() { t.Log("started during teardown") })
				defer func() {
					defer func() { recovered = append(recovered, fmt.Sprint(recover())) }()
					other.Lock()
					other.Unlock()
					sched.Yield()
					t.Log("deferred call ran")
				}()
				mu.Lock() // blocked forever: the body returns holding mu
			})
		}
	})
	if res.Failure == nil || res.Failure.Kind != schedtest.Leak {
		t.Fatalf("want a leak, got %v", res.Failure)
	}
	// Two leaked goroutines, in the run and in its re-execution with
	// source locations.
	if len(recovered) < 2 || strings.Trim(strings.ReplaceAll(fmt.Sprint(recovered), "<nil>", ""), "[] ") != "" {
		t.Fatalf("deferred calls during teardown panicked: %v", recovered)
	}
}

// A deferred call that spins after the run's end is decided, waiting for a
// goroutine that will never run again, is cut short instead of hanging.
func TestFatalThenDeferredSpinEnds(t *testing.T) {
	done := make(chan *schedtest.Result)
	go func() {
		res, _ := schedtest.Run(schedtest.Options{Seed: 1, Strategy: "random", MaxSteps: 1000}, func(t *schedtest.T) {
			var ready atomic.Bool
			var wg sched.WaitGroup
			wg.Add(1)
			sched.Go(func() { wg.Wait(); ready.Store(true) })
			defer func() {
				for !ready.Load() {
					sched.Yield()
				}
			}()
			defer wg.Done()
			t.Fatal("boom")
		})
		done <- res
	}()
	select {
	case res := <-done:
		if res.Failure == nil || res.Failure.Kind != schedtest.TestFailed {
			t.Fatalf("want the test failure, got %v", res.Failure)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end")
	}
}

// A panic in a deferred call after t.Fatal is the failure reported, as it
// would crash the test binary in Go.
func TestPanicAfterFatalWins(t *testing.T) {
	res, _ := schedtest.Run(schedtest.Options{Seed: 1}, func(t *schedtest.T) {
		defer func() { panic("in a deferred call") }()
		t.Fatal("first")
	})
	if res.Failure == nil || res.Failure.Kind != schedtest.Panic || !strings.Contains(res.Failure.Message, "in a deferred call") {
		t.Fatalf("got %v", res.Failure)
	}
}

var (
	lazyOnce sched.Once
	lazyInit sched.Mutex
	lazyConf *int
)

// Teardown unwinds an f blocked forever inside Once.Do; Go would never
// complete it, so the Once must not become done.
func TestTeardownLeavesOnceUndone(t *testing.T) {
	body := func(t *schedtest.T) {
		lazyInit.Lock()
		lazyOnce.Do(func() {
			lazyInit.Lock() // self-deadlock
			v := 1
			lazyConf = &v
		})
		lazyInit.Unlock()
		_ = *lazyConf
	}
	for i := range 2 {
		res, _ := schedtest.Run(schedtest.Options{Seed: 1}, body)
		if res.Failure == nil || res.Failure.Kind != schedtest.Deadlock {
			t.Fatalf("run %d: want the deadlock again, got %v", i, res.Failure)
		}
	}
}

// Teardown waits for each goroutine's deferred calls in turn, for at most
// the watchdog period. Under -race (semaphore handoff) it then goes on with
// the next goroutine, and an ack that arrives after its goroutine's turn
// timed out is not taken for the next goroutine's. Without -race the
// goroutines are coroutines and nothing else can run while one blocks
// outside the scheduler: the run is reported over, and the goroutines after
// the blocked one are unwound, in order, once it returns.
func TestTeardownWaitsForEachGoroutine(t *testing.T) {
	var mu sync.Mutex
	var events []string
	ev := func(s string) {
		mu.Lock()
		events = append(events, s)
		mu.Unlock()
	}
	schedtest.Run(schedtest.Options{Seed: 1, Strategy: "random", Watchdog: 300 * time.Millisecond}, func(t *schedtest.T) {
		var m sched.Mutex
		m.Lock()
		sched.Go(func() {
			defer func() { time.Sleep(500 * time.Millisecond); ev("slow") }() // longer than the teardown allows
			m.Lock()
		})
		sched.Go(func() {
			defer func() { time.Sleep(50 * time.Millisecond); ev("quick") }()
			m.Lock()
		})
		t.Cleanup(func() { ev("run over") })
	})
	time.Sleep(600 * time.Millisecond) // let the slow one finish
	mu.Lock()
	defer mu.Unlock()
	if !engine.RaceEnabled {
		// Each run (the failing one and its detailed re-execution) is over
		// before its slow deferred call returns, and quick follows slow.
		n := map[string]int{}
		for _, e := range events {
			n[e]++
			if n["quick"] > n["slow"] || n["slow"] > n["run over"] {
				t.Fatalf("events out of order: %v", events)
			}
		}
		if len(events) != 6 || n["quick"] != 2 {
			t.Fatalf("want every deferred call of both runs, got %v", events)
		}
		return
	}
	if strings.Join(events, ",") != "quick,run over,slow" && strings.Join(events, ",") != "run over,slow,quick" {
		// The slow goroutine's turn ran first: quick must still finish
		// before the run is over.
		if i := indexOf(events, "quick"); i < 0 || i > indexOf(events, "run over") {
			t.Fatalf("the run ended before a deferred call finished: %v", events)
		}
	}
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

// A Cond waiter blocked inside L.Unlock (here a Locker that read-locks an
// RWMutex while a writer holds it) is not woken from there by Signal.
type auditLocker struct {
	mu    sched.Mutex
	stats *sched.RWMutex
}

func (l *auditLocker) Lock() { l.mu.Lock() }
func (l *auditLocker) Unlock() {
	l.stats.RLock()
	l.stats.RUnlock()
	l.mu.Unlock()
}

func TestSignalWakesOnlySleepingWaiters(t *testing.T) {
	res := testutil.Explore(t, schedtest.Options{Iterations: 500, Seed: 7}, func(t *schedtest.T) {
		var stats sched.RWMutex
		l := &auditLocker{stats: &stats}
		c := sched.NewCond(l)
		var wg sched.WaitGroup
		wg.Go(func() {
			stats.Lock()
			c.Signal()
			sched.Yield()
			stats.Unlock()
		})
		wg.Go(func() {
			l.Lock()
			c.Wait()
			l.Unlock()
		})
		wg.Go(func() {
			for range 3 {
				sched.Yield()
				c.Signal()
			}
		})
		wg.Wait()
	})
	if res.Failure != nil && res.Failure.Kind != schedtest.Deadlock && res.Failure.Kind != schedtest.Leak {
		t.Fatalf("schedule %d:\n%s", res.Schedule, res.Failure)
	}
}

// If f panics, WaitGroup.Go does not mark the goroutine done (Go 1.25+), and
// the report shows where f panicked.
func TestWaitGroupGoPanicKeepsStack(t *testing.T) {
	res, _ := schedtest.Run(schedtest.Options{Seed: 1}, func(t *schedtest.T) {
		var wg sched.WaitGroup
		wg.Go(func() { explode() })
		wg.Wait()
	})
	if res.Failure == nil || res.Failure.Kind != schedtest.Panic || !strings.Contains(res.Failure.Error(), "schedtest_test.explode") {
		t.Fatalf("got %v", res.Failure)
	}
}

func explode() { panic("exploded") }

func TestTWithoutEnclosingTest(t *testing.T) {
	var dir string
	res, _ := schedtest.Run(schedtest.Options{}, func(st *schedtest.T) {
		dir = st.TempDir()
		if st.Context() == nil || st.Name() != "schedtest.Run" {
			st.Error("Context or Name")
		}
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "T.Setenv needs an enclosing test") {
				st.Errorf("Setenv under Run: %v", r)
			}
		}()
		st.Setenv("X", "1")
	})
	if res.Failure != nil {
		t.Fatal(res.Failure)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the run's TempDir %q was not removed: %v", dir, err)
	}
}

// The goroutine the watchdog gave up on may resume later and call into the
// scheduler again: it leaves at its next scheduling point, and only then are
// the run's other goroutines unwound, so nothing is left behind.
// The same when it returns without reaching a scheduling point, when it
// calls t.FailNow, and when it is the test body itself.
func TestWatchdogCleanupAfterResume(t *testing.T) {
	for _, c := range []struct {
		name  string
		after func(t *schedtest.T, mu *sched.Mutex)
		root  bool
	}{
		{"lock", func(t *schedtest.T, mu *sched.Mutex) { mu.Lock(); mu.Unlock() }, false},
		{"return", func(t *schedtest.T, mu *sched.Mutex) {}, false},
		{"fatal", func(t *schedtest.T, mu *sched.Mutex) { t.Fatal("late") }, false},
		{"body", func(t *schedtest.T, mu *sched.Mutex) { mu.Lock(); mu.Unlock() }, true},
	} {
		t.Run(c.name, func(tt *testing.T) {
			before := goleak.IgnoreCurrent()
			release := make(chan struct{})
			res, _ := schedtest.Run(schedtest.Options{Seed: 1, Watchdog: 100 * time.Millisecond}, func(t *schedtest.T) {
				var mu sched.Mutex
				var wg sched.WaitGroup
				mu.Lock()
				wg.Go(func() {
					mu.Lock() // blocked when the other one blocks outside
					mu.Unlock()
				})
				sched.Yield()
				mu.Unlock()
				if c.root {
					<-release // blocks outside the scheduler
					c.after(t, &mu)
					return
				}
				wg.Go(func() {
					<-release // blocks outside the scheduler
					c.after(t, &mu)
				})
				wg.Wait()
			})
			if res.Failure == nil || res.Failure.Kind != schedtest.Watchdog {
				tt.Fatalf("want the watchdog, got %v", res.Failure)
			}
			close(release)
			goleak.VerifyNone(tt, before)
		})
	}
}

// Every way a run can end leaves no goroutine behind once Run returns:
// without -race the managed goroutines are coroutines, and their ends
// (return, panic, Goexit, unwinding) each take a different path.
func TestEveryEndLeavesNothing(t *testing.T) {
	worker := func(mu *sched.Mutex, n int) func() {
		return func() {
			for range n {
				mu.Lock()
				mu.Unlock()
			}
		}
	}
	cases := []struct {
		name string
		body func(t *schedtest.T)
	}{
		{"pass", func(t *schedtest.T) {
			var mu sched.Mutex
			var wg sched.WaitGroup
			wg.Go(worker(&mu, 3))
			wg.Go(worker(&mu, 3))
			wg.Wait()
		}},
		{"body returns first", func(t *schedtest.T) {
			var mu sched.Mutex
			sched.Go(worker(&mu, 5))
			sched.Go(worker(&mu, 5))
		}},
		{"panic in a child", func(t *schedtest.T) {
			var mu sched.Mutex
			sched.Go(worker(&mu, 5))
			sched.Go(func() { mu.Lock(); panic("boom") })
			worker(&mu, 5)()
		}},
		{"fatal in a child", func(t *schedtest.T) {
			var mu sched.Mutex
			sched.Go(worker(&mu, 5))
			sched.Go(func() { defer sched.Yield(); t.Fatal("stop") })
			worker(&mu, 5)()
		}},
		{"goexit in the body", func(t *schedtest.T) {
			var mu sched.Mutex
			sched.Go(worker(&mu, 5))
			defer func() { recover() }() // Goexit is not a panic: nothing to recover
			runtime.Goexit()
		}},
		{"goexit in a child", func(t *schedtest.T) {
			var mu sched.Mutex
			sched.Go(worker(&mu, 5))
			sched.Go(func() { defer sched.Yield(); mu.Lock(); runtime.Goexit() })
			worker(&mu, 5)()
		}},
		{"panic during goexit", func(t *schedtest.T) {
			sched.Go(func() { sched.Yield() })
			defer func() { panic("in a deferred call") }()
			t.FailNow()
		}},
		{"deadlock", func(t *schedtest.T) {
			var a, b sched.Mutex
			a.Lock()
			sched.Go(func() { b.Lock(); a.Lock() })
			sched.Yield()
			b.Lock()
		}},
		{"leak with deferred calls", func(t *schedtest.T) {
			var mu sched.Mutex
			mu.Lock()
			for range 3 {
				sched.Go(func() {
					defer sched.Yield()
					defer func() { recover() }()
					mu.Lock()
				})
			}
		}},
		{"spawned, never run", func(t *schedtest.T) {
			sched.Go(func() {})
			panic("before the child's first turn")
		}},
		{"livelock", func(t *schedtest.T) {
			for {
				sched.Yield()
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(tt *testing.T) {
			before := goleak.IgnoreCurrent()
			for seed := uint64(1); seed <= 5; seed++ {
				for _, st := range []string{"random", "pct", "pos"} {
					schedtest.Run(schedtest.Options{Seed: seed, Strategy: st, MaxSteps: 500}, c.body)
				}
			}
			goleak.VerifyNone(tt, before)
		})
	}
}
