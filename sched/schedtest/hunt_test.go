package schedtest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// TestHuntFindsBugs: the hunt strategy finds the bugs the other strategies
// find, and reports them shrunk.
func TestHuntFindsBugs(t *testing.T) {
	for name, body := range map[string]func(*schedtest.T){
		"abba":    abba(false),
		"counter": counter(true),
		"leak":    waitGroupLeak(true),
	} {
		t.Run(name, func(t *testing.T) {
			res, err := schedtest.Explore(schedtest.Options{Strategy: "hunt", Seed: 3, Iterations: 5000}, body)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure == nil {
				t.Fatalf("no failure in %d executions", res.Schedule)
			}
			if res.Strategy != "random" || res.Recording == nil {
				t.Errorf("the failure is not reported as its shrunk random walk: strategy %s", res.Strategy)
			}
		})
	}
}

// TestHuntPassesCorrectCode: no false alarms from mutated schedules.
func TestHuntPassesCorrectCode(t *testing.T) {
	res, err := schedtest.Explore(schedtest.Options{Strategy: "hunt", Seed: 5, Iterations: 2000}, abba(true))
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("a correct body failed: %v", res.Failure)
	}
}

// preemptionBug fails only when the second goroutine runs between the
// first one's two steps: one preemption is the least that shows it, while
// a random walk usually takes several.
func preemptionBug(t *schedtest.T) {
	var mu sched.Mutex
	var wg sched.WaitGroup
	x := 0
	for range 4 {
		wg.Go(func() {
			for range 5 {
				mu.Lock()
				mu.Unlock()
			}
		})
	}
	wg.Go(func() {
		mu.Lock()
		x = 1
		mu.Unlock()
		mu.Lock()
		if x != 1 {
			t.Error("x changed between the two critical sections")
		}
		mu.Unlock()
	})
	wg.Go(func() {
		mu.Lock()
		x = 2
		mu.Unlock()
	})
	wg.Wait()
}

// TestShrinkMinimizesPreemptions: a failure is reported with the fewest
// preemptions that show it, and the report says how big it was before.
func TestShrinkMinimizesPreemptions(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		res, err := schedtest.Explore(schedtest.Options{Strategy: "random", Seed: seed, Iterations: 10000}, preemptionBug)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil {
			t.Fatalf("seed %d: not found", seed)
		}
		if res.Preemptions > 1 {
			t.Errorf("seed %d: shrunk to %d preemptions, want 1 (steps %d)", seed, res.Preemptions, res.Steps)
		}
		// The shrunk schedule replays to the same failure.
		again, _ := schedtest.Run(schedtest.Options{Strategy: "random", Recording: res.Recording}, preemptionBug)
		if again.Failure == nil || again.Failure.Kind != res.Failure.Kind || again.Steps != res.Steps {
			t.Errorf("seed %d: the shrunk recording replays as %v, %d steps; want %v, %d steps",
				seed, again.Failure, again.Steps, res.Failure, res.Steps)
		}
	}
}

// TestShrinkReport: the report of a failing test says it was shrunk, and
// from what to what.
func TestShrinkReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child test binary")
	}
	out, err := child(t, ".", "deadlock", os.Args[0], "-test.run=^TestChildFailure$")
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	if !strings.Contains(out, "shrunk from ") || !strings.Contains(out, " preemptions, ") {
		t.Errorf("no shrink line in the report:\n%s", out)
	}
}

func FuzzChild(f *testing.F) {
	if os.Getenv("DST_CHILD") != "fuzz" {
		f.Skip("run by TestFuzzAdapter")
	}
	// A word of 2^63 makes the body's first draw Choice(2) give 1.
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0x80})
	schedtest.Fuzz(f, func(t *schedtest.T) {
		if t.Entropy().Choice(2) == 1 {
			t.Error("the fuzzer chose 1")
		}
	})
}

// TestFuzzAdapter: a sched body run as a native fuzz target draws from the
// fuzz input's bytes and reports a failure like Test does.
func TestFuzzAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child test binary")
	}
	saved := t.TempDir()
	out, err := childSaving(t, saved, ".", "fuzz", os.Args[0], "-test.run=^FuzzChild$")
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	for _, want := range []string{"the fuzzer chose 1", "reproduce:", "-dst.replay=e2"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	// The reproduce line's schedule, and the saved trace, run once, not
	// once per input of the corpus.
	// Regression (found in review, fixed): -dst.trace was ignored, and
	// -dst.replay failed, and saved a trace, for each input.
	handle := regexp.MustCompile(`-dst\.replay=(\S+)`).FindStringSubmatch(out)
	trace := regexp.MustCompile(`trace saved as (\S+);`).FindStringSubmatch(out)
	if handle == nil || trace == nil {
		t.Fatalf("no handle or no saved trace in:\n%s", out)
	}
	for _, flag := range []string{"-dst.replay=" + handle[1], "-dst.trace=" + trace[1]} {
		out, err := childSaving(t, t.TempDir(), ".", "fuzz", os.Args[0], "-test.run=^FuzzChild$", flag)
		if err == nil || strings.Count(out, "the fuzzer chose 1") != 1 {
			t.Errorf("with %s: want one failure:\n%s", flag, out)
		}
		if strings.HasPrefix(flag, "-dst.trace") && !strings.Contains(out, "(replaying ") {
			t.Errorf("with %s: the trace was not replayed:\n%s", flag, out)
		}
	}
}

