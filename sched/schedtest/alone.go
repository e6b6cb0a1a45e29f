package schedtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/gotest"
)

// failsAlone runs x's failing schedule again in a child process of the
// test binary, as its reproduce line would: the test alone, first in a
// fresh process, with this process's go test and -dst.* flags but for the
// schedule, which the child is given (scheduleArgs); and then a second
// time in the same child (-test.count=2). It reports whether the child
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
// report (x.note) depends on what the scheduler does not control, and one
// child passing says nothing about it: it is reported as found. The child
// costs a start of the test binary and two schedules, paid once per
// failure found, not per schedule.
func failsAlone(t *testing.T, o Options, x exploration) (passed bool, why string) {
	if o.namedBy != "" || o.isWorker || x.res == nil || x.res.Failure == nil || x.note != "" {
		return false, "" // it ran the named schedule alone already, it is a hunt's worker, or it is not repeatable
	}
	if x.res.Failure.Kind == DataRace {
		return false, "" // race.go: the detector's reports depend on the process in other ways
	}
	args, cleanup, err := scheduleArgs(t.Name(), o, x)
	if err != nil {
		return false, ""
	}
	defer cleanup()
	timeout := aloneTimeout(x)
	if d, ok := t.Deadline(); ok {
		timeout = min(timeout, time.Until(d)-5*time.Second)
	}
	if timeout <= 0 {
		return false, ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// Only the schedule differs from this process's command line; the
	// child neither shrinks nor saves (this process does, if it reports).
	args = append(args, "-test.count=2", "-test.v=true", "-test.timeout="+timeout.String(),
		"-dst.shrink=false", "-dst.dir=off")
	cmd := exec.CommandContext(ctx, os.Args[0], append(inheritedArgs(), args...)...)
	cmd.Env = append(os.Environ(), aloneEnv+"=1")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) || ctx.Err() != nil {
		return false, ""
	}
	v := childVerdicts(string(out), t.Name())
	return len(v) == 2 && v[0] == "PASS" && v[1] == "FAIL", childOutput(string(out))
}

// inheritedArgs are the flags of this process that a child running one of
// its tests again must share (go test's that change how a test runs, and
// the -dst.* flags), but for those that name what to explore, which the
// child is given.
func inheritedArgs() []string {
	var args []string
	for _, a := range childArgs("") {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !scheduleFlags[name] && name != "test.run" && name != "test.count" && name != "test.v" {
			args = append(args, a)
		}
	}
	return args
}

// scheduleFlags are the -dst.* flags that say what to explore, or where
// results go: a child that runs one schedule is given its own.
var scheduleFlags = map[string]bool{
	"dst.seed": true, "dst.iters": true, "dst.time": true, "dst.strategy": true, "dst.depth": true,
	"dst.pctsteps": true, "dst.replay": true, "dst.trace": true, "dst.break": true, "dst.dir": true,
	"dst.prune": true, "dst.corpus": true, "dst.worker": true, "dst.keepgoing": true, "dst.input": true,
	"dst.crashtrace": true, "dst.shrink": true, "dst.v": true,
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

// scheduleArgs are the arguments of a child test binary that runs the test
// called name once, x's schedule alone, as its reproduce line does: a
// -dst.replay handle, or, for a handle too long for a command line, an
// input file (cleanup removes it).
func scheduleArgs(name string, o Options, x exploration) (args []string, cleanup func(), err error) {
	cleanup = func() {}
	args = []string{"-test.run=" + gotest.RunPattern(name), "-test.count=1"}
	s := x.drawn()
	if s.Recording != nil && len(s.Recording.Handle()) > maxHandle {
		rec := s.Recording
		if x.res != nil && x.res.Recording != nil {
			rec = x.res.Recording
		}
		path, err := inputFile(name, s, rec)
		if err != nil {
			return nil, cleanup, err
		}
		args = append(args, "-dst.input="+path)
		cleanup = func() { os.Remove(path) }
	} else {
		args = append(args, s.Flags()...)
	}
	if o.MaxSteps != engine.DefaultMaxSteps {
		args = append(args, "-dst.maxsteps="+strconv.Itoa(o.MaxSteps))
	}
	if o.noShrink {
		args = append(args, "-dst.shrink=false")
	}
	if flags.dir != "" {
		args = append(args, "-dst.dir="+flags.dir)
	}
	return args, cleanup, nil
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
