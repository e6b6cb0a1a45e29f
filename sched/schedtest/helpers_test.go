package schedtest_test

import (
	"runtime"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

func runtimeGoexit() { runtime.Goexit() }

// abbaSeed is the first seed of a random walk under which abba(false)
// deadlocks (deadlock true), or passes.
func abbaSeed(t *testing.T, deadlock bool) uint64 {
	t.Helper()
	for seed := uint64(1); seed < 1000; seed++ {
		res, err := schedtest.Run(schedtest.Options{Seed: seed, Strategy: "random"}, abba(false))
		if err != nil {
			t.Fatal(err)
		}
		if (res.Failure != nil) == deadlock {
			return seed
		}
	}
	t.Fatalf("no seed below 1000 where abba deadlocks: %v", deadlock)
	return 0
}
