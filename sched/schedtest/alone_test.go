package schedtest_test

import (
	"flag"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// registered is package-level state a test leaves behind, as a registry
// of names (groupcache's NewGroup panics on a name registered before).
var registered atomic.Int32

// TestChildRegisters registers a name once per process: its second run in
// a process fails, whatever the interleaving, as it would natively under
// go test -count=2.
func TestChildRegisters(t *testing.T) {
	if os.Getenv("DST_CHILD") != "registers" {
		t.Skip("run by TestStateLeftByEarlierSchedules")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 5}, func(t *schedtest.T) {
		var wg sched.WaitGroup
		wg.Go(func() {
			if registered.Add(1) > 1 {
				t.Fatal("duplicate registration of group \"g\"")
			}
		})
		wg.Wait()
	})
}

// counted is package-level state every execution of TestChildCounts
// changes: its failures differ from one execution to the next.
var counted atomic.Int32

// TestChildCounts fails from its second execution in a process on, at a
// line that alternates with each execution, as gobreaker's tests do on
// breakers that earlier executions left counting: the re-execution of its
// failing schedule (for the report) fails another way.
func TestChildCounts(t *testing.T) {
	if os.Getenv("DST_CHILD") != "counts" {
		t.Skip("run by TestStateLeftByEarlierSchedules")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 5}, func(t *schedtest.T) {
		var wg sched.WaitGroup
		wg.Go(func() {})
		wg.Wait()
		switch n := counted.Add(1); {
		case n < 2:
		case n%2 == 0:
			t.Errorf("requests: %d", n)
		default:
			t.Errorf("generation: %d", n)
		}
	})
}

// poisoned is package-level state a schedule leaves broken when its
// goroutines run in one order: a bug of an earlier schedule that a later
// one meets.
var poisoned atomic.Bool

// TestChildPoisons fails a schedule that an earlier schedule's interleaving
// left poisoned: that schedule alone, run twice, passes twice when its own
// interleaving does not poison.
func TestChildPoisons(t *testing.T) {
	if os.Getenv("DST_CHILD") != "poisons" {
		t.Skip("run by TestStateLeftByEarlierSchedules")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 50, Seed: 3, Strategy: "random"}, func(t *schedtest.T) {
		before := poisoned.Load()
		var mu sched.Mutex
		var order []string
		var wg sched.WaitGroup
		for _, name := range []string{"a", "b"} {
			wg.Go(func() { mu.Lock(); order = append(order, name); mu.Unlock() })
		}
		wg.Wait()
		if order[0] == "b" {
			poisoned.Store(true)
		}
		if before {
			t.Fatal("state left poisoned by an earlier schedule")
		}
	})
}

// TestStateLeftByEarlierSchedules: a failure that its schedule, run alone
// in a fresh process as its reproduce line would, does not repeat is not
// reported as a bug (its reproduce line would pass: regression, issue 25,
// groupcache's suite under -wrap), and the test says why; a failure that
// does repeat alone is reported (every other test of a failure here).
func TestStateLeftByEarlierSchedules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	out, err := child(t, ".", "registers", os.Args[0], "-test.run=^TestChildRegisters$", "-test.v")
	if err != nil {
		t.Fatalf("the test failed:\n%s", out)
	}
	for _, want := range []string{
		"TestChildRegisters failed in schedule 2 here",
		"passes when it runs alone in a fresh process",
		"fails when the test runs a second time there",
		"go test -count=2 -run '^TestChildRegisters$' may meet the same",
		"duplicate registration of group",
		"--- PASS: TestChildRegisters",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	// (The note quotes the child, whose second run reports and prints its
	// reproduce line; this process saves nothing.)
	if strings.Contains(out, "trace saved") {
		t.Errorf("the failure was reported as a bug:\n%s", out)
	}

	// The same when the failure piles up, failing another way when its
	// schedule is re-executed in this process: two fresh processes that
	// each pass it and then fail it show that it is the process's.
	out, err = child(t, ".", "counts", os.Args[0], "-test.run=^TestChildCounts$", "-test.v")
	if err != nil || !strings.Contains(out, "TestChildCounts failed in schedule 2 here") || !strings.Contains(out, "--- PASS: TestChildCounts") {
		t.Errorf("a failure of state that piles up was reported as a bug (%v):\n%s", err, out)
	}

	// A failure that needs an earlier schedule's interleaving, not just an
	// earlier run, is reported: it may be a bug that schedule left.
	out, err = child(t, ".", "poisons", os.Args[0], "-test.run=^TestChildPoisons$", "-test.v")
	if err == nil || !strings.Contains(out, "state left poisoned") || !strings.Contains(out, "--- FAIL: TestChildPoisons") {
		t.Errorf("the failure an earlier schedule's interleaving left was not reported (%v):\n%s", err, out)
	}
}

// peer is a flag of the test binary's own, as groupcache's peers have.
var peer = flag.String("schedtest.peer", "", "run TestChildPeer as a peer")

// peerRuns is TestChildPeer's state left in the process.
var peerRuns atomic.Int32

// TestChildPeer fails at once unless the binary was given its own flag
// -schedtest.peer=yes, and from its second run in a process on.
func TestChildPeer(t *testing.T) {
	if os.Getenv("DST_CHILD") != "peer" {
		t.Skip("run by TestChildKeepsTheBinarysFlags")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 5}, func(t *schedtest.T) {
		if *peer != "yes" {
			t.Fatal("not a peer: the binary's own flag was not given")
		}
		var wg sched.WaitGroup
		wg.Go(func() {
			if peerRuns.Add(1) > 1 {
				t.Fatal("ran twice in this process")
			}
		})
		wg.Wait()
	})
}

// TestChildKeepsTheBinarysFlags: the fresh process that runs a failing
// schedule alone is given the flags the test binary's own code defines, so
// that it runs as the process that failed did. Regression: it was given
// only -test.* and -dst.* flags, and groupcache's peers, run again
// without --test_peer_child, started peers of their own, without end.
func TestChildKeepsTheBinarysFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	out, err := child(t, ".", "peer", os.Args[0], "-test.run=^TestChildPeer$", "-test.v", "-schedtest.peer=yes")
	if err != nil || !strings.Contains(out, "passes when it runs alone in a fresh process") || strings.Contains(out, "not a peer") {
		t.Errorf("the child lacked the binary's own flag (%v):\n%s", err, out)
	}
}

// TestChildEndless does more work than its step bound allows, whatever
// the interleaving.
func TestChildEndless(t *testing.T) {
	if os.Getenv("DST_CHILD") != "endless" {
		t.Skip("run by TestStepBoundNotShrunk")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 1, MaxSteps: 20_000, Strategy: "random"}, func(t *schedtest.T) {
		ping := chans.Make[int](0)
		var wg sched.WaitGroup
		wg.Go(func() {
			for {
				ping.Send(1)
			}
		})
		for {
			ping.Recv()
		}
	})
}

// TestStepBoundNotShrunk: a run that reached the step bound while making
// progress is reported as found: shrinking it would run every candidate to
// the bound again (bigcache's million Sets took minutes), and so would
// running it alone in a fresh process.
func TestStepBoundNotShrunk(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	out, _ := child(t, ".", "endless", os.Args[0], "-test.run=^TestChildEndless$", "-test.v")
	if !strings.Contains(out, "sched: step bound in schedule 1 of TestChildEndless") {
		t.Fatalf("no step bound report:\n%s", out)
	}
	if strings.Contains(out, "shrunk from") {
		t.Errorf("a step bound failure was shrunk:\n%s", out)
	}
}
