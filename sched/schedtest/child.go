package schedtest

import (
	"context"
	"errors"
	"flag"
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

// A test runs again in a child process of the test binary when this
// process cannot tell what it needs to: whether its failure repeats in a
// fresh process (failsAlone), or what a race detector that reports every
// race says of it (raceInChild, raceElsewhere). runChild starts every
// such child, the same way.

// childGrace is how long before the test's deadline a child must end,
// and how long a child's output is waited for once it has been killed
// (exec.Cmd.WaitDelay): time for this process to report.
const childGrace = 5 * time.Second

// runChild runs the test t again, alone, in a child process of the test
// binary, with -test.v and this process's flags that change how a test
// runs (childFlags; with explore, also those that say what to explore),
// then args, which take precedence, in this process's environment with
// env added. The child is given at most bound (0: no bound of its own),
// and ends childGrace before t's deadline: its -test.timeout says so, and
// it is killed then. It returns the child's combined output and, when the
// child did not pass, why: an *exec.ExitError when it ran to its end and
// failed, another error when it could not start, was given no time, or ran
// out of it.
//
// A child never starts a child of its own, and neither does any process
// started under it (childEnv): a test that runs its own binary as peers
// (groupcache's TestHTTPPool) would otherwise have each peer that fails
// start a child that, lacking the peer's flags, started peers of its own,
// and so on (a helper met 1,830 processes). The child is given this
// process's own flags too, those the test itself defines, so that it runs
// as this process did (a peer as a peer).
func runChild(t *testing.T, bound time.Duration, explore bool, args []string, env ...string) (string, error) {
	if os.Getenv(childEnv) != "" {
		return "", errors.New("a process that a test's child started starts no child of its own")
	}
	timeout := bound
	if d, ok := t.Deadline(); ok {
		left := time.Until(d) - childGrace
		if left <= 0 {
			return "", fmt.Errorf("no time was left before the test's deadline (%v)", d.Format(time.TimeOnly))
		}
		if timeout == 0 || left < timeout {
			timeout = left
		}
	}
	ctx := context.Background()
	all := append([]string{"-test.run=" + gotest.RunPattern(t.Name()), "-test.v=true"}, childFlags(explore)...)
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
		all = append(all, "-test.timeout="+timeout.String())
	}
	all = append(all, args...)
	if rest := flag.Args(); len(rest) > 0 {
		all = append(append(all, "--"), rest...)
	}
	cmd := exec.CommandContext(ctx, os.Args[0], all...)
	cmd.Env = append(append(os.Environ(), env...), childEnv+"=1")
	if os.Getenv(TestTimeoutEnv) == "" {
		// A wrapped test's runs time out at go test's -timeout on the
		// virtual clock (nativetest.Wrap): the child's is this process's,
		// not the bound its own -test.timeout says.
		if d, ok := gotest.Timeout(); ok {
			cmd.Env = append(cmd.Env, TestTimeoutEnv+"="+d.String())
		}
	}
	cmd.WaitDelay = childGrace
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), fmt.Errorf("it ran out of time (%v): %w", timeout, ctx.Err())
	}
	return string(out), err
}

// childFailed reports whether err, from runChild, says that the child ran
// to its end and failed.
func childFailed(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit)
}

// childFlags are this process's flags that a child running one of its
// tests again shares: the -dst.* flags, but for those that say what to
// explore (scheduleFlags), unless explore; those of go test's that change
// how a test runs (childTestFlags), not its outputs (profiles, coverage,
// the go command's test log), which are this process's to write; and
// those the test binary's own code defines. Which test, how many times,
// -test.v and the timeout are runChild's.
func childFlags(explore bool) []string {
	var args []string
	flag.Visit(func(f *flag.Flag) {
		switch {
		case strings.HasPrefix(f.Name, "dst.") && (explore || !scheduleFlags[f.Name]), childTestFlags[f.Name],
			!strings.HasPrefix(f.Name, "dst.") && !strings.HasPrefix(f.Name, "test."):
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	return args
}

// childEnv is set in every child runChild starts, and so in every process
// started under it.
const childEnv = "DST_SCHEDTEST_CHILD"

// childTestFlags are the flags of go test's that change how a test runs.
var childTestFlags = map[string]bool{
	"test.short": true, "test.paniconexit0": true, "test.fullpath": true, "test.skip": true, "test.failfast": true,
}

// scheduleFlags are the -dst.* flags that say what to explore, or where
// results go: a child that runs one schedule is given its own.
var scheduleFlags = map[string]bool{
	"dst.seed": true, "dst.iters": true, "dst.time": true, "dst.strategy": true, "dst.depth": true,
	"dst.pctsteps": true, "dst.replay": true, "dst.trace": true, "dst.break": true, "dst.dir": true,
	"dst.prune": true, "dst.corpus": true, "dst.worker": true, "dst.keepgoing": true, "dst.input": true,
	"dst.crashtrace": true, "dst.shrink": true, "dst.v": true,
}

// scheduleArgs are the arguments of a child that runs the test called
// name on x's schedule alone, as its reproduce line does: a -dst.replay
// handle, or, for a handle too long for a command line, an input file
// (cleanup removes it); and the options of o that the flags of this
// process do not carry.
func scheduleArgs(name string, o Options, x exploration) (args []string, cleanup func(), err error) {
	cleanup = func() {}
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

// TestTimeoutEnv names the variable that tells a child process of the test
// binary the -timeout go test gave the process that started it: a wrapped
// test's virtual timeout is that, in the child too (nativetest.Wrap).
const TestTimeoutEnv = gotest.TimeoutEnv
