package cli

import (
	"strings"
	"testing"
)

// TestLeaseExample: examples/lease's ordinary test, unedited, under
// -wrap: the buggy node's lease outlives the lock server's only when the
// network delays the answer, so no schedule finds it without -dst.faults,
// and one with net.delay does, naming the delays, as one with net.clog
// does; the fixed twin passes 10,000 schedules with the delays.
func TestLeaseExample(t *testing.T) {
	if testing.Short() {
		t.Skip("rewrites net/http and explores 10,000 schedules")
	}
	run := wrapExamples(t)
	const delays = "-dst.faults=net.delay=0.5:20ms"
	code, out := run("-run", "^TestBuggyOneLeader$", "-dst.iters=300", "./examples/lease")
	if code != ExitOK || !strings.Contains(out, "300 schedules passed") {
		t.Errorf("the buggy twin without delays: exit %d; want 300 schedules passed (the bug needs a late answer)\n%s", code, out)
	}
	code, out = run("-run", "^TestBuggyOneLeader$", delays, "./examples/lease")
	for _, want := range []string{"acted as the leader at", "faults fired:\n          net.delay (step", "simnet: delay: a write from 127.0.0.1:", delays} {
		if code == ExitOK || !strings.Contains(out, want) {
			t.Errorf("the buggy twin with %s: exit %d; want a failure that says %q\n%s", delays, code, want, out)
		}
	}
	// A pause of the nodes, as the network sees it, finds it too.
	const clogs = "-dst.faults=net.clog=0.05:100ms"
	code, out = run("-run", "^TestBuggyOneLeader$", clogs, "./examples/lease")
	for _, want := range []string{"acted as the leader at", "net.clog (step", "simnet: clog: "} {
		if code == ExitOK || !strings.Contains(out, want) {
			t.Errorf("the buggy twin with %s: exit %d; want a failure that says %q\n%s", clogs, code, want, out)
		}
	}
	code, out = run("-run", "^TestFixedOneLeader$", "-dst.iters=10000", delays, "./examples/lease")
	if code != ExitOK || !strings.Contains(out, "10000 schedules passed") || strings.Contains(out, "natively") {
		t.Errorf("the fixed twin: exit %d; want 10000 schedules passed, nothing native\n%s", code, out)
	}
}
