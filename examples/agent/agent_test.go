package agent_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/examples/agent"
	"github.com/dstgo/dst/internal/cli"
	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// faults are the fault points of the fake inference service and tools,
// with the probability that each fires every time it is reached.
var faults = map[string]float64{
	"inference.error": 0.05,
	"inference.slow":  0.05,
	"tool.error":      0.1,
	"tool.slow":       0.1,
}

// The messages of the checks: each names the property that broke, so that a
// failure says which bug it is.
const (
	msgNotIdle     = "liveness: the thread is not idle"
	msgLostMessage = "safety: user message lost"
	msgBadPairs    = "safety: malformed tool_use/tool_result pairs"
	msgBadCall     = "safety: tool call not settled"
)

// The user actions the workload draws.
const (
	actSend = iota
	actCancel
	actResume
	actSleep
	actApprove
)

var (
	actionWeights = []uint64{actSend: 3, actCancel: 2, actResume: 1, actSleep: 4, actApprove: 3}
	sleeps        = []time.Duration{time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, time.Second}
)

// workload is the fuzzer of the worker: a sequence of user actions drawn
// from the run's entropy (send a message, cancel, resume, sleep, approve or
// reject a pending call), with faults in inference and tools; then faults
// stop, every pending call is approved, and virtual time runs out. The
// thread must then be idle (liveness) and well formed (safety).
func workload(bugs agent.Bugs) func(*schedtest.T) {
	return func(t *schedtest.T) {
		e := t.Entropy()
		tools := agent.DefaultTools()
		names := make([]string, len(tools))
		for i, tl := range tools {
			names[i] = tl.Name
		}
		w := agent.New(agent.Config{Inference: agent.NewInference(e.Choice, names), Tools: tools, Bugs: bugs})

		var sent []string
		send := func() {
			text := fmt.Sprintf("message %d", len(sent)+1)
			sent = append(sent, text)
			w.Handle(text)
		}
		send()
		for range 30 {
			if e.Stop() {
				break
			}
			switch e.Weighted(actionWeights) {
			case actSend:
				send()
			case actCancel:
				w.Cancel()
			case actResume:
				w.Resume()
			case actSleep:
				vtime.Sleep(sleeps[e.Choice(len(sleeps))])
			case actApprove:
				if ids := w.PendingApprovals(); len(ids) > 0 {
					id := ids[e.Choice(len(ids))]
					decide := w.Approve
					if e.Bool(0.2) {
						decide = w.Reject
					}
					// The call may have been cancelled since it was listed.
					if err := decide(id); err != nil && !errors.Is(err, agent.ErrNotPending) {
						t.Errorf("deciding on %s: %v", id, err)
					}
				}
			}
		}

		// Let the worker finish: no more faults, approve whatever asks for
		// approval (the turn may go on and ask again), and let time run out.
		sched.StopFaults()
		for range 10 {
			for _, id := range w.PendingApprovals() {
				if err := w.Approve(id); err != nil && !errors.Is(err, agent.ErrNotPending) {
					t.Errorf("approving %s: %v", id, err)
				}
			}
			vtime.Sleep(time.Hour)
			if s := w.Snapshot(); s.Idle() && len(w.PendingApprovals()) == 0 {
				break
			}
		}
		check(t, w.Snapshot(), sent)
	}
}

// check checks the liveness and safety properties of a worker whose user
// has stopped acting and approved everything.
func check(t *schedtest.T, s agent.Snapshot, sent []string) {
	// Liveness: nothing is in flight.
	if !s.Idle() {
		t.Errorf("%s after the user stopped, approvals were granted and virtual time ran out:\n"+
			"  turn running: %v, inference in flight: %v, queued messages: %q\n"+
			"  tool calls whose goroutine never returned: %v",
			msgNotIdle, s.Running, s.Streaming, s.Queued, s.Unsettled)
	}

	// Safety: every user message is in the thread, once.
	seen := map[string]int{}
	for _, m := range s.Thread {
		if m.Role != agent.User {
			continue
		}
		for _, b := range m.Blocks {
			if b.Kind == agent.Text {
				seen[b.Text]++
			}
		}
	}
	for _, text := range sent {
		if seen[text] != 1 {
			t.Errorf("%s: %q appears %d times in the thread", msgLostMessage, text, seen[text])
		}
	}

	// Safety: the thread is one the inference API accepts.
	if err := agent.CheckToolPairs(s.Thread); err != nil {
		t.Errorf("%s:\n%v", msgBadPairs, err)
	}

	// Safety: every tool call ended in a terminal state, and the thread
	// reports that state.
	results := map[string]agent.Status{}
	for _, m := range s.Thread {
		for _, b := range m.Blocks {
			if b.Kind == agent.ToolResult {
				results[b.ToolUseID] = b.Status
			}
		}
	}
	for _, c := range s.Calls {
		if !c.Status.Terminal() {
			t.Errorf("%s: %s (%s) is %s", msgBadCall, c.ID, c.Tool, c.Status)
		} else if st, ok := results[c.ID]; ok && st != c.Status {
			t.Errorf("%s: %s (%s) is %s, but its result in the thread says %s", msgBadCall, c.ID, c.Tool, c.Status, st)
		}
	}
}

