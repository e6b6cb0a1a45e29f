package bugs

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dstgo/dst/sched"
	satomic "github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/schedtest"
)

// Two compaction workers share one disk. Each raises its "waiting" flag,
// tries the disk's lock, and, being polite, steps back when the other
// worker is waiting too, to let it go first. When both are waiting, both
// keep stepping back: neither ever compacts. The fixed twin breaks the
// symmetry: only the worker with the lower priority steps back.
type llDisk struct {
	mu        sched.Mutex
	waiting   [2]satomic.Bool
	compacted [2]bool
}

func (d *llDisk) compact(me int, fixed bool) {
	other := 1 - me
	d.waiting[me].Store(true)
	for {
		if !d.mu.TryLock() {
			sched.Yield()
			continue
		}
		if d.waiting[other].Load() && (!fixed || me == 1) {
			d.mu.Unlock() // after you
			sched.Yield()
			continue
		}
		d.compacted[me] = true
		d.waiting[me].Store(false)
		d.mu.Unlock()
		return
	}
}

var errLLGaveUp = errors.New("workers still stepping back for each other")

func init() {
	run := func(fixed bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			d := &llDisk{}
			var wg sched.WaitGroup
			for me := range 2 {
				wg.Go(func() { d.compact(me, fixed) })
			}
			wg.Wait()
		}
	}
	register(Pattern{
		Name:    "polite-livelock",
		Class:   "blocking / livelock (symmetric back-off)",
		Buggy:   run(false),
		Fixed:   run(true),
		Expect:  schedtest.Livelock,
		Options: schedtest.Options{MaxSteps: 3000},
		// Natively the workers give up at half the time limit, so that a
		// livelock does not outlive the run.
		Native: func() error {
			return runNative(func() error {
				var (
					mu      sync.Mutex
					waiting [2]atomic.Bool
					wg      sync.WaitGroup
				)
				deadline := time.Now().Add(nativeTimeout / 2)
				var gaveUp atomic.Bool
				for me := range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						other := 1 - me
						waiting[me].Store(true)
						for {
							if time.Now().After(deadline) {
								gaveUp.Store(true)
								return
							}
							if !mu.TryLock() {
								runtime.Gosched()
								continue
							}
							if waiting[other].Load() {
								mu.Unlock()
								runtime.Gosched()
								continue
							}
							waiting[me].Store(false)
							mu.Unlock()
							return
						}
					}()
				}
				wg.Wait()
				if gaveUp.Load() {
					return errLLGaveUp
				}
				return nil
			})
		},
	})
}
