package nativetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// explore runs f as the function of a top-level test called TestX, as Wrap
// does, and returns how its first failing schedule failed. The channel f
// is given is closed once the test has completed.
func explore(t *testing.T, f func(*T, *chans.Chan[bool])) *schedtest.Failure {
	t.Helper()
	res, err := schedtest.Explore(schedtest.Options{Iterations: 20, Seed: 1}, func(rt *schedtest.T) {
		w := &T{T: t, run: rt, name: "TestX"}
		completed := chans.Make[bool](0)
		w.main(func(t *T) { f(t, completed) })
		completed.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Failure
}

// go test's checks on a *testing.T used after its test completed hold for
// a wrapped test's *T: a Log, an Error, a Fail, or a write to its Output
// once the test and its parents have completed panics with go test's
// message, which fails the run at the line that called it; while a parent
// is still running, a completed subtest's Log goes to the parent's log,
// and its Fail still panics.
func TestUseAfterCompletion(t *testing.T) {
	for _, c := range []struct {
		name, want string
		f          func(*T, *chans.Chan[bool])
	}{
		{"Log", "Log in goroutine after TestX has completed: late", func(t *T, completed *chans.Chan[bool]) {
			sched.Go(func() { completed.Recv(); t.Log("late") })
		}},
		{"Logf", "Log in goroutine after TestX has completed: late 1", func(t *T, completed *chans.Chan[bool]) {
			sched.Go(func() { completed.Recv(); t.Logf("late %d", 1) })
		}},
		{"Error", "Log in goroutine after TestX has completed: late", func(t *T, completed *chans.Chan[bool]) {
			sched.Go(func() { completed.Recv(); t.Error("late") })
		}},
		{"Fail", "Fail in goroutine after TestX has completed", func(t *T, completed *chans.Chan[bool]) {
			sched.Go(func() { completed.Recv(); t.Fail() })
		}},
		{"FailNow", "Fail in goroutine after TestX has completed", func(t *T, completed *chans.Chan[bool]) {
			sched.Go(func() { completed.Recv(); t.FailNow() })
		}},
		{"Output", "Output called after TestX has completed", func(t *T, completed *chans.Chan[bool]) {
			sched.Go(func() { completed.Recv(); t.Output() })
		}},
		{"Write", "Write called after TestX has completed", func(t *T, completed *chans.Chan[bool]) {
			w := t.Output()
			sched.Go(func() { completed.Recv(); fmt.Fprintln(w, "late") })
		}},
		{"SubtestFail", "Fail in goroutine after TestX/sub has completed", func(t *T, _ *chans.Chan[bool]) {
			after, done := chans.Make[bool](0), chans.Make[bool](0)
			t.Run("sub", func(t *T) {
				sched.Go(func() {
					after.Recv()
					t.Error("late")
					done.Send(true)
				})
			})
			after.Send(true)
			done.Recv()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := explore(t, c.f)
			if f == nil {
				t.Fatalf("passed, want a panic %q", c.want)
			}
			msg := f.Error()
			if f.Kind != schedtest.Panic || !strings.Contains(msg, "panic in goroutine ") || !strings.Contains(msg, c.want) {
				t.Fatalf("failed as %s, want a panic %q:\n%s", f.Kind, c.want, msg)
			}
			if !strings.Contains(msg, "completed_test.go:") {
				t.Errorf("the report does not name the line that called it:\n%s", msg)
			}
		})
	}
}

// A completed subtest's Log, while its parent runs, goes to the parent's
// log as in go test: no failure.
func TestLogAfterSubtestCompleted(t *testing.T) {
	f := explore(t, func(t *T, _ *chans.Chan[bool]) {
		after, done := chans.Make[bool](0), chans.Make[bool](0)
		t.Run("sub", func(t *T) {
			sched.Go(func() {
				after.Recv()
				t.Log("late")
				done.Send(true)
			})
		})
		after.Send(true)
		done.Recv()
	})
	if f != nil {
		t.Fatalf("failed:\n%s", f.Error())
	}
}

// Before completion nothing changes: Error fails the run as a test failure
// with its message, at its line.
func TestErrorBeforeCompletion(t *testing.T) {
	f := explore(t, func(t *T, _ *chans.Chan[bool]) {
		t.Log("kept")
		t.Error("wrong")
	})
	if f == nil || f.Kind != schedtest.TestFailed || !strings.Contains(f.Error(), "wrong") {
		t.Fatalf("failure %v, want the test failed with its message", f)
	}
}
