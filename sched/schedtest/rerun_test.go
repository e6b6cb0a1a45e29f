package schedtest_test

import (
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
)

// failures counts the failing executions of TestChildPilesUp's body in
// the process: state outside the run that every execution changes, as
// gobreaker's package-level circuit breakers count every request (issue
// 25: its report quoted "Requests:172", which a dozen re-executions of the
// failing schedule had piled up).
var failures atomic.Int32

// TestChildPilesUp fails on one order of two goroutines (every schedule,
// with DST_CHILD=at-once), with the number of the failing execution in
// its message and its log; from the failing execution after (at-once),
// or the two after (in-shrinking), the first, it fails at a second place
// too, as a test whose state piles up does.
func TestChildPilesUp(t *testing.T) {
	agree := map[string]int32{"at-once": 1, "in-shrinking": 2}[os.Getenv("DST_CHILD")]
	if agree == 0 {
		t.Skip("run by TestReportIsOfOneExecution")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 50, Seed: 3, Strategy: "random"}, func(t *schedtest.T) {
		var mu sched.Mutex
		var order []string
		var wg sched.WaitGroup
		for _, name := range []string{"a", "b"} {
			wg.Go(func() { mu.Lock(); order = append(order, name); mu.Unlock() })
		}
		wg.Wait()
		if order[0] == "a" && agree == 2 {
			return
		}
		n := failures.Add(1)
		t.Logf("failing execution %d", n)
		t.Errorf("Requests:%d", n)
		if n > agree {
			t.Errorf("state left by %d failing executions", n-1)
		}
	})
}

// The report of a failure quotes one execution: the one whose trace it
// saves and whose schedule its reproduce line runs. A re-execution of the
// schedule (to record source locations and the trace; to shrink it) that
// fails another way, as state outside the run piles up, does not stand in
// for it; one that fails the same way with other messages is reported
// with the first execution's quoted in a note.
func TestReportIsOfOneExecution(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	// The re-execution that records source locations fails another way:
	// the report is of the first execution, without its locations or a
	// trace, and says why.
	out, _ := child(t, ".", "at-once", os.Args[0], "-test.run=^TestChildPilesUp$")
	for _, want := range []string{
		"--- FAIL: TestChildPilesUp",
		"note: re-executing this schedule to record source locations failed another way (test failed at rerun_test.go:",
		"so the report below is of its first execution",
		"goroutine 1: Requests:1\n",
		"[goroutine 1] failing execution 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"Requests:2", "failing execution 2", "state left by", "trace saved", "shrunk from"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("the report has %q, of a later execution:\n%s", unwanted, out)
		}
	}

	// The schedule's two executions fail the same way, the executions
	// of shrinking another: the report is of the schedule as found, not
	// shrunk, quoting its second execution, whose trace is saved, and
	// the first's in a note.
	saved := t.TempDir()
	out, _ = childSaving(t, saved, ".", "in-shrinking", os.Args[0], "-test.run=^TestChildPilesUp$")
	for _, want := range []string{
		"--- FAIL: TestChildPilesUp",
		"it failed the same way as the schedule's first execution (test failed at rerun_test.go:",
		"The first execution's:\n          goroutine 1: Requests:1\n          log:\n            [goroutine 1] failing execution 1\n",
		": Requests:2\n",
		"[goroutine 1] failing execution 2\n",
		"-dst.seed=",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"Requests:3", "failing execution 3", "state left by", "shrunk from"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("the report has %q, of a later execution:\n%s", unwanted, out)
		}
	}
	m := regexp.MustCompile(`trace saved as (\S+\.trace)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no trace saved:\n%s", out)
	}
	r, err := trace.OpenFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Outcome == nil || !strings.HasSuffix(r.Outcome.Message, ": Requests:2") {
		t.Errorf("the saved trace's outcome is %+v, not the reported execution's", r.Outcome)
	}
	events, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range events {
		if e.Text != "" {
			texts = append(texts, e.Text)
		}
	}
	if text := strings.Join(texts, "\n"); !strings.Contains(text, "failing execution 2") || strings.Contains(text, "failing execution 3") {
		t.Errorf("the saved trace does not log the reported execution's text:\n%s", text)
	}
}
