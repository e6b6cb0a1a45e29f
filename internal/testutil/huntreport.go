package testutil

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dstgo/dst/sched/schedtest"
)

// HuntFlags registers -huntreport, -huntseeds and -huntbudget for a package's
// TestHuntReport; call it from a package-level variable so the flags exist
// before go test parses them.
func HuntFlags(what string) *HuntConfig {
	return &HuntConfig{
		on:     flag.Bool("huntreport", false, "TestHuntReport: executions to find "+what+", random, portfolio, surw, bounded and hunt"),
		seeds:  flag.Int("huntseeds", 100, "TestHuntReport: seeds per strategy (1..n)"),
		budget: flag.Int("huntbudget", 5000, "TestHuntReport: executions per exploration"),
	}
}

// HuntConfig is the flags of a hunt report.
type HuntConfig struct {
	on            *bool
	seeds, budget *int
}

// Start begins a report, or skips t unless -huntreport was given.
func (c *HuntConfig) Start(t *testing.T) *HuntReport {
	t.Helper()
	if !*c.on {
		t.Skip("run with -huntreport")
	}
	r := &HuntReport{t: t, seeds: *c.seeds, budget: *c.budget}
	r.rows = []string{r.header()}
	return r
}

// HuntReport compares, bug by bug, how many executions each of
// HuntStrategies needs to find a bug, with the same seeds and budget.
type HuntReport struct {
	t             *testing.T
	seeds, budget int
	rows          []string
}

// HuntStrategies are the strategies compared, each with the same budget.
var HuntStrategies = []string{"random", "portfolio", "surw", "bounded", "hunt"}

// huntCell is what one strategy did on one bug over the seeds.
type huntCell struct {
	execs []int // executions to find, budget+1 when not found
	found int
	other []string      // failures found that were not the bug looked for
	total int           // executions run, over all seeds
	wall  time.Duration // wall time of the explorations (and shrinking, unless -dst.shrink=false)
	cpu   time.Duration // the process's CPU time over the same
}

// Measure explores body with each strategy and seeds 1..seeds, within the
// budget each, counting for each seed the executions it took to find a
// failure that is the bug (is reports true); a failure that is not the bug
// counts as not found, and is logged. It adds the bug's row to the table.
func (r *HuntReport) Measure(name string, o schedtest.Options, body func(*schedtest.T), is func(*schedtest.Failure) bool) {
	t := r.t
	t.Helper()
	cells := make([]huntCell, len(HuntStrategies))
	for i, strategy := range HuntStrategies {
		c := &cells[i]
		start, cpu0 := time.Now(), cpuTime()
		for s := 1; s <= r.seeds; s++ {
			o := o
			o.Strategy, o.Seed, o.Iterations = strategy, uint64(s), r.budget
			res, err := schedtest.Explore(o, body)
			if err != nil {
				t.Fatalf("%s seed %d: %v", strategy, s, err)
			}
			c.total += res.Schedule
			n := r.budget + 1
			switch {
			case res.Failure == nil:
			case is(res.Failure):
				n = res.Schedule
				c.found++
			default:
				msg, _, _ := strings.Cut(res.Failure.Message, "\n")
				t.Logf("%s, %s: found another failure: seed %d: %s %s", name, strategy, s, res.Failure.Kind, msg)
			}
			c.execs = append(c.execs, n)
		}
		c.wall, c.cpu = time.Since(start), cpuTime()-cpu0
		slices.Sort(c.execs)
	}
	r.rows = append(r.rows, r.row(name, cells))
}

// Log prints the table.
func (r *HuntReport) Log() { r.t.Logf("\n%s", strings.Join(r.rows, "\n")) }

// row formats one bug's row of the table.
func (r *HuntReport) row(name string, cells []huntCell) string {
	count := func(n int) string {
		if n > r.budget {
			return fmt.Sprintf(">%d", r.budget)
		}
		return fmt.Sprint(n)
	}
	row := "| " + name + " |"
	var cost, rate []string
	for _, c := range cells {
		row += fmt.Sprintf(" %d/%d · %s · %s |", c.found, r.seeds, count(c.execs[(len(c.execs)-1)/2]), count(slices.Max(c.execs)))
		cost = append(cost, fmt.Sprintf("%.0f", float64(c.wall.Microseconds())/float64(c.total)))
		rate = append(rate, fmt.Sprintf("%.0f", float64(c.found)/max(c.cpu.Minutes(), 1e-9)))
	}
	return row + " " + strings.Join(cost, " / ") + " | " + strings.Join(rate, " / ") + " |"
}

// cpuTime is the CPU time the process has used, user and system: a
// finding's cost where wall time would also count the other processes of
// a shared machine.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// header is the table's header.
func (r *HuntReport) header() string {
	h := "| bug |"
	sep := "|---|"
	for _, s := range HuntStrategies {
		h += " " + s + " |"
		sep += "---|"
	}
	h += " µs per execution (" + strings.Join(HuntStrategies, " / ") + ") | finds per CPU-minute |"
	sep += "---|---|"
	return fmt.Sprintf("per strategy: seeds that found the bug · median · max executions to find it (>%d: not found)\n%s\n%s", r.budget, h, sep)
}
