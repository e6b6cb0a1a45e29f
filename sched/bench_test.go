package sched_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// decisionsPerRun bounds one run of BenchmarkSwitch, so that its entropy
// recording stays small; the cost of starting a run is amortized over it.
const decisionsPerRun = 1 << 14

// BenchmarkSwitch measures one scheduling decision (sched/g=N: N managed
// goroutines each looping on sched.Yield, random walk, one op = one Yield;
// N from 2 to 100,000, to show how a decision's cost grows with the run)
// against one handoff between plain goroutines passing a baton round-robin
// through per-goroutine buffered channels (baseline/g=N).
func BenchmarkSwitch(b *testing.B) {
	for _, g := range []int{2, 10, 16, 1000, 100_000} {
		b.Run(fmt.Sprintf("sched/g=%d", g), func(b *testing.B) {
			// Each run makes every goroutine decide a few times: at
			// 100,000 goroutines, starting them is part of the cost.
			per := max(decisionsPerRun, 4*g)
			opts := schedtest.Options{Strategy: "random", MaxSteps: 4 * per}
			for left := b.N; left > 0; left -= per {
				n := min(left, per)
				opts.Seed = uint64(left)
				res, err := schedtest.Run(opts, func(t *schedtest.T) { yieldLoop(g, n) })
				if err != nil || res.Failure != nil {
					b.Fatal(err, res.Failure)
				}
			}
		})
		b.Run(fmt.Sprintf("baseline/g=%d", g), func(b *testing.B) { batonLoop(g, b.N) })
	}
}

// BenchmarkFanIn measures scheduling decisions where goroutines block and
// wake at every step: g managed goroutines send on one unbuffered channel
// that the body drains, under a random walk and under PCT, for g = 10 to
// 100,000. Every goroutine sends at least once, so a run may send more
// values than b.N asks: ns/send (the time per value sent and received, with
// the blocks, wakes and decisions that takes) is the figure to read.
func BenchmarkFanIn(b *testing.B) {
	for _, strategy := range []string{"random", "pct"} {
		for _, g := range []int{10, 1000, 100_000} {
			b.Run(fmt.Sprintf("%s/g=%d", strategy, g), func(b *testing.B) {
				b.ReportAllocs()
				per := max(decisionsPerRun, g)
				// No watchdog: at 100,000 goroutines on a loaded machine its look at
				// the running goroutine's stack (which means every stack) costs
				// more than the scheduling it watches.
				opts := schedtest.Options{Strategy: strategy, MaxSteps: 8*per + 8*g, Watchdog: -1}
				sends := 0
				for left := b.N; left > 0; left -= per {
					n := max(min(left, per), g)
					opts.Seed = uint64(left)
					res, err := schedtest.Run(opts, func(t *schedtest.T) { fanIn(g, n) })
					if err != nil || res.Failure != nil {
						b.Fatal(err, res.Failure)
					}
					sends += n
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(sends), "ns/send")
			})
		}
	}
}

// fanIn runs g managed goroutines that together send n values on one
// unbuffered channel, which the body receives.
func fanIn(g, n int) {
	c := chans.Make[int](0)
	for i := range g {
		k := n / g
		if i < n%g {
			k++
		}
		sched.Go(func() {
			for j := range k {
				c.Send(j)
			}
		})
	}
	for range n {
		c.Recv()
	}
}

// yieldLoop runs g managed goroutines that together call Yield n times.
func yieldLoop(g, n int) {
	count := 0
	var wg sched.WaitGroup
	for range g {
		wg.Go(func() {
			for count < n {
				count++
				sched.Yield()
			}
		})
	}
	wg.Wait()
}

// batonLoop passes a baton n times round-robin among g goroutines.
func batonLoop(g, n int) {
	chans := make([]chan struct{}, g)
	for i := range chans {
		chans[i] = make(chan struct{}, 1)
	}
	var wg sync.WaitGroup
	count := 0
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := chans[(i+1)%g]
			for range chans[i] {
				if count >= n {
					close(next)
					return
				}
				count++
				next <- struct{}{}
			}
			if count < n {
				panic("baton lost")
			}
			close(next)
		}()
	}
	chans[0] <- struct{}{}
	wg.Wait()
}

// BenchmarkExec measures one execution of the standard small body: two
// goroutines each increment a Mutex-protected counter 10 times, a third waits
// on a WaitGroup and checks the total is 20. Under the scheduler (sched)
// every Lock and Unlock is a scheduling point; native is the same body in
// plain Go with runtime.Gosched() after every Lock and Unlock.
func BenchmarkExec(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		b.ReportAllocs()
		opts := schedtest.Options{Strategy: "random"}
		for i := range b.N {
			opts.Seed = uint64(i + 1)
			res, err := schedtest.Run(opts, func(t *schedtest.T) { schedBody(t) })
			if err != nil || res.Failure != nil {
				b.Fatal(err, res.Failure)
			}
		}
	})
	b.Run("native", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			nativeBody(b)
		}
	})
}

func schedBody(t *schedtest.T) {
	var mu sched.Mutex
	var wg sched.WaitGroup
	total := 0
	for range 2 {
		wg.Go(func() {
			for range 10 {
				mu.Lock()
				total++
				mu.Unlock()
			}
		})
	}
	sched.Go(func() {
		wg.Wait()
		if total != 20 {
			t.Errorf("total %d", total)
		}
	})
}

func nativeBody(b *testing.B) {
	var mu sync.Mutex
	var wg, checked sync.WaitGroup
	total := 0
	for range 2 {
		wg.Go(func() {
			for range 10 {
				mu.Lock()
				runtime.Gosched()
				total++
				mu.Unlock()
				runtime.Gosched()
			}
		})
	}
	checked.Go(func() {
		wg.Wait()
		if total != 20 {
			b.Errorf("total %d", total)
		}
	})
	checked.Wait()
}

// BenchmarkMutexOutsideRun compares the shims with sync outside a run, the
// production path.
func BenchmarkMutexOutsideRun(b *testing.B) {
	b.Run("sched", func(b *testing.B) {
		var mu sched.Mutex
		for range b.N {
			mu.Lock()
			mu.Unlock()
		}
	})
	b.Run("sync", func(b *testing.B) {
		var mu sync.Mutex
		for range b.N {
			mu.Lock()
			mu.Unlock()
		}
	})
}
