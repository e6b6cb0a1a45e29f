package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestKvlogExample: examples/kvlog's test, with its store a node of a
// cluster, under -wrap: the buggy store acknowledges a write before it
// syncs it, which no schedule shows without crashes, and one with
// node.crash finds, naming the crash; its saved trace fails again in a new
// process without diverging; the fixed twin passes 10,000 schedules with
// the crashes, and with disk.lost-dirent.
func TestKvlogExample(t *testing.T) {
	if testing.Short() {
		t.Skip("rewrites net/http and explores 10,000 schedules")
	}
	run := wrapExamples(t)
	const crashes = "-dst.faults=node.crash=0.05:100ms"
	code, out := run("-run", "^TestBuggyAckedWritesSurvive$", "-dst.iters=300", "./examples/kvlog")
	if code != ExitOK || !strings.Contains(out, "300 schedules passed") {
		t.Errorf("the buggy twin without crashes: exit %d; want 300 schedules passed\n%s", code, out)
	}
	dir := t.TempDir()
	code, out = run("-run", "^TestBuggyAckedWritesSurvive$", crashes, "-dst.dir="+dir, "./examples/kvlog")
	for _, want := range []string{"an acknowledged write was lost", "node.crash (step", "cluster: node kv crashes", "simdisk: crash: $TMPDIR/…/log keeps"} {
		if code == ExitOK || !strings.Contains(out, want) {
			t.Errorf("the buggy twin with %s: exit %d; want a failure that says %q\n%s", crashes, code, want, out)
		}
	}
	traces, _ := filepath.Glob(filepath.Join(dir, "TestBuggyAckedWritesSurvive", "*.trace"))
	if len(traces) != 1 {
		t.Fatalf("saved traces: %v", traces)
	}
	code, out = run("-run", "^TestBuggyAckedWritesSurvive$", "-dst.trace="+traces[0], "./examples/kvlog")
	if code == ExitOK || !strings.Contains(out, "an acknowledged write was lost") || strings.Contains(out, "diverged") {
		t.Errorf("the saved trace, replayed: exit %d; want the same failure, no divergence\n%s", code, out)
	}
	// The fixed twin syncs its log's directory too: a crash that undoes
	// what the directory had not synced (disk.lost-dirent) loses nothing.
	code, out = run("-run", "^TestFixedAckedWritesSurvive$", "-dst.iters=10000", crashes+",disk.lost-dirent=0.5", "./examples/kvlog")
	if code != ExitOK || !strings.Contains(out, "10000 schedules passed") || strings.Contains(out, "natively") {
		t.Errorf("the fixed twin: exit %d; want 10000 schedules passed, nothing native\n%s", code, out)
	}
}
