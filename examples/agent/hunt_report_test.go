package agent_test

import (
	"strings"
	"testing"

	"github.com/dstgo/dst/examples/agent"
	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched/schedtest"
)

var huntFlags = testutil.HuntFlags("the worker's bugs")

// TestHuntReport compares, on the worker's two bugs, each switched on alone,
// how many executions random exploration, the portfolio (the default) and
// the coverage-guided hunt need to find the bug, with the same budget and
// seeds. Run it with:
//
//	go test ./examples/agent -run TestHuntReport -huntreport -dst.shrink=false -v
//
// (-dst.shrink=false leaves the found failures unshrunk, so that the cost
// per execution is the exploration's alone; it does not change the counts.)
// -huntseeds and -huntbudget change the seeds (default 100) and the budget
// (default 5000).
func TestHuntReport(t *testing.T) {
	report := huntFlags.Start(t)
	cases := []struct {
		name string
		bugs agent.Bugs
		kind schedtest.FailureKind
		msg  string
	}{
		{"agent: eager tools", agent.Bugs{EagerTools: true}, schedtest.TestFailed, msgBadPairs},
		{"agent: stuck approval", agent.Bugs{StuckApproval: true}, schedtest.Leak, msgNotIdle},
	}
	for _, tc := range cases {
		is := func(f *schedtest.Failure) bool {
			return f.Kind == tc.kind && strings.Contains(f.Error(), tc.msg)
		}
		report.Measure(tc.name, schedtest.Options{Faults: faults}, workload(tc.bugs), is)
	}
	report.Log()
}
