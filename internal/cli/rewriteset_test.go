package cli

import (
	"slices"
	"strings"
	"testing"
)

// TestRewriteMarker: the marker dstreplay test gives its test binaries (and
// so their traces and reproduce lines) says whether every dependency was
// rewritten, and exec reads it back to the same set; a trace recorded
// before the default rewrote them (no "..." nor "none") is rewritten as it
// was then, with no dependency but those named.
func TestRewriteMarker(t *testing.T) {
	for _, c := range []struct {
		wrap   bool
		extra  []string
		marker string
		deps   bool
		named  []string
	}{
		{true, nil, "-wrap -rewrite=...", true, []string{"go.uber.org/goleak/..."}},
		{false, nil, "-rewrite=...", true, nil},
		{true, []string{"none"}, "-wrap -rewrite=none", false, []string{"go.uber.org/goleak/..."}},
		{false, []string{"a.com/x/...", "none"}, "-rewrite=none,a.com/x/...", false, []string{"a.com/x/..."}},
		{false, []string{"a.com/x/..."}, "-rewrite=...,a.com/x/...", true, []string{"a.com/x/..."}},
	} {
		set, deps, err := rewriteSet(c.wrap, c.extra, true)
		if err != nil || deps != c.deps || !slices.Equal(set, c.named) {
			t.Errorf("rewriteSet(%v, %q) = %q, %v, %v; want %q, %v", c.wrap, c.extra, set, deps, err, c.named, c.deps)
		}
		marker := markerValue(wrapMode{wrap: c.wrap}, c.extra, deps)
		if marker != c.marker {
			t.Errorf("markerValue(%v, %q, %v) = %q, want %q", c.wrap, c.extra, deps, marker, c.marker)
		}
		// As a trace records it, and exec reads it back.
		_, recorded, _ := strings.Cut(marker, "-rewrite=")
		set, deps, err = rewriteSet(c.wrap, strings.Split(recorded, ","), false)
		if err != nil || deps != c.deps || !slices.Equal(set, c.named) {
			t.Errorf("a trace of %q: %q, %v, %v; want %q, %v", marker, set, deps, err, c.named, c.deps)
		}
	}
	for _, old := range [][]string{nil, {"golang.org/x/sync/..."}} {
		if _, deps, err := rewriteSet(true, old, false); err != nil || deps {
			t.Errorf("a trace recorded with -rewrite=%q before the default: every dependency rewritten (%v, %v)", old, deps, err)
		}
	}
	if _, _, err := rewriteSet(false, []string{"...", "none"}, true); err == nil {
		t.Errorf("-rewrite=...,none: no error")
	}
}
