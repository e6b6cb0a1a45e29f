package schedtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/gotest"
)

// failsAlone runs x's failing schedule again as a child process of the
// test binary would on a reproduce line: the test alone, that one schedule
// (scheduleArgs), first in a fresh process. It reports whether the child
// passed it; when it did, the failure here was not the schedule's but the
// process's: the state that earlier tests, or earlier schedules of this
// one, left behind (package-level variables, registrations, goroutines),
// which a test written to run once per process (go test's default) meets
// only when run again, as under go test -count=2. A child that cannot be
// started, crashes, times out or fails counts as not passing.
//
// The child costs a start of the test binary and one schedule, paid once
// per failure found, not per schedule.
func failsAlone(t *testing.T, o Options, x exploration) (passed bool, why string) {
	if o.namedBy != "" || o.isWorker || x.res == nil || x.res.Failure == nil {
		return false, "" // it ran the named schedule alone already, or it is a hunt's worker
	}
	if x.res.Failure.Kind == DataRace {
		return false, "" // race.go: the detector's reports depend on the process in other ways
	}
	args, cleanup, err := scheduleArgs(t.Name(), o, x)
	if err != nil {
		return false, ""
	}
	defer cleanup()
	ctx, cancel := context.WithTimeout(context.Background(), aloneTimeout(x))
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append(args, "-test.v=true")...)
	cmd.Env = append(os.Environ(), aloneEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) || ctx.Err() != nil {
		return false, ""
	}
	return err == nil && childVerdict(string(out), t.Name()) == "PASS", childOutput(string(out))
}

// aloneEnv is set in the child that failsAlone starts (for tests of it).
const aloneEnv = "DST_ALONE"

// aloneTimeout bounds the child of failsAlone: the schedule took
// x.elapsed/x.n on average here; the child gets plenty more, and the
// start of a test binary.
func aloneTimeout(x exploration) time.Duration {
	per := x.elapsed / time.Duration(max(x.n, 1))
	return min(max(20*per+30*time.Second, time.Minute), 10*time.Minute)
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
		"in a fresh process, as its reproduce line would run it: the failure came from state that earlier tests, or "+
		"earlier schedules of this one, left in this process (package-level variables, registrations, goroutines), "+
		"or from something outside the scheduler, not from the interleaving (natively, go test -count=2 -run '%s' may meet the same). It is not reported as a "+
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
