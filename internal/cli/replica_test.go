package cli

import (
	"bytes"
	"strings"
	"testing"
)

// wrapExamples runs dstreplay test -wrap -count=1 -v -dst.dir=off with
// args from the module's root, with the examples' buggy twins on
// (DST_DEMO=1), and returns its exit code and output.
func wrapExamples(t *testing.T) func(args ...string) (int, string) {
	t.Chdir("../..")
	t.Setenv("DST_DEMO", "1")
	return func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Main(append([]string{"test", "-wrap", "-count=1", "-v", "-dst.dir=off"}, args...), &out, &errb)
		return code, out.String() + errb.String()
	}
}

// TestReplicaExample: examples/replica's ordinary test, unedited, under
// -wrap: the buggy primary's stale follower read is found, and the fixed
// twin passes 10,000 schedules with nothing run natively.
func TestReplicaExample(t *testing.T) {
	if testing.Short() {
		t.Skip("rewrites net/http and explores 10,000 schedules")
	}
	run := wrapExamples(t)
	code, out := run("-run", "^TestBuggyReadYourWrites$", "./examples/replica")
	if want := `the follower has x="" (found false) after the primary acknowledged x=1`; code == ExitOK || !strings.Contains(out, want) {
		t.Errorf("the buggy twin: exit %d; want a failure that says %q\n%s", code, want, out)
	}
	code, out = run("-run", "^TestFixedReadYourWrites$", "-dst.iters=10000", "./examples/replica")
	if code != ExitOK || !strings.Contains(out, "10000 schedules passed") || strings.Contains(out, "natively") {
		t.Errorf("the fixed twin: exit %d; want 10000 schedules passed, nothing native\n%s", code, out)
	}
}
