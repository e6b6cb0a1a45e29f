package dedup_test

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/examples/dedup"
	"github.com/dstgo/dst/sched"
)

// The helpers below are those of examples/bugs/hunt_report_test.go.

var (
	huntReport = flag.Bool("huntreport", false, "TestHuntReport: executions to find each bug, hunt vs random vs portfolio")
	huntSeeds  = flag.Int("huntseeds", 100, "TestHuntReport: seeds per strategy (1..n)")
	huntBudget = flag.Int("huntbudget", 5000, "TestHuntReport: executions per exploration")
)

// huntStrategies are the strategies compared, each with the same budget.
var huntStrategies = []string{"random", "portfolio", "hunt"}

// huntCell is what one strategy did on one bug over the seeds.
type huntCell struct {
	execs []int // executions to find, budget+1 when not found
	found int
	other []string      // failures found that were not the bug looked for
	total int           // executions run, over all seeds
	wall  time.Duration // wall time of the explorations (and shrinking, unless -dst.shrink=false)
}

// huntMeasure explores body with each strategy and seeds 1..seeds, within
// budget executions each, and reports per strategy how many executions each
// seed took to find a failure that is the bug (is reports true) and the
// cost of an execution. A failure that is not the bug counts as not found.
func huntMeasure(t *testing.T, o sched.Options, body func(*sched.T), is func(*sched.Failure) bool, seeds, budget int) []huntCell {
	t.Helper()
	cells := make([]huntCell, len(huntStrategies))
	for i, strategy := range huntStrategies {
		c := &cells[i]
		start := time.Now()
		for s := 1; s <= seeds; s++ {
			o := o
			o.Strategy, o.Seed, o.Iterations = strategy, uint64(s), budget
			res, err := sched.Explore(o, body)
			if err != nil {
				t.Fatalf("%s seed %d: %v", strategy, s, err)
			}
			c.total += res.Schedule
			n := budget + 1
			switch {
			case res.Failure == nil:
			case is(res.Failure):
				n = res.Schedule
				c.found++
			default:
				c.other = append(c.other, fmt.Sprintf("seed %d: %s %s", s, res.Failure.Kind, firstLine(res.Failure.Message)))
			}
			c.execs = append(c.execs, n)
		}
		c.wall = time.Since(start)
		slices.Sort(c.execs)
	}
	return cells
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// huntRow formats one bug's row of the report table.
func huntRow(name string, cells []huntCell, seeds, budget int) string {
	count := func(n int) string {
		if n > budget {
			return fmt.Sprintf(">%d", budget)
		}
		return fmt.Sprint(n)
	}
	row := "| " + name + " |"
	var cost []string
	for _, c := range cells {
		row += fmt.Sprintf(" %d/%d · %s · %s |", c.found, seeds, count(c.execs[(len(c.execs)-1)/2]), count(slices.Max(c.execs)))
		cost = append(cost, fmt.Sprintf("%.0f", float64(c.wall.Microseconds())/float64(c.total)))
	}
	return row + " " + strings.Join(cost, " / ") + " |"
}

// huntHeader is the report table's header.
func huntHeader(budget int) string {
	h := "| bug |"
	sep := "|---|"
	for _, s := range huntStrategies {
		h += " " + s + " |"
		sep += "---|"
	}
	h += " µs per execution (" + strings.Join(huntStrategies, " / ") + ") |"
	sep += "---|"
	return fmt.Sprintf("per strategy: seeds that found the bug · median · max executions to find it (>%d: not found)\n%s\n%s", budget, h, sep)
}

// huntOthers logs the failures found that were not the bug looked for.
func huntOthers(t *testing.T, name string, cells []huntCell) {
	for i, c := range cells {
		for _, o := range c.other {
			t.Logf("%s, %s: found another failure: %s", name, huntStrategies[i], o)
		}
	}
}

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
	if !*huntReport {
		t.Skip("run with -huntreport")
	}
	seeds, budget := *huntSeeds, *huntBudget
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
	rows := []string{huntHeader(budget)}
	for _, tc := range cases {
		is := func(f *sched.Failure) bool {
			return f.Kind == sched.TestFailed && slices.ContainsFunc(tc.msgs, func(m string) bool { return strings.Contains(f.Message, m) })
		}
		cells := huntMeasure(t, sched.Options{Faults: tc.faults}, workload(dedup.NewBuggy), is, seeds, budget)
		huntOthers(t, tc.name, cells)
		rows = append(rows, huntRow(tc.name, cells, seeds, budget))
	}
	t.Logf("\n%s", strings.Join(rows, "\n"))
}
