package schedtest

import (
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"
)

// TestNoChildOfAChild: a process that runChild started, or that a test
// started under it, starts no child of its own (a peer that fails must
// not start peers).
func TestNoChildOfAChild(t *testing.T) {
	t.Setenv(childEnv, "1")
	out, err := runChild(t, time.Minute, false, nil)
	if err == nil || !strings.Contains(err.Error(), "starts no child of its own") || out != "" {
		t.Fatalf("got %q, %v", out, err)
	}
}

// TestStartedInARunRunsNatively: in a process that a run started
// (engine.ProcessEnv), a test's body runs once, outside any run, as go
// test runs it: a peer that the parent's run started serves on Go's own
// network. Its cleanups run, and Skip skips.
func TestStartedInARunRunsNatively(t *testing.T) {
	t.Setenv(engine.ProcessEnv, "1")
	runs, inRun, cleaned := 0, false, false
	t.Run("peer", func(t *testing.T) {
		TestWith(t, Options{Iterations: 50}, func(st *T) {
			runs++
			inRun = engine.Current() != nil
			st.Cleanup(func() { cleaned = true })
		})
	})
	if runs != 1 || inRun || !cleaned {
		t.Errorf("the body ran %d times (want 1), in a run: %v, its cleanup ran: %v", runs, inRun, cleaned)
	}
	var inner *testing.T
	t.Run("skips", func(t *testing.T) {
		inner = t
		TestWith(t, Options{}, func(st *T) { st.Skip("natively") })
	})
	if !inner.Skipped() {
		t.Error("Skip in a body run natively did not skip its test")
	}
}
