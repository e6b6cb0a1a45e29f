package bank_test

import (
	"testing"

	"github.com/dstgo/dst/examples/bank"
	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched/schedtest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestBuggyBank is the demo: it explores the buggy bank and fails with a
// report of the bug the scheduler found and the command that reproduces it.
// It runs only when asked, so that the test suite passes:
//
//	DST_DEMO=1 go test ./examples/bank -run TestBuggyBank
func TestBuggyBank(t *testing.T) {
	testutil.Demo(t)
	schedtest.Test(t, bank.Workload(false))
}

// TestFixedBank explores the fixed bank; every schedule passes.
func TestFixedBank(t *testing.T) {
	schedtest.TestWith(t, schedtest.Options{Iterations: 2000}, bank.Workload(true))
}

// TestSchedulerFindsBothBugs checks, without failing the suite, that
// exploring the buggy bank finds the deadlock and the inconsistent audit.
func TestSchedulerFindsBothBugs(t *testing.T) {
	found := map[schedtest.FailureKind]bool{}
	for seed := uint64(1); seed <= 40 && len(found) < 2; seed++ {
		res, err := schedtest.Explore(schedtest.Options{Seed: seed, Iterations: 200}, bank.Workload(false))
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil {
			found[res.Failure.Kind] = true
		}
	}
	if !found[schedtest.Deadlock] || !found[schedtest.TestFailed] {
		t.Fatalf("found %v; want both the AB-BA deadlock and the audit failure", found)
	}
}