// A hunt's worker saves the input of each failure it finds beside its
// trace; kept unshrunk, that input is a recording and a seed, and
// -dst.input runs it as the hunt did.
// Regression (found in review, fixed): the saved input lost its seed, and
// ran another schedule past its recording.
func TestHuntSavedInputReproduces(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	saved := t.TempDir()
	out, _ := childSaving(t, saved, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$",
		"-dst.strategy=hunt", "-dst.worker=0", "-dst.shrink=false", "-dst.iters=3000", "-dst.corpus="+t.TempDir())
	m := regexp.MustCompile(`"entropy":"([^"]+)"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the hunt saved no input:\n%s", out)
	}
	out, err := childSaving(t, t.TempDir(), ".", "abba", os.Args[0], "-test.run=^TestChildABBA$", "-dst.input="+m[1])
	if err == nil || !strings.Contains(out, "deadlock in schedule 1 of TestChildABBA") {
		t.Fatalf("-dst.input=%s did not deadlock:\n%s", m[1], out)
	}
}

// signatureBodies are run by TestChildSignatures as a hunt's worker.
var signatureBodies = map[string]func(*schedtest.T){
	// One check, whose message names whichever goroutine went first.
	"onecheck": func(t *schedtest.T) {
		var mu sched.Mutex
		var wg sched.WaitGroup
		var order []string
		for _, name := range []string{"alice", "bob", "carol"} {
			wg.Go(func() {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
			})
		}
		wg.Wait()
		if order[0] != "alice" {
			t.Errorf("%s went first, then %s", order[0], strings.Join(order[1:], " and "))
		}
	},
	// Two lock-order deadlocks at two places, in the same operations.
	"twodeadlocks": func(t *schedtest.T) {
		var a, b, c, d sched.Mutex
		var wg sched.WaitGroup
		wg.Go(func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
		wg.Go(func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
		wg.Go(func() { c.Lock(); d.Lock(); d.Unlock(); c.Unlock() })
		wg.Go(func() { d.Lock(); c.Lock(); c.Unlock(); d.Unlock() })
		wg.Wait()
	},
}

func TestChildSignatures(t *testing.T) {
	body := signatureBodies[os.Getenv("DST_CHILD")]
	if body == nil {
		t.Skip("run by TestHuntOneFindingPerPlace")
	}
	schedtest.Test(t, body)
}

// A hunt that keeps going reports a failure once per place: a check whose
// message differs from schedule to schedule is one finding, and two
// deadlocks in the same operations at different lines are two.
func TestHuntOneFindingPerPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	signatures := func(mode string) map[string]bool {
		out, _ := child(t, ".", mode, os.Args[0], "-test.run=^TestChildSignatures$", "-dst.strategy=hunt",
			"-dst.worker=0", "-dst.keepgoing", "-dst.shrink=false", "-dst.iters=2000", "-dst.corpus="+t.TempDir())
		sigs := map[string]bool{}
		for _, m := range regexp.MustCompile(`"signature":"([^"]*)"`).FindAllStringSubmatch(out, -1) {
			sigs[m[1]] = true
		}
		if len(sigs) == 0 {
			t.Fatalf("%s: the hunt reported no failure:\n%s", mode, out)
		}
		return sigs
	}
	if sigs := signatures("onecheck"); len(sigs) != 1 {
		t.Errorf("one check reported as %d findings: %v", len(sigs), sigs)
	}
	deadlocks := 0
	for sig := range signatures("twodeadlocks") {
		if strings.HasPrefix(sig, "deadlock at ") && strings.Contains(sig, "hunt_test.go:") {
			deadlocks++
		}
	}
	if deadlocks < 2 {
		t.Errorf("two deadlocks at different places reported as %d findings", deadlocks)
	}
}

// A trace given to -dst.trace that another test recorded is refused with
// the test that recorded it, rather than replayed by the wrong body.
func TestTraceOfAnotherTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	saved := t.TempDir()
	if out, err := childSaving(t, saved, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$"); err == nil {
		t.Fatalf("TestChildABBA passed:\n%s", out)
	}
	traces, _ := filepath.Glob(filepath.Join(saved, "TestChildABBA", "*.trace"))
	if len(traces) != 1 {
		t.Fatalf("saved: %v", traces)
	}
	out, err := child(t, ".", "onecheck", os.Args[0], "-test.run=^TestChildSignatures$", "-dst.trace="+traces[0])
	want := "was recorded by TestChildABBA, not by TestChildSignatures: run it with -run '^TestChildABBA$'"
	if err == nil || !strings.Contains(out, want) {
		t.Errorf("want %q:\n%s", want, out)
	}
}

