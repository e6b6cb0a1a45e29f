package schedtest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/gotest"
)

// failsAlone runs x's failing schedule again in a child process of the
// test binary, as its reproduce line would: the test alone, first in a
// fresh process, with this process's go test and -dst.* flags but for the
// schedule, which the child is given (runChild, scheduleArgs); and then a
// second time in the same child (-test.count=2). It reports whether the child
// passed the schedule the first time and failed it the second: then the
// failure here was not the interleaving's but the process's, state that an
// earlier run of the test left behind (a registry of names, package-level
// variables), which a test written to run once per process (go test's
// default) meets only when run again, as under go test -count=2. Anything
// else (the child fails the first time, passes both times, crashes, times
// out, cannot start) is reported as found: a failure that needs earlier,
// different schedules may be a bug an earlier schedule left in place.
//
// A failure that did not repeat when the run was re-executed here for its
// report (x.note) depends on what the scheduler does not control: state
// that each execution changes (gobreaker's package-level breakers, which an
// earlier test's schedules changed too), or chance (map order, the real
// clock). One child passing then failing could be chance, so such a
// failure needs two children in a row that each pass then fail; else it is
// reported as found. A child costs a start of the test binary and two
// schedules, paid once per failure found, not per schedule.
func failsAlone(t *testing.T, o Options, x exploration) (passed bool, why string) {
	if o.namedBy != "" || o.isWorker || x.res == nil || x.res.Failure == nil {
		return false, "" // it ran the named schedule alone already, or it is a hunt's worker
	}
	switch x.res.Failure.Kind {
	case DataRace:
		return false, "" // race.go: the detector's reports depend on the process in other ways
	case StepBound:
		return false, "" // the work outgrew the bound: a fresh process does the same work
	}
	args, cleanup, err := scheduleArgs(t.Name(), o, x)
	if err != nil {
		return false, ""
	}
	defer cleanup()
	// Only the schedule differs from this process's command line; the
	// child neither shrinks nor saves (this process does, if it reports).
	args = append(args, "-test.count=2", "-dst.shrink=false", "-dst.dir=off")
	children := 1
	if x.note != "" {
		children = 2
	}
	for range children {
		out, err := runChild(t, aloneTimeout(x), false, args, aloneEnv+"=1")
		if err != nil && !childFailed(err) {
			return false, ""
		}
		v := childVerdicts(out, t.Name())
		if len(v) != 2 || v[0] != "PASS" || v[1] != "FAIL" {
			return false, ""
		}
		why = childOutput(out)
	}
	return true, why
}

// childVerdicts are go test's verdicts on the test called name in a
// child's -test.v output, in order (one per -test.count).
func childVerdicts(out, name string) []string {
	var v []string
	for _, m := range regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): `+regexp.QuoteMeta(name)+` \(`).FindAllStringSubmatch(out, -1) {
		v = append(v, m[1])
	}
	return v
}

// aloneEnv is set in the child that failsAlone starts (for tests of it).
const aloneEnv = "DST_ALONE"

// aloneTimeout bounds the child of failsAlone: the schedule took
// x.elapsed/x.n on average here; the child gets plenty more for its two,
// and the start of a test binary.
func aloneTimeout(x exploration) time.Duration {
	per := x.elapsed / time.Duration(max(x.n, 1))
	return min(max(40*per+30*time.Second, time.Minute), 10*time.Minute)
}

// stateNote is what a test says when its failure did not survive running
// the schedule alone in a fresh process.
func stateNote(name string, x exploration, child string) string {
	return fmt.Sprintf("sched: note: %s failed in schedule %d here (%s), but that schedule passes when it runs alone "+
		"in a fresh process, as its reproduce line would run it, and fails when the test runs a second time there "+
		"with the same schedule: the failure came from state that an earlier run of the test left in the process "+
		"(package-level variables, registrations, goroutines), not from the interleaving (natively, go test -count=2 -run '%s' may meet the same). It is not reported as a "+
		"bug, and the exploration stopped after %d schedules. To explore this test further, make it independent of "+
		"what an earlier run leaves behind.\n\nthe failure in this process:\n%s\nthe child's output:\n%s",
		name, x.n, x.res.Failure.Kind, gotest.RunPattern(name), x.n, firstLines(x.res.Failure.Error(), 40), child)
}

// firstLines is s cut to its first n lines.
func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "") + "...\n"
}
