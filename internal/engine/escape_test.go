package engine_test

import (
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
