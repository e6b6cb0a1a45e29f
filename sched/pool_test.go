package sched_test

import (
	"strings"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A Pool's items inside a run are the run's: a Get returns the item the run
// put last, or New's when a drawn collection emptied the pool, the same for
// the same seed; an item put by an earlier run or outside any run is never
// returned, whatever the garbage collector kept (sync.Pool's items outlive
// a run, and whether they are there is chance).
func TestPoolItemsAreTheRuns(t *testing.T) {
	type item struct{ run int }
	var pool = sched.Pool{New: func() any { return &item{} }}
	pool.Put(&item{run: -1}) // outside any run
	runs := 0
	got := map[string]int{}
	outcome := func(seed uint64) string {
		res, err := schedtest.Run(schedtest.Options{Seed: seed}, func(t *schedtest.T) {
			runs++
			if it := pool.Get().(*item); it.run != 0 {
				t.Fatalf("run %d got an item put by run %d", runs, it.run)
			}
			pool.Put(&item{run: runs})
			done := make(chan int, 1)
			var wg sched.WaitGroup
			wg.Go(func() { done <- pool.Get().(*item).run })
			wg.Wait()
			if r := <-done; r != 0 && r != runs {
				t.Fatalf("run %d got an item put by run %d", runs, r)
			} else if r == runs {
				t.Log("reused")
			} else {
				t.Log("emptied")
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil {
			t.Fatal(res.Failure)
		}
		return strings.TrimPrefix(res.Logs[0], "[goroutine 1] ")
	}
	for seed := range uint64(200) {
		got[outcome(seed+1)]++
	}
	if got["reused"] < 150 || got["emptied"] < 5 {
		t.Errorf("over 200 seeds: %v; want most reused, some emptied (one in eight)", got)
	}
	for seed := range uint64(20) {
		if a, b := outcome(seed+1), outcome(seed+1); a != b {
			t.Errorf("seed %d: %s, then %s", seed+1, a, b)
		}
	}
	if it := pool.Get().(*item); it.run > 0 {
		t.Errorf("outside a run, Get returned run %d's item", it.run)
	}
}
