package dedup_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/examples/dedup"
	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched/schedtest"
)

var huntFlags = testutil.HuntFlags("the store's bugs")

// TestHuntReport compares, on the buggy store, how many executions random
// exploration, the portfolio (the default) and the coverage-guided hunt
// need to find each bug, with the same budget and seeds. The buggy store
// has both bugs; each is measured alone by turning off the fault that the
// other needs (a timed-out write that was applied all the same: AddRef's
// for the leaked reference, Insert's for the deleted live content), and
// both together with the faults of the other tests ("either bug", the
// first failure of any kind). Run it with:
//
//	go test ./examples/dedup -run TestHuntReport -huntreport -dst.shrink=false -v
//
// (-dst.shrink=false leaves the found failures unshrunk, so that the cost
// per execution is the exploration's alone; it does not change the counts.)
// -huntseeds and -huntbudget change the seeds (default 100) and the budget
// (default 5000).
func TestHuntReport(t *testing.T) {
	report := huntFlags.Start(t)
	without := func(fault string) map[string]float64 {
		f := dedup.Faults()
		f[fault] = 0
		return f
	}
	cases := []struct {
		name   string
		faults map[string]float64
		msgs   []string
	}{
		{"dedup: leaked reference", without("db.insert.applied"), []string{leakedRef}},
		{"dedup: deletion of live content", without("db.addref.applied"), []string{wrongContent}},
		{"dedup: either bug", dedup.Faults(), []string{leakedRef, wrongContent}},
	}
	for _, tc := range cases {
		is := func(f *schedtest.Failure) bool {
			return f.Kind == schedtest.TestFailed && slices.ContainsFunc(tc.msgs, func(m string) bool { return strings.Contains(f.Message, m) })
		}
		report.Measure(tc.name, schedtest.Options{Faults: tc.faults}, workload(dedup.NewBuggy), is)
	}
	report.Log()
}
