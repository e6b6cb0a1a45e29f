package schedtest

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
)

// tbase is what T embeds: the real test, or nil under Run.
type tbase = testing.TB

// T is what the body of a run receives. It implements testing.TB, so it
// passes to helpers that take one. Error, Fatal and their friends fail the
// run, and the harness reports the failure with its schedule; Log output is
// kept and shown only when the run fails. They may be called from any
// goroutine of the run. Methods that T does not override (TempDir, Setenv,
// Context, ...) act on the enclosing test.
type T struct {
	testing.TB
	name     string
	cleanups []func()
	natively bool // the body runs outside any run (runNatively)
}

// current returns the calling managed goroutine, or nil when the caller is
// not one (then T forwards to the enclosing test, if there is one).
func (t *T) current() *engine.G {
	g := engine.Current()
	if g == nil && t.TB == nil {
		panic("sched: a T method was called from a goroutine the run does not manage; " +
			"call it from the body or from goroutines started with sched.Go")
	}
	return g
}

// Name returns the name of the test being run.
func (t *T) Name() string { return t.name }

// Helper marks the calling function as a test helper, as testing.T's does:
// a failure it reports is placed at the line that called it (or, through
// helpers that call helpers, at the first caller that is not one).
func (t *T) Helper() {
	if g := engine.Current(); g != nil {
		g.Helper()
	}
}

// Log records its arguments, formatted as by fmt.Sprintln, for the report.
func (t *T) Log(args ...any) { t.log(sprintln(args...)) }

// Logf records its arguments, formatted as by fmt.Sprintf, for the report.
func (t *T) Logf(format string, args ...any) { t.log(fmt.Sprintf(format, args...)) }

// Error is Log followed by Fail.
func (t *T) Error(args ...any) { t.error(sprintln(args...)) }

// Errorf is Logf followed by Fail.
func (t *T) Errorf(format string, args ...any) { t.error(fmt.Sprintf(format, args...)) }

// Fail marks the run as failed; it goes on to its end.
func (t *T) Fail() { t.error("test marked failed") }

// FailNow marks the run as failed and stops it: the calling goroutine exits
// and no other goroutine runs again.
func (t *T) FailNow() {
	if g := t.current(); g != nil {
		g.FailNow()
		return
	}
	t.TB.FailNow()
}

// Fatal is Log followed by FailNow.
func (t *T) Fatal(args ...any) {
	t.Error(args...)
	t.FailNow()
}

// Fatalf is Logf followed by FailNow.
func (t *T) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	t.FailNow()
}

// Failed reports whether the run has failed.
func (t *T) Failed() bool {
	if g := t.current(); g != nil {
		return g.Failed()
	}
	return t.TB.Failed()
}

// Skip, Skipf and SkipNow fail the run: a schedule cannot be skipped. Skip
// the test before calling Test instead. Outside a run (a body that
// TestWith runs natively), they skip the enclosing test.
func (t *T) Skip(args ...any) {
	if t.natively {
		t.TB.Helper()
		t.TB.Skip(args...)
	}
	t.Fatal("sched: T.Skip inside a run is not supported: " + sprintln(args...))
}
func (t *T) Skipf(format string, args ...any) {
	if t.natively {
		t.TB.Helper()
		t.TB.Skipf(format, args...)
	}
	t.Fatalf("sched: T.Skipf inside a run is not supported: "+format, args...)
}
func (t *T) SkipNow() {
	if t.natively {
		t.TB.Helper()
		t.TB.SkipNow()
	}
	t.Fatal("sched: T.SkipNow inside a run is not supported")
}

// Cleanup registers f to be called when this run has ended, after every
// managed goroutine has stopped, in last-added-first-called order.
func (t *T) Cleanup(f func()) {
	t.current()
	t.addCleanup(f)
}

// Entropy returns the run's entropy source, for drawing test inputs: values
// drawn from it are part of the schedule and are reproduced with it.
func (t *T) Entropy() *entropy.Source {
	if g := t.current(); g != nil {
		return g.Source()
	}
	panic("sched: T.Entropy called outside the run")
}

func (t *T) log(s string) {
	if g := t.current(); g != nil {
		g.Log(s)
		return
	}
	t.TB.Log(s)
}

func (t *T) error(s string) {
	if g := t.current(); g != nil {
		g.Error(s)
		return
	}
	t.TB.Error(s)
}

//go:norace
func (t *T) addCleanup(f func()) { t.cleanups = append(t.cleanups, f) }

//go:norace
func (t *T) runCleanups() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

func sprintln(args ...any) string {
	s := fmt.Sprintln(args...)
	return s[:len(s)-1]
}

// The methods below act on the enclosing test. Under Run and Explore there
// is none: TempDir and Context still work, the others say what is missing.

// TempDir returns a temporary directory for the test, removed when the test
// (under Run: the run) ends.
func (t *T) TempDir() string {
	if t.TB != nil {
		return t.TB.TempDir()
	}
	dir, err := os.MkdirTemp("", "sched-run-")
	if err != nil {
		panic(fmt.Sprintf("sched: T.TempDir: %v", err))
	}
	t.addCleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Context returns the enclosing test's context, or a background context
// under Run and Explore.
func (t *T) Context() context.Context {
	if t.TB != nil {
		return t.TB.Context()
	}
	return context.Background()
}

func (t *T) needTB(method string) testing.TB {
	if t.TB == nil {
		panic("sched: T." + method + " needs an enclosing test: it is not available under schedtest.Run or schedtest.Explore")
	}
	return t.TB
}

// Setenv, Chdir, Attr, Output, ArtifactDir and Skipped act on the enclosing
// test, and panic with an explanation under Run and Explore.
func (t *T) Setenv(key, value string) { t.needTB("Setenv").Setenv(key, value) }
func (t *T) Chdir(dir string)         { t.needTB("Chdir").Chdir(dir) }
func (t *T) Attr(key, value string)   { t.needTB("Attr").Attr(key, value) }
func (t *T) Output() io.Writer        { return t.needTB("Output").Output() }
func (t *T) ArtifactDir() string      { return t.needTB("ArtifactDir").ArtifactDir() }
func (t *T) Skipped() bool            { return t.TB != nil && t.TB.Skipped() }
