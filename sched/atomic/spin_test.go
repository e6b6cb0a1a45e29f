package atomic_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// A failed CompareAndSwap is a poll: while goroutines spin on a lock that
// a sleeper holds (ants' spin lock: CompareAndSwap, then runtime.Gosched),
// time passes, the sleeper wakes and lets them in, as in Go; counted as
// work, the clock never moved and the run ended as a livelock. Through
// the methods and the functions.
func TestSpinOnLockHeldBySleeper(t *testing.T) {
	for _, kind := range []string{"method", "func"} {
		for _, strategy := range []string{"random", "pct", "pos"} {
			t.Run(fmt.Sprintf("%s/%s", kind, strategy), func(t *testing.T) {
				var lock atomic.Int32
				var raw int32
				cas := func() bool { return lock.CompareAndSwap(0, 1) }
				unlock := func() { lock.Store(0) }
				if kind == "func" {
					cas = func() bool { return atomic.CompareAndSwapInt32(&raw, 0, 1) }
					unlock = func() { atomic.StoreInt32(&raw, 0) }
				}
				res, err := schedtest.Explore(schedtest.Options{Seed: 1, Iterations: 3, Strategy: strategy}, func(t *schedtest.T) {
					lock.Store(0)
					atomic.StoreInt32(&raw, 0)
					if !cas() {
						t.Fatal("the lock is free at the start")
					}
					var wg sched.WaitGroup
					for range 8 {
						wg.Go(func() {
							for !cas() {
								sched.Yield()
							}
							unlock()
						})
					}
					start := vtime.Now()
					vtime.Sleep(time.Second)
					if d := vtime.Since(start); d < time.Second {
						t.Errorf("slept %v", d)
					}
					unlock()
					wg.Wait()
				})
				if err != nil {
					t.Fatal(err)
				}
				if res.Failure != nil {
					t.Fatalf("%s", res.Failure)
				}
			})
		}
	}
}
