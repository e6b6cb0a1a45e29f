package schedtest_test

import (
	"errors"
	"github.com/dstgo/dst/internal/engine"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/hunt"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
)

// TestChildCrash kills its process: after a few scheduling points, a
// managed goroutine unlocks an unlocked sync.Mutex, which the runtime
// treats as a fatal error that no recover sees.
func TestChildCrash(t *testing.T) {
	if os.Getenv("DST_CHILD") != "crash" {
		t.Skip("run by TestCrashTrace")
	}
	schedtest.Test(t, func(t *schedtest.T) {
		var mu sched.Mutex
		var wg sched.WaitGroup
		for range 2 {
			wg.Go(func() {
				for range 3 {
					mu.Lock()
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		var native sync.Mutex
		native.Unlock() // fatal error: sync: unlock of unlocked mutex
	})
}

// TestCrashTrace: -dst.crashtrace writes the trace as the run goes, so a
// run that kills its process leaves it, cut short at the crash.
func TestCrashTrace(t *testing.T) {
	dir := t.TempDir()
	input, err := hunt.WriteInput(dir, hunt.Input{Strategy: engine.Random, Recording: &entropy.Recording{}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "crash.trace")
	out, err := child(t, ".", "crash", os.Args[0], "-test.run=^TestChildCrash$",
		"-dst.input="+input, "-dst.crashtrace="+path, "-dst.shrink=false")
	if err == nil || !strings.Contains(out, "fatal error: sync: unlock of unlocked mutex") {
		t.Fatalf("the child did not crash: %v\n%s", err, out)
	}
	r, err := trace.OpenFile(path)
	if err != nil {
		t.Fatalf("the crash left no readable trace: %v", err)
	}
	defer r.Close()
	if !errors.Is(r.Truncated, trace.ErrTruncated) || r.Outcome != nil {
		t.Errorf("the trace of a crashed run should be cut short, without an outcome: %v, %+v", r.Truncated, r.Outcome)
	}
	if r.Header.Test != "TestChildCrash" || !r.Header.Detail {
		t.Errorf("header: test %q, detail %v", r.Header.Test, r.Header.Detail)
	}
	// It holds only the input's recording: the header says the input's seed
	// serves what comes past it, as the hunt ran it.
	if !slices.Contains(r.Header.Options, "entropy=recording,then-seed") {
		t.Errorf("header options %v: want entropy=recording,then-seed", r.Header.Options)
	}
	// Every event up to the crash: the six Lock/Unlock pairs, in this file,
	// and the main goroutine running again after Wait.
	evs, err := r.ReadAll()
	if err != nil && !errors.Is(err, trace.ErrTruncated) {
		t.Fatal(err)
	}
	locks := 0
	for _, e := range evs {
		if e.Kind == trace.KindOp && trace.OpName(e.Op) == "Lock" {
			locks++
			if filepath.Base(e.Loc.File) != "crashtrace_test.go" {
				t.Errorf("a Lock without its location: %s", e.Format(nil))
			}
		}
	}
	if locks != 6 {
		t.Errorf("%d Lock events, want 6:\n%v", locks, evs)
	}
	last := evs[len(evs)-1]
	if last.G != 1 && (last.Kind != trace.KindSwitch || last.Arg != 1) {
		t.Errorf("the last event is %s, want the switch back to the main goroutine, or one of its events", last.Format(nil))
	}

	// Without -dst.input there is nothing to run.
	out, err = child(t, ".", "crash", os.Args[0], "-test.run=^TestChildCrash$", "-dst.crashtrace="+path)
	if err == nil || !strings.Contains(out, "want the input to run, with -dst.input") {
		t.Errorf("-dst.crashtrace alone: %v\n%s", err, out)
	}
}

// TestInputFlagRunsTheInputAsTheHuntDid: an input whose recording runs out
// (a fresh one: no values at all) continues from its seed, as the hunt ran
// it, so -dst.input reproduces what the hunt saw.
// Regression (found in review, fixed): -dst.input replayed the recording
// alone, served every draw past it as a zero, and a saved crash input
// passed.
func TestInputFlagRunsTheInputAsTheHuntDid(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	seed := abbaSeed(t, true)
	in, err := hunt.WriteInput(t.TempDir(), hunt.Input{Strategy: engine.Random, Recording: &entropy.Recording{}, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	out, err := child(t, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$", "-dst.input="+in)
	if err == nil || !strings.Contains(out, "deadlock in schedule 1 of TestChildABBA") {
		t.Fatalf("-dst.input of an input that deadlocks (seed %#x):\n%s", seed, out)
	}
}
