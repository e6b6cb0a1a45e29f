package schedtest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// readAtInit is the real time this package's init read, as code under the
// scheduler reads it there (gobreaker makes a breaker in init whose expiry
// is now + 30s); only in the children of TestClockStartsAfterInit, so
// that other tests' clocks start where they expect.
var readAtInit time.Time

func init() {
	if strings.HasPrefix(os.Getenv("DST_CHILD"), "clock-") {
		readAtInit = vtime.Now()
	}
}

// TestChildClockAfterInit checks, in a child whose init read the real
// clock, that a run's clock starts after that reading: a deadline set at
// init for 30s later has passed once the body has slept 30s, as in Go.
// With DST_CHILD=clock-fail it fails once, for its report.
func TestChildClockAfterInit(t *testing.T) {
	mode := os.Getenv("DST_CHILD")
	if !strings.HasPrefix(mode, "clock-") {
		t.Skip("run by TestClockStartsAfterInit")
	}
	expiry := readAtInit.Add(30 * time.Second)
	var first time.Time
	schedtest.TestWith(t, schedtest.Options{Iterations: 5}, func(t *schedtest.T) {
		start := vtime.Now()
		if first.IsZero() {
			first = start
		} else if !start.Equal(first) {
			t.Fatalf("a schedule's clock started at %v, the first's at %v: every schedule of an exploration starts at the same instant", start, first)
		}
		if !start.After(readAtInit) {
			t.Fatalf("the clock started at %v, before the real time %v read at init: time ran backwards", start, readAtInit)
		}
		vtime.Sleep(30 * time.Second)
		if !expiry.Before(vtime.Now()) {
			t.Errorf("after 30s the init's 30s deadline %v has not passed: now %v", expiry, vtime.Now())
		}
		if mode == "clock-fail" {
			t.Errorf("failing on purpose")
		}
	})
}

// TestClockStartsAfterInit: when code under the scheduler read the real
// clock outside a run, the runs' clock starts after it, the same instant
// for every schedule, and a failure's report says so.
func TestClockStartsAfterInit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	out, err := child(t, ".", "clock-pass", os.Args[0], "-test.run=^TestChildClockAfterInit$", "-test.v")
	if err != nil || !strings.Contains(out, "--- PASS: TestChildClockAfterInit") {
		t.Fatalf("the child failed (%v):\n%s", err, out)
	}
	out, _ = child(t, ".", "clock-fail", os.Args[0], "-test.run=^TestChildClockAfterInit$", "-dst.shrink=false")
	for _, want := range []string{"failing on purpose", "note: the virtual clock started at 20", "after the real time the program read outside the run"} {
		if !strings.Contains(out, want) {
			t.Errorf("the failing child's report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "before the real time") || strings.Contains(out, "has not passed") {
		t.Errorf("the failing child saw time run backwards:\n%s", out)
	}
}

// TestReplayKeepsGivenStart: a trace of a run whose Options gave its
// start replays at that start, though this process has read a later real
// time since; only a default or moved start moves.
func TestReplayKeepsGivenStart(t *testing.T) {
	t.Cleanup(engine.ForgetRealReadings)
	given := time.Date(2020, time.January, 2, 3, 4, 5, 6, time.UTC)
	var started time.Time
	body := func(t *schedtest.T) { started = vtime.Now() }
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Start: given, Record: true}, body)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "given.trace")
	if err := res.WriteTrace(path); err != nil {
		t.Fatal(err)
	}
	engine.NoteRealReading(time.Now()) // a real reading outside a run, as a package's init makes
	if _, err := schedtest.Replay(path, body); err != nil {
		t.Fatal(err)
	}
	if !started.Equal(given) {
		t.Errorf("the replay's clock started at %v, want the start the run was given, %v", started, given)
	}
}
