package sched_test

import (
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// TestMethodSetsMatchSync fails when a shim lacks a method of its sync
// counterpart (or has one sync lacks), so code switches between them by
// changing only the import.
func TestMethodSetsMatchSync(t *testing.T) {
	pairs := []struct{ ours, theirs any }{
		{&sched.Mutex{}, &sync.Mutex{}},
		{&sched.RWMutex{}, &sync.RWMutex{}},
		{&sched.WaitGroup{}, &sync.WaitGroup{}},
		{&sched.Cond{}, &sync.Cond{}},
		{&sched.Once{}, &sync.Once{}},
		{&sched.Pool{}, &sync.Pool{}},
	}
	for _, p := range pairs {
		ours, theirs := reflect.TypeOf(p.ours), reflect.TypeOf(p.theirs)
		// RLocker returns a sync.Locker in both; signatures compare as text.
		if got, want := testutil.MethodSet(ours), testutil.MethodSet(theirs); !slices.Equal(got, want) {
			t.Errorf("%v methods %v, want those of %v: %v", ours, got, theirs, want)
		}
	}
	if f := reflect.TypeOf(sched.Cond{}).Field(0); f.Name != "L" || f.Type != reflect.TypeOf((*sync.Locker)(nil)).Elem() {
		t.Errorf("Cond's first field is %s %v, want L sync.Locker", f.Name, f.Type)
	}
}

// TestOutsideRunIsNative uses every shim from plain goroutines, with no run
// in progress: they must behave as sync does (and -race must stay quiet).
func TestOutsideRunIsNative(t *testing.T) {
	var (
		mu    sched.Mutex
		rw    sched.RWMutex
		wg    sched.WaitGroup
		once  sched.Once
		c     = sched.NewCond(&mu)
		n     int
		reads int
		inits int
		ready bool
	)
	for range 8 {
		wg.Go(func() {
			once.Do(func() { inits++ })
			for range 100 {
				mu.Lock()
				n++
				mu.Unlock()
				rw.RLock()
				_ = reads
				rw.RUnlock()
				rw.Lock()
				reads++
				rw.Unlock()
				sched.Yield()
			}
		})
	}
	wg.Wait()
	waiter := make(chan struct{})
	sched.Go(func() {
		mu.Lock()
		for !ready {
			c.Wait()
		}
		mu.Unlock()
		close(waiter)
	})
	mu.Lock()
	ready = true
	c.Broadcast()
	mu.Unlock()
	<-waiter
	if n != 800 || reads != 800 || inits != 1 {
		t.Fatalf("n=%d reads=%d inits=%d, want 800 800 1", n, reads, inits)
	}
	if !mu.TryLock() || mu.TryLock() {
		t.Fatal("TryLock outside a run does not behave as sync.Mutex.TryLock")
	}
	mu.Unlock()
	if sched.Fault("anything") {
		t.Fatal("a fault fired outside a run")
	}
}

// Signal wakes the goroutine that has waited longest, as sync.Cond does.
func TestCondSignalIsFIFO(t *testing.T) {
	testutil.Pass(t, schedtest.Options{}, func(t *schedtest.T) {
		var mu sched.Mutex
		c := sched.NewCond(&mu)
		var entered, woke []int
		for i := range 3 {
			sched.Go(func() {
				mu.Lock()
				entered = append(entered, i)
				c.Wait()
				woke = append(woke, i)
				mu.Unlock()
			})
		}
		// Wait until all three wait.
		for {
			mu.Lock()
			n := len(entered)
			mu.Unlock()
			if n == 3 {
				break
			}
			sched.Yield()
		}
		for i := range 3 {
			mu.Lock()
			c.Signal()
			mu.Unlock()
			for {
				mu.Lock()
				n := len(woke)
				mu.Unlock()
				if n == i+1 {
					break
				}
				sched.Yield()
			}
		}
		if !slices.Equal(woke, entered) {
			t.Errorf("woke in order %v, waited in order %v", woke, entered)
		}
	})
}

func TestBroadcastWakesAll(t *testing.T) {
	testutil.Pass(t, schedtest.Options{}, func(t *schedtest.T) {
		var mu sched.Mutex
		c := sched.NewCond(&mu)
		var wg sched.WaitGroup
		gen := 0
		for range 3 {
			wg.Go(func() {
				mu.Lock()
				for gen == 0 {
					c.Wait()
				}
				mu.Unlock()
			})
		}
		mu.Lock()
		gen = 1
		c.Broadcast()
		mu.Unlock()
		wg.Wait()
	})
}

func TestOnceRunsOnceAndEveryDoWaits(t *testing.T) {
	testutil.Pass(t, schedtest.Options{}, func(t *schedtest.T) {
		var once sched.Once
		var wg sched.WaitGroup
		calls, value := 0, 0
		for range 3 {
			wg.Go(func() {
				once.Do(func() {
					calls++
					sched.Yield() // others may call Do meanwhile: they must wait
					value = 42
				})
				if value != 42 {
					t.Errorf("Do returned before f finished: value %d", value)
				}
			})
		}
		wg.Wait()
		if calls != 1 {
			t.Errorf("f ran %d times", calls)
		}
	})
}

func TestRecursiveOnceDeadlocks(t *testing.T) {
	testutil.Fails(t, schedtest.Options{Iterations: 3}, schedtest.Deadlock, func(t *schedtest.T) {
		var once sched.Once
		once.Do(func() { once.Do(func() {}) })
	})
}

func TestOnceFuncRepanics(t *testing.T) {
	calls := 0
	f := sched.OnceFunc(func() { calls++; panic("boom") })
	for range 2 {
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Errorf("recovered %v, want boom", r)
				}
			}()
			f()
		}()
	}
	if calls != 1 {
		t.Errorf("f ran %d times", calls)
	}
	v := sched.OnceValue(func() int { calls++; return calls })
	if v() != 2 || v() != 2 {
		t.Error("OnceValue did not cache its value")
	}
	a, b := sched.OnceValues(func() (int, string) { return 1, "x" })()
	if a != 1 || b != "x" {
		t.Error("OnceValues")
	}
}