// -dst.fuzzinput runs a file's bytes as the fuzz target's input, once:
// the crash of a libFuzzer build replays under go test, and is saved.
func TestFuzzInputFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child test binary")
	}
	dir := t.TempDir()
	chose1, chose0 := filepath.Join(dir, "crash-1"), filepath.Join(dir, "crash-0")
	os.WriteFile(chose1, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}, 0o644)
	os.WriteFile(chose0, make([]byte, 8), 0o644)
	out, err := childSaving(t, t.TempDir(), ".", "fuzz", os.Args[0], "-test.run=^FuzzChild$", "-dst.fuzzinput="+chose1)
	if err == nil || strings.Count(out, "the fuzzer chose 1") != 1 || !strings.Contains(out, "trace saved as ") {
		t.Errorf("-dst.fuzzinput of a failing input: want one failure, saved:\n%s", out)
	}
	// The seed corpus has the failing input too: it does not run.
	if out, err := childSaving(t, t.TempDir(), ".", "fuzz", os.Args[0], "-test.run=^FuzzChild$", "-dst.fuzzinput="+chose0); err != nil {
		t.Errorf("-dst.fuzzinput of a passing input failed:\n%s", out)
	}
	if out, err := child(t, ".", "time", os.Args[0], "-test.run=^TestChildTimeBudget$", "-dst.fuzzinput="+chose1); err == nil ||
		!strings.Contains(out, "-dst.fuzzinput names an input of a fuzz target") {
		t.Errorf("-dst.fuzzinput given to a test:\n%s", out)
	}
}

// engineF is the F of a fuzzing engine's own, as go-118-fuzz-build's
// libFuzzer builds give a target: the engine's input in Data.
type engineF struct{ Data []byte }

func (*engineF) Helper()        {}
func (*engineF) Add(...any)     {}
func (*engineF) Fuzz(any)       { panic("engineF.Fuzz: Fuzz should have read Data") }
func (*engineF) Fatal(...any)   {}
func (*engineF) Skip(...any)    {}
func (*engineF) Name() string   { return "libFuzzer" }
func (*engineF) Failed() bool   { return false }
func (*engineF) Log(...any)     {}
func (*engineF) Cleanup(func()) {}

// Under an engine's F, each call runs the engine's input once as the
// schedule's bytes, and a failure is a panic (the engine's crash). (That a
// call from C, on a goroutine the cgo callback locks to its thread, does
// not crash the run's coroutines is .ci/libfuzzer.sh's to show: it takes
// a libFuzzer build.)
func TestFuzzUnderAnEngine(t *testing.T) {
	body := func(t *schedtest.T) {
		sched.Go(sched.Yield)
		if t.Entropy().Choice(2) == 1 {
			t.Error("the fuzzer chose 1")
		}
	}
	run := func(data []byte) (p any) {
		done := make(chan any)
		go func() {
			defer func() { done <- recover() }()
			schedtest.Fuzz(&engineF{Data: data}, body)
		}()
		return <-done
	}
	if p := run(make([]byte, 64)); p != nil {
		t.Errorf("a passing input panicked: %v", p)
	}
	// Every word 2^63: every draw, the body's Choice(2) among them, is 1.
	data := make([]byte, 64)
	for i := 7; i < len(data); i += 8 {
		data[i] = 0x80
	}
	if p := run(data); p == nil || !strings.Contains(fmt.Sprint(p), "sched: test failed") {
		t.Errorf("a failing input: panic %v, want the failure", p)
	}
}

// TestShrinkDropsFaults: a failure that needs one fault to fire is reported
// with that one, even though each fault that fires shortens the run (a
// request that fails is not retried) and dropping the others makes it
// longer: fewer faults is simpler than fewer steps.
func TestShrinkDropsFaults(t *testing.T) {
	body := func(t *schedtest.T) {
		failed := 0
		for range 40 {
			if sched.Fault("send") {
				failed++
				continue
			}
			for range 5 {
				sched.Yield() // the work a request that went through did
			}
		}
		if failed > 0 {
			t.Errorf("%d sends failed", failed)
		}
	}
	opts := schedtest.Options{Strategy: "random", Seed: 3, Iterations: 10, Faults: map[string]float64{"send": 0.5}}
	res, err := schedtest.Explore(opts, body)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatal("not found")
	}
	if len(res.Faults) != 1 {
		t.Errorf("shrunk to %d faults fired (%d steps), want 1: %v", len(res.Faults), res.Steps, res.Faults)
	}
}