// TestBuggyWorker is the demo: it explores the worker with each bug in turn
// and fails with a report of the bug the scheduler found and the command
// that reproduces it. The first bug shows within a few schedules, the
// second, a narrower race, within a few hundred to a few thousand. It runs
// only when asked, so that the test suite passes:
//
//	DST_DEMO=1 go test ./examples/agent -run TestBuggyWorker
func TestBuggyWorker(t *testing.T) {
	testutil.Demo(t)
	t.Run("EagerTools", func(t *testing.T) {
		schedtest.TestWith(t, schedtest.Options{Faults: faults}, workload(agent.Bugs{EagerTools: true}))
	})
	t.Run("StuckApproval", func(t *testing.T) {
		schedtest.TestWith(t, schedtest.Options{Iterations: 20000, Faults: faults}, workload(agent.Bugs{StuckApproval: true}))
	})
}

// TestFixedWorker explores the fixed worker; every schedule passes.
func TestFixedWorker(t *testing.T) {
	schedtest.TestWith(t, schedtest.Options{Iterations: 5000, Faults: faults}, workload(agent.Bugs{}))
}

// TestFindsBothBugs checks, without failing the suite, that exploring finds
// each bug, each by the property it breaks, and that the failing run's trace
// can be saved. Each bug is switched on alone, so that the first failure
// found is that bug's.
// checkTrace checks that dstreplay reads a saved trace and that replaying it
// fails the same way.
func checkTrace(t *testing.T, path string, res *schedtest.Result, body func(*schedtest.T)) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Main([]string{"summary", path}, &out, &errb); code != cli.ExitOK || !strings.Contains(out.String(), "outcome: "+string(res.Failure.Kind)) {
		t.Fatalf("dstreplay summary %s: exit %d\n%s%s", path, code, out.String(), errb.String())
	}
	again, err := schedtest.Replay(path, body)
	if err != nil || again.Failure == nil || again.Failure.Kind != res.Failure.Kind || again.Failure.Message != res.Failure.Message {
		t.Fatalf("replaying %s: %v, %v; want %v", path, err, again.Failure, res.Failure)
	}
}

func TestFindsBothBugs(t *testing.T) {
	cases := []struct {
		name string
		bugs agent.Bugs
		kind schedtest.FailureKind
		msg  string // what the report must say
		not  string // what it must not say: the other bug's property
	}{
		// The tool results land in the wrong messages; nothing hangs.
		{"EagerTools", agent.Bugs{EagerTools: true}, schedtest.TestFailed, msgBadPairs, msgNotIdle},
		// The turn hangs: its goroutines leak and the thread is not idle
		// (its last tool_use is unanswered too, as a consequence).
		{"StuckApproval", agent.Bugs{StuckApproval: true}, schedtest.Leak, msgNotIdle, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var res *schedtest.Result
			runs, seed := 0, uint64(1)
			for ; seed <= 20; seed++ {
				r, err := schedtest.Explore(schedtest.Options{Seed: seed, Iterations: 500, Faults: faults}, workload(tc.bugs))
				if err != nil {
					t.Fatal(err)
				}
				runs += r.Schedule
				if r.Failure != nil {
					res = r
					break
				}
			}
			if res == nil {
				t.Fatalf("no failure in %d schedules", runs)
			}
			t.Logf("found after %d schedules in all (seed %d, schedule %d): %s", runs, seed, res.Schedule, res.Failure.Message)
			report := res.Failure.Error()
			if res.Failure.Kind != tc.kind || !strings.Contains(report, tc.msg) || tc.not != "" && strings.Contains(report, tc.not) {
				t.Fatalf("found %s failure %q; want a %s failure saying %q\n%v",
					res.Failure.Kind, res.Failure.Message, tc.kind, tc.msg, report)
			}
			path := filepath.Join(t.TempDir(), tc.name+".trace")
			if err := res.WriteTrace(path); err != nil {
				t.Fatalf("WriteTrace: %v", err)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
				t.Fatalf("trace %s: %v (size %v)", path, err, fi)
			}
			checkTrace(t, path, res, workload(tc.bugs))
		})
	}
}
