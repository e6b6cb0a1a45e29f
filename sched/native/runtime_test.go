package native_test

import (
	"strings"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
)

// worker blocks until release is closed, after saying it has started.
func worker(started chan<- bool, release <-chan struct{}, done chan<- bool) {
	native.To(started).Send(true)
	native.Recv(release)
	native.To(done).Send(true)
}

// TestNumGoroutineInsideARun: inside a run, NumGoroutine counts what the
// program would have in Go: the same number at the start of every run (the
// goroutines outside the run and the body, none of the tool's, none left
// over from an earlier run), one more for each goroutine started, one less
// for each that has exited, as soon as the scheduler has seen it exit
// (under -race a goroutine of the run lingers a while in the runtime after
// that: a test that polls NumGoroutine until its workers are gone would
// otherwise see one too many). Stack(false) is the body's own stack, ending
// at its function. Stack(all) holds as many goroutines as NumGoroutine, each
// worker as Go shows it: its state (blocked in chan receive, or runnable
// if it has not reached the receive yet), and its own function on top.
func TestNumGoroutineInsideARun(t *testing.T) {
	var starts []int
	res, err := schedtest.Run(schedtest.Options{Iterations: 200}, func(st *schedtest.T) {
		start := native.NumGoroutine()
		starts = append(starts, start)
		started, done := native.Make[chan bool](0), native.Make[chan bool](0)
		release := native.Make[chan struct{}](0)
		for range 10 {
			native.Go3(worker).Start(started, release, done)
		}
		for range 10 {
			native.Recv(started)
		}
		if n := native.NumGoroutine(); n != start+10 {
			st.Errorf("with 10 workers blocked: %d goroutines, want %d", n, start+10)
		}
		buf := make([]byte, 1<<20)
		dump := string(buf[:native.Stack(buf, true)])
		if n := strings.Count(dump, "goroutine "); n-strings.Count(dump, "in goroutine ") != start+10 {
			st.Errorf("Stack(all) holds %d goroutines, want %d:\n%s", n, start+10, dump)
		}
		if n := strings.Count(dump, "]:\ngithub.com/dstgo/dst/sched/native_test.worker("); n != 10 {
			st.Errorf("Stack(all) shows %d goroutines with worker on top, want 10:\n%s", n, dump)
		}
		const w = "]:\ngithub.com/dstgo/dst/sched/native_test.worker("
		if n := strings.Count(dump, "[chan receive"+w) + strings.Count(dump, "[runnable"+w); n != 10 {
			st.Errorf("Stack(all) shows %d goroutines in chan receive or runnable, want the 10 workers:\n%s", n, dump)
		}
		for _, tool := range []string{"internal/engine.", "sched/schedtest.", "iter.Pull", "sched/native.Recv"} {
			if strings.Contains(dump, tool) {
				st.Errorf("Stack(all) shows the tool's frames (%s):\n%s", tool, dump)
			}
		}
		own := string(buf[:native.Stack(buf, false)])
		if !strings.Contains(own, " [running]:\ngithub.com/dstgo/dst/sched/native_test.TestNumGoroutineInsideARun.func1(") ||
			strings.Contains(own, "internal/engine.") || strings.Contains(own, "sched/schedtest.") {
			st.Errorf("Stack(false) is not the body's own stack as Go shows it:\n%s", own)
		}
		native.Close(release)
		for range 10 {
			native.Recv(done)
		}
		for polls := 0; native.NumGoroutine() > start; polls++ {
			if polls == 1000 {
				st.Fatalf("the workers have returned, but %d goroutines remain of %d", native.NumGoroutine(), start)
			}
			sched.Yield()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatal(res.Failure.Error())
	}
	for _, n := range starts {
		if n != starts[0] || n < 2 {
			t.Fatalf("runs started with %v goroutines: want the same number in every run, the body and the goroutine running go test's main among them", starts)
		}
	}
}

// TestNumGoroutineOutsideARun: outside a run, NumGoroutine and Stack are
// the runtime's.
func TestNumGoroutineOutsideARun(t *testing.T) {
	if native.NumGoroutine() < 2 {
		t.Fatal("NumGoroutine outside a run does not count the test's goroutine and main's")
	}
	buf := make([]byte, 1<<16)
	if s := string(buf[:native.Stack(buf, false)]); !strings.Contains(s, "TestNumGoroutineOutsideARun") {
		t.Fatalf("Stack(false) outside a run:\n%s", s)
	}
}
