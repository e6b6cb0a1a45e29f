package schedtest_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// The three tests TestDeadlineIsShared runs, each a thousand schedules
// of 5 ms of work: 5 s each, more than the binary's -timeout.
func TestChildDeadlineA(t *testing.T) { slowSchedules(t) }
func TestChildDeadlineB(t *testing.T) { slowSchedules(t) }
func TestChildDeadlineC(t *testing.T) { slowSchedules(t) }

func slowSchedules(t *testing.T) {
	if os.Getenv("DST_CHILD") != "deadline" {
		t.Skip("run by TestDeadlineIsShared")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 1000, Seed: 1}, func(t *schedtest.T) {
		sched.Go(sched.Yield)
		for start := time.Now(); time.Since(start) < 5*time.Millisecond; {
		}
	})
}

// Each test explores for its part of the time go test's -timeout leaves,
// counted by the tests -run selects after it, so that the first slow test
// cannot spend the binary's time. Regression: with a quarter of what was
// left whatever followed, the first twelve slow tests of ants' suite spent
// 31 of its 40 minutes and 33 tests never ran.
func TestDeadlineIsShared(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	out, err := child(t, ".", "deadline", os.Args[0], "-test.run=^TestChildDeadline[ABC]$", "-test.v", "-test.timeout=3s")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		`(?s)=== RUN   TestChildDeadlineA\n.*at most 1/6 of the time go test's -timeout left the test binary when it began \(\d+s; 2 tests run after it\)`,
		`(?s)=== RUN   TestChildDeadlineB\n.*at most 1/5 of the time go test's -timeout left the test binary when it began \(\d+s; 1 test runs after it\)`,
		`(?s)=== RUN   TestChildDeadlineC\n.*at most 1/4 of the time go test's -timeout left the test binary when it began \(\d+s; it is the last test to run\)`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("no match for %s in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "--- PASS: TestChildDeadline"); n != 3 {
		t.Errorf("%d of the 3 tests passed:\n%s", n, out)
	}
	// Under -count=2 the tests of the second round count too.
	out, err = child(t, ".", "deadline", os.Args[0], "-test.run=^TestChildDeadlineA$", "-test.v", "-test.timeout=3s", "-test.count=2")
	if err != nil || !strings.Contains(out, "(3s; 1 test runs after it)") || !strings.Contains(out, "it is the last test to run)") {
		t.Errorf("-test.count=2: err %v\n%s", err, out)
	}
}
