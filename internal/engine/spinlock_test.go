package engine_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched"
	satomic "github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/vtime"
)

// spinLockPool is the pattern of ants' pool (github.com/panjf2000/ants/v2,
// TestAntsPoolGetWorkerFromCache) as dstreplay test rewrites it: n workers
// each sleep, then take a spin lock (a CompareAndSwap, runtime.Gosched
// backing off up to 16 times, pkg/sync/spinlock.go), make work atomic
// updates under it, release it and wait for the body, which sleeps
// meanwhile. Each worker that gets through blocks: nothing else happens
// that the scheduler can see, and the random walk gives the lock's holder
// one point in every n or so while the others spin, so that n workers take
// about work·n²/2 points to get through.
func spinLockPool(n, work int) func() {
	return func() {
		var lock uint32
		var count int64
		release := chans.Make[struct{}](0)
		var wg sched.WaitGroup
		for range n {
			wg.Go(func() {
				vtime.Sleep(10 * time.Millisecond)
				for backoff := 1; !satomic.CompareAndSwapUint32(&lock, 0, 1); backoff = min(2*backoff, 16) {
					for range backoff {
						sched.Yield()
					}
				}
				for range work {
					satomic.AddInt64(&count, 1)
				}
				satomic.StoreUint32(&lock, 0)
				release.Recv()
			})
		}
		vtime.Sleep(2 * time.Second)
		release.Close()
		wg.Wait()
		if count != int64(n*work) {
			panic("lost updates under the spin lock")
		}
	}
}

// Workers that get through a contended spin lock one by one and then block
// make progress, however many points the others spin meanwhile: the run
// ends. Regression: with 100 workers and 40 updates under the lock, about
// 200,000 points in all, the random walk and POS reported a livelock after
// the window of 100,000 points without a goroutine woken, started or
// exited, about half of the workers through (ants' suite, 1,000 workers:
// a livelock after 10^6 points, 574 of them left).
func TestSpinLockWorkersProgress(t *testing.T) {
	for _, s := range []engine.Strategy{engine.Random, engine.POS, engine.PCT} {
		out := engine.Execute(engine.Config{Name: "spinlock", Source: entropy.New(1), Strategy: s, Depth: 3, PCTSteps: 1000}, spinLockPool(100, 40))
		if out.Failure != nil {
			t.Errorf("%v: %d steps: %v: %s", s, out.Steps, out.Failure.Kind, out.Failure.Message)
			continue
		}
		t.Logf("%v: %d steps", s, out.Steps)
	}
}

// swap is sched/atomic's CompareAndSwapUint32 with its outcome told to the
// run, as G.Polled asks of the shims (sched/atomic's do not tell it yet): a
// CompareAndSwap that fails polled.
func swap(addr *uint32, old, new uint32) bool {
	g := engine.Current()
	g.Point(engine.OpAtomicCompareAndSwap, nil)
	if atomic.CompareAndSwapUint32(addr, old, new) {
		return true
	}
	g.Polled()
	return false
}

// lockSpin takes the spin lock at addr as ants' does: a CompareAndSwap,
// and runtime.Gosched up to 16 times before the next.
func lockSpin(addr *uint32) {
	for backoff := 1; !swap(addr, 0, 1); backoff = min(2*backoff, 16) {
		for range backoff {
			sched.Yield()
		}
	}
}

// Time passes while goroutines spin on a spin lock that a sleeping
// goroutine holds, as it does in Go: the sleeper wakes and lets them
// through. Regression: a CompareAndSwap was work from the point that
// announced it, whatever its outcome, which kept the clock still, or
// moving by a first quantum at a time, until the livelock window. (POS
// lets some of 32 spinners wait for their turn for long stretches, during
// which time passes slowly (spin.go): they wait a second longer than the
// window.)
func TestTimePassesWhileSpinLockWaits(t *testing.T) {
	cases := []struct {
		strategy engine.Strategy
		spinners int
		sleep    time.Duration
	}{
		{engine.Random, 1, time.Second},
		{engine.POS, 1, time.Second},
		{engine.PCT, 1, time.Second},
		{engine.Random, 32, time.Second},
		{engine.PCT, 32, time.Second},
		{engine.POS, 32, 10 * time.Millisecond},
	}
	for _, c := range cases {
		var slept time.Duration
		out := engine.Execute(engine.Config{Name: "spinlock", Source: entropy.New(1), Strategy: c.strategy, Depth: 3, PCTSteps: 1000}, func() {
			var lock uint32
			var count int64
			lockSpin(&lock)
			var wg sched.WaitGroup
			for range c.spinners {
				wg.Go(func() {
					lockSpin(&lock)
					satomic.AddInt64(&count, 1)
					satomic.StoreUint32(&lock, 0)
				})
			}
			start := vtime.Now()
			vtime.Sleep(c.sleep)
			slept = vtime.Since(start)
			satomic.StoreUint32(&lock, 0)
			wg.Wait()
			if count != int64(c.spinners) {
				panic("lost updates under the spin lock")
			}
		})
		name := fmt.Sprintf("%v, %d spinners, %v", c.strategy, c.spinners, c.sleep)
		if out.Failure != nil {
			t.Errorf("%s: %d steps: %v: %s", name, out.Steps, out.Failure.Kind, out.Failure.Message)
			continue
		}
		// The clock stops at the sleeper's deadline: it does not overshoot.
		if slept < c.sleep || slept > c.sleep+time.Millisecond {
			t.Errorf("%s: the body slept %v", name, slept)
		}
		t.Logf("%s: %d steps", name, out.Steps)
	}
}

// Goroutines that take turns at a spin lock, spinning for it each time,
// make progress each time one takes it after spinning, though none blocks
// or exits for a long while. Regression: 20 goroutines taking a spin lock
// 100 times each (about 160,000 points with a random walk) were reported
// as a livelock after the window of 100,000 points.
func TestSpinLockTurnsProgress(t *testing.T) {
	for _, s := range []engine.Strategy{engine.Random, engine.POS, engine.PCT} {
		out := engine.Execute(engine.Config{Name: "spinlock", Source: entropy.New(1), Strategy: s, Depth: 3, PCTSteps: 1000}, func() {
			var lock uint32
			var count int64
			var wg sched.WaitGroup
			for range 20 {
				wg.Go(func() {
					for range 100 {
						lockSpin(&lock)
						for range 3 {
							satomic.AddInt64(&count, 1)
						}
						satomic.StoreUint32(&lock, 0)
					}
				})
			}
			wg.Wait()
			if count != 20*100*3 {
				panic("lost updates under the spin lock")
			}
		})
		if out.Failure != nil {
			t.Errorf("%v: %d steps: %v: %s", s, out.Steps, out.Failure.Kind, out.Failure.Message)
			continue
		}
		t.Logf("%v: %d steps", s, out.Steps)
	}
}
