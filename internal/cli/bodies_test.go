package cli_test

// The bodies whose traces the golden files show. Their line numbers appear
// in the goldens: edit this file only with -update.

import (
	"path/filepath"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// abba deadlocks in some schedules.
func abba(t *schedtest.T) {
	var a, b sched.Mutex
	var wg sched.WaitGroup
	wg.Go(func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
	wg.Go(func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
	wg.Wait()
}

// failingTrace writes the trace of the first deadlocking schedule from a
// fixed seed.
func failingTrace(t *testing.T) string {
	t.Helper()
	res, err := schedtest.Explore(schedtest.Options{Seed: 7, Iterations: 300, Strategy: "random"}, abba)
	if err != nil || res.Failure == nil {
		t.Fatalf("no failure: %v", err)
	}
	path := filepath.Join(t.TempDir(), "abba.trace")
	if err := res.WriteTrace(path); err != nil {
		t.Fatal(err)
	}
	return path
}
