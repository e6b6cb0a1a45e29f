package bugs

import (
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/sched/schedtest"
)

// TestCatalogue: every buggy version is found within 1000 executions, as
// the kind of failure it should be, and no fixed twin ever fails.
func TestCatalogue(t *testing.T) {
	c := Catalogue()
	if len(c) < 25 {
		t.Errorf("the catalogue has %d patterns, want at least 25", len(c))
	}
	for _, p := range c {
		t.Run(p.Name, func(t *testing.T) {
			if p.Buggy == nil || p.Fixed == nil || p.Native == nil || p.Expect == "" || p.Class == "" {
				t.Fatalf("incomplete pattern %+v", p)
			}
			o := p.Options
			o.Seed, o.Iterations = 1, 1000
			res, err := schedtest.Explore(o, p.Buggy)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure == nil {
				t.Fatalf("not found in %d executions", res.Schedule)
			}
			if res.Failure.Kind != p.Expect {
				t.Fatalf("found as %s, want %s:\n%s", res.Failure.Kind, p.Expect, res.Failure)
			}
			o.Iterations = 300
			if res, _ := schedtest.Explore(o, p.Fixed); res.Failure != nil {
				t.Fatalf("the fixed twin failed in schedule %d:\n%s", res.Schedule, res.Failure)
			}
		})
	}
}

var report = flag.Bool("report", false, "TestReport: measure executions to first detection, scheduler vs native")

// TestReport prints, per pattern, whether the scheduler finds the bug, the
// median executions to first detection over several seeds, and the wall
// time; and the native baseline's detection rate and executions to first
// detection. Run it with:
//
//	go test ./examples/bugs -run TestReport -report -v
func TestReport(t *testing.T) {
	if !*report {
		t.Skip("run with -report")
	}
	const seeds, nativeRuns = 9, 50
	var lines []string
	var medians []int
	for _, p := range Catalogue() {
		var execs []int
		start := time.Now()
		for s := range seeds {
			o := p.Options
			o.Seed, o.Iterations = uint64(s+1), 1000
			res, _ := schedtest.Explore(o, p.Buggy)
			n := 1001
			if res.Failure != nil {
				n = res.Schedule
			}
			execs = append(execs, n)
		}
		sort.Ints(execs)
		med := execs[len(execs)/2]
		medians = append(medians, med)
		wall := time.Since(start) / seeds
		found, first := 0, 0
		for i := range nativeRuns {
			if p.Native() != nil {
				found++
				if first == 0 {
					first = i + 1
				}
			}
		}
		firstS := "never"
		if first > 0 {
			firstS = fmt.Sprint(first)
		}
		lines = append(lines, fmt.Sprintf("| %s | %s | %d | %d | %v | %d/%d | %s |",
			p.Name, p.Expect, med, slices.Max(execs), wall.Round(time.Microsecond), found, nativeRuns, firstS))
	}
	sort.Ints(medians)
	t.Logf("\n| pattern | reported as | median execs | worst of %d seeds | wall per hunt | native detected | native first |\n|---|---|---|---|---|---|---|\n%s\nmedian of medians: %d",
		seeds, strings.Join(lines, "\n"), medians[len(medians)/2])
}
