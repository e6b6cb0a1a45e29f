package schedtest_test

import (
	"slices"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// writerReader is a body of two goroutines: a writer that increments a
// counter twelve times, each under a lock, and a reader that reads it
// reads times, each under the lock. It fails when bad says so of what
// the reader saw.
func writerReader(reads int, bad func(seen []int) bool) func(*schedtest.T) {
	return func(t *schedtest.T) {
		var mu sched.Mutex
		n := 0
		seen := make([]int, reads)
		var wg sched.WaitGroup
		wg.Add(2)
		sched.Go(func() {
			defer wg.Done()
			for range 12 {
				mu.Lock()
				n++
				mu.Unlock()
			}
		})
		sched.Go(func() {
			defer wg.Done()
			for i := range seen {
				mu.Lock()
				seen[i] = n
				mu.Unlock()
			}
		})
		wg.Wait()
		if bad(seen) {
			t.Fatalf("the reader saw %v", seen)
		}
	}
}

// middle fails when its reader sees the counter exactly at want: the reader
// must run after want of the writer's increments and before the next one.
// A random walk seldom lets the writer get that far ahead (about one
// schedule in 2^want); interleavings sampled uniformly put the reader at
// each of the positions alike.
func middle(want int) func(*schedtest.T) {
	return writerReader(1, func(seen []int) bool { return seen[0] == want })
}

// TestSURWSamplesLateOrders: SURW finds the reader after the eighth of
// twelve increments many times sooner than a random walk, with the same
// seeds; and its failure reproduces from what it reports (its recording,
// not its seed: the weights came from the schedule before).
func TestSURWSamplesLateOrders(t *testing.T) {
	median := func(strategy string) int {
		var execs []int
		for seed := uint64(1); seed <= 10; seed++ {
			res, err := schedtest.Explore(schedtest.Options{Seed: seed, Strategy: strategy, Iterations: 5000}, middle(8))
			if err != nil {
				t.Fatal(err)
			}
			n := 5001
			if res.Failure != nil {
				n = res.Schedule
			}
			execs = append(execs, n)
		}
		slices.Sort(execs)
		t.Logf("%s: executions to find it, seeds 1 to 10: %v", strategy, execs)
		return execs[len(execs)/2]
	}
	surw, random := median("surw"), median("random")
	if surw*5 > random {
		t.Errorf("median executions: surw %d, random %d: want surw at least five times sooner", surw, random)
	}
}

// TestSURWFailureReplays: the recording of a failing SURW schedule (as
// shrunk: a random walk's) replays as the same failure under the strategy
// the result names and as a random walk, without the profile.
func TestSURWFailureReplays(t *testing.T) {
	res, err := schedtest.Explore(schedtest.Options{Seed: 3, Strategy: "surw", Iterations: 5000}, middle(8))
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatalf("surw did not find the reader at 8 in 5000 schedules")
	}
	for _, strategy := range []string{res.Strategy, "random"} {
		again, err := schedtest.Run(schedtest.Options{Recording: res.Recording, Strategy: strategy}, middle(8))
		if err != nil {
			t.Fatal(err)
		}
		if again.Failure == nil || again.Failure.Message != res.Failure.Message || again.Steps != res.Steps {
			t.Errorf("the recording replayed under %s: %+v, want the failure %q in %d steps", strategy, again.Failure, res.Failure.Message, res.Steps)
		}
	}
}
