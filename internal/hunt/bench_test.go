package hunt_test

import (
	"testing"
	"time"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// benchBody is a small body: three goroutines each take a shared mutex
// eight times, about fifty scheduling points in all.
func benchBody(t *schedtest.T) {
	var mu sched.Mutex
	var wg sched.WaitGroup
	n := 0
	for range 3 {
		wg.Go(func() {
			for range 8 {
				mu.Lock()
				n++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if n != 24 {
		t.Fatalf("n = %d, want 24", n)
	}
}

// explore runs body for n schedules with strategy and returns the
// executions per second.
func explore(b *testing.B, strategy string, n int) float64 {
	b.Helper()
	start := time.Now()
	res, err := schedtest.Explore(schedtest.Options{Strategy: strategy, Iterations: n, Seed: 1}, benchBody)
	elapsed := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	if res.Failure != nil || res.Schedule != n {
		b.Fatalf("%s: %d of %d schedules, failure %v", strategy, res.Schedule, n, res.Failure)
	}
	return float64(n) / elapsed.Seconds()
}

// BenchmarkHunt measures a hunt's executions per second on benchBody (one
// op is one execution: a mutated or fresh input run with coverage, and the
// loop learning from it) against a random walk's over as many schedules,
// measured in the same run; hunt/random is their ratio.
func BenchmarkHunt(b *testing.B) {
	hunt := explore(b, "hunt", b.N)
	b.StopTimer()
	random := explore(b, "random", b.N)
	b.ReportMetric(hunt, "execs/s")
	b.ReportMetric(random, "random-execs/s")
	b.ReportMetric(hunt/random, "hunt/random")
}

// The body has the size the benchmark says.
func TestBenchBody(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Strategy: "random", Seed: 1}, benchBody)
	if err != nil || res.Failure != nil {
		t.Fatal(err, res.Failure)
	}
	if res.Goroutines != 4 || res.Steps < 45 || res.Steps > 70 {
		t.Errorf("%d goroutines, %d steps: want 4 and about fifty", res.Goroutines, res.Steps)
	}
}