func TestWaitGroupReusedBeforeWaitReturned(t *testing.T) {
	if engine.RaceEnabled {
		// The race detector reports this misuse too (the reusing Add is not
		// ordered after the Wait), as it does for sync.WaitGroup, which
		// would fail this test for the right reason.
		t.Skip("-race reports the reuse itself")
	}
	testutil.Fails(t, schedtest.Options{}, schedtest.Panic, func(t *schedtest.T) {
		var wg sched.WaitGroup
		wg.Add(1)
		sched.Go(wg.Wait)
		wg.Done()
		wg.Add(1)
		wg.Done()
	}, "sync: WaitGroup is reused before previous Wait has returned")
}

func TestUnlockFromAnotherGoroutine(t *testing.T) {
	testutil.Pass(t, schedtest.Options{}, func(t *schedtest.T) {
		var mu sched.Mutex
		mu.Lock()
		done := make(chan struct{}) // closed before anyone waits on it
		sched.Go(func() {
			mu.Unlock()
			close(done)
		})
		mu.Lock() // blocks until the other goroutine unlocks
		mu.Unlock()
		<-done
	})
}

func TestTryLock(t *testing.T) {
	testutil.Pass(t, schedtest.Options{Iterations: 20}, func(t *schedtest.T) {
		var mu sched.Mutex
		var rw sched.RWMutex
		if !mu.TryLock() || mu.TryLock() {
			t.Error("Mutex.TryLock")
		}
		mu.Unlock()
		if !rw.TryRLock() || !rw.TryRLock() || rw.TryLock() {
			t.Error("TryRLock should share, TryLock should fail while read-locked")
		}
		rw.RUnlock()
		rw.RUnlock()
		if !rw.TryLock() || rw.TryRLock() || rw.TryLock() {
			t.Error("TryLock should exclude everyone")
		}
		rw.Unlock()
		l := rw.RLocker()
		l.Lock()
		if rw.TryLock() {
			t.Error("RLocker().Lock did not read-lock")
		}
		l.Unlock()
	})
}

// Embedding promotes Lock and Unlock, as with sync.Mutex.
type account struct {
	sched.Mutex
	balance int
}

func (a *account) deposit(n int) {
	a.Lock()
	defer a.Unlock()
	a.balance += n
}

func TestEmbeddedMutex(t *testing.T) {
	testutil.Pass(t, schedtest.Options{}, func(t *schedtest.T) {
		var a account
		var wg sched.WaitGroup
		for range 3 {
			wg.Go(func() { a.deposit(10) })
		}
		wg.Wait()
		if a.balance != 30 {
			t.Errorf("balance %d", a.balance)
		}
	})
}

// A package-level mutex is used by many runs in turn: each run starts with
// it unlocked in the run's own state.
var global sched.Mutex

func TestPackageLevelObjectAcrossRuns(t *testing.T) {
	testutil.Pass(t, schedtest.Options{Iterations: 50}, func(t *schedtest.T) {
		global.Lock()
		sched.Yield()
		global.Unlock()
	})
	// A run that leaves it locked fails, and the next run still starts fresh.
	testutil.Fails(t, schedtest.Options{Iterations: 1}, schedtest.Deadlock, func(t *schedtest.T) {
		global.Lock()
		global.Lock()
	})
	testutil.Pass(t, schedtest.Options{Iterations: 5}, func(t *schedtest.T) {
		global.Lock()
		global.Unlock()
	})
}
