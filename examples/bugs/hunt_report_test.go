package bugs

import (
	"testing"

	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched/schedtest"
)

var huntFlags = testutil.HuntFlags("the hardest patterns")

// huntHardest are the catalogue's hardest patterns: the largest medians of
// executions to first detection in BENCHMARKS.md (default options, 9 seeds).
var huntHardest = []string{
	"send-after-shutdown",     // median 14, worst 32
	"rwmutex-recursive-rlock", // median 12, worst 22
	"cond-lost-wakeup",        // median 8, worst 20
	"ab-ba",                   // median 6, worst 18
	"double-close",            // median 6, worst 16
	"unlock-twice",            // median 6, worst 12
	"polite-livelock",         // median 6, worst 12
}

// TestHuntReport compares, on the catalogue's hardest patterns, how many
// executions random exploration, the portfolio (the default) and the
// coverage-guided hunt need to find the bug, with the same budget and
// seeds. The median is the lower median; a seed that does not find the bug
// counts as more than the budget. Run it with:
//
//	go test ./examples/bugs -run TestHuntReport -huntreport -dst.shrink=false -v
//
// (-dst.shrink=false leaves the found failures unshrunk, so that the cost
// per execution is the exploration's alone; it does not change the counts.)
// -huntseeds and -huntbudget change the seeds (default 100) and the budget
// (default 5000).
func TestHuntReport(t *testing.T) {
	report := huntFlags.Start(t)
	byName := map[string]Pattern{}
	for _, p := range Catalogue() {
		byName[p.Name] = p
	}
	for _, name := range huntHardest {
		p, ok := byName[name]
		if !ok {
			t.Fatalf("no pattern %q", name)
		}
		report.Measure(name, p.Options, p.Buggy, func(f *schedtest.Failure) bool { return f.Kind == p.Expect })
	}
	report.Log()
}
