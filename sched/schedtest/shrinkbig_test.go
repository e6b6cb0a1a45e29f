package schedtest_test

import (
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// poolLostUpdate is a worker pool of workers goroutines doing jobs locked
// increments each, where one worker, at one job, reads the total under the
// lock and writes it back under another: the update is lost when any other
// worker increments in between. A run without preemptions passes; one
// preemption at the right decision, among thousands, fails it.
func poolLostUpdate(workers, jobs, buggy, buggyJob int) func(*schedtest.T) {
	return func(t *schedtest.T) {
		var mu sched.Mutex
		var wg sched.WaitGroup
		total := 0
		for w := range workers {
			wg.Go(func() {
				for j := range jobs {
					if w == buggy && j == buggyJob {
						mu.Lock()
						v := total
						mu.Unlock()
						mu.Lock()
						total = v + 1
						mu.Unlock()
						continue
					}
					mu.Lock()
					total++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if total != workers*jobs {
			t.Errorf("total %d, want %d", total, workers*jobs)
		}
	}
}

// TestShrinkLongSchedule: a failure of a pool of a hundred workers, found
// after thousands of scheduling points by a random walk (a preemption at
// nearly every one) or by PCT, shrinks to a schedule of at most a fifth of
// its preemptions (in practice the one it needs), which replays to the
// same failure.
// Regression (found by a user, fixed): failures of real suites did not
// shrink at all (4,565 preemptions stayed 4,565 after 2,000 runs).
func TestShrinkLongSchedule(t *testing.T) {
	if testing.Short() {
		t.Skip("shrinks long schedules")
	}
	body := poolLostUpdate(100, 10, 90, 8)
	for _, c := range []struct {
		strategy string
		seed     uint64
	}{{"random", 1}, {"random", 2}, {"pct", 2}, {"pct", 5}} {
		res, r, err := schedtest.ExploreShrunk(schedtest.Options{Strategy: c.strategy, Seed: c.seed, Iterations: 3000}, body)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil || r == nil {
			t.Fatalf("%s, seed %d: not found, or not shrunk, in %d schedules", c.strategy, c.seed, res.Schedule)
		}
		t.Logf("%s, seed %d: schedule %d, shrunk from %v to %v in %d runs", c.strategy, c.seed, res.Schedule, r.Before, r.After, r.Runs)
		if r.After.Preemptions*5 > r.Before.Preemptions || res.Preemptions != r.After.Preemptions {
			t.Errorf("%s, seed %d: shrunk from %v to %v (the result: %d preemptions), want at most a fifth",
				c.strategy, c.seed, r.Before, r.After, res.Preemptions)
		}
		again, err := schedtest.Run(schedtest.Options{Strategy: "random", Recording: res.Recording}, body)
		if err != nil || again.Failure == nil || again.Failure.Kind != res.Failure.Kind || again.Preemptions != res.Preemptions {
			t.Errorf("%s, seed %d: the shrunk recording replays as %v, %d preemptions; want %v, %d", c.strategy, c.seed,
				again.Failure, again.Preemptions, res.Failure.Kind, res.Preemptions)
		}
	}
}
