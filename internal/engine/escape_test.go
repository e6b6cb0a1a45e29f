package engine_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/engine"
)

// An escape is placed at the go statements that started the goroutines
// left alive, however many each started; goroutines alike are shown once.
// (In package engine_test: the goroutines of package engine's own
// functions are the engine's, never escapes.)
func TestEscapePlace(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	escape := func(n int, second bool) *engine.Failure {
		out := engine.Execute(engine.Config{}, func() {
			for range n {
				go func() { <-release }()
			}
			if second {
				go func() { <-release }()
			}
		})
		if out.Failure == nil || out.Failure.Kind != engine.Escape {
			t.Fatalf("want an escape, got %+v", out.Failure)
		}
		return out.Failure
	}
	one, three, other := escape(1, false), escape(3, false), escape(1, true)
	if one.Signature() != three.Signature() {
		t.Errorf("one go statement, two signatures: %q, %q", one.Signature(), three.Signature())
	}
	if !strings.Contains(one.Place, "escape_test.go:") || one.Signature() == other.Signature() {
		t.Errorf("places %q and %q", one.Place, other.Place)
	}
	if !strings.Contains(three.Stack, "3 goroutines alike") || strings.Count(three.Stack, "[chan receive") != 1 {
		t.Errorf("three alike are not shown once:\n%s", three.Stack)
	}
}

// With GODEBUG=tracebackancestors, a stack ends with its starters' stacks,
// each with its own "created by" line: the escape is still placed at the go
// statement that started the goroutine, and the report still names the
// run's goroutine that ran it. (The setting is read when the process
// starts: the test runs itself again with it.)
// Regression (found in review, fixed): the last "created by" line was
// read, the test runner's.
func TestEscapePlaceWithAncestors(t *testing.T) {
	if !strings.Contains(os.Getenv("GODEBUG"), "tracebackancestors=5") {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEscapePlaceWithAncestors$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "GODEBUG=tracebackancestors=5")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("with GODEBUG=tracebackancestors=5: %v\n%s", err, out)
		}
		return
	}
	release := make(chan struct{})
	defer close(release)
	f := engine.Execute(engine.Config{}, func() { go func() { <-release }() }).Failure
	if f == nil || f.Kind != engine.Escape {
		t.Fatalf("want an escape, got %v", f)
	}
	if !strings.HasPrefix(f.Place, "go escape_test.go:") || strings.Contains(f.Place, ",") {
		t.Errorf("placed at %q", f.Place)
	}
	if !strings.Contains(f.Stack, "started by goroutine 1 with a plain go statement") || !strings.Contains(f.Stack, "[originating from goroutine") {
		t.Errorf("report with ancestors:\n%s", f.Stack)
	}
}
