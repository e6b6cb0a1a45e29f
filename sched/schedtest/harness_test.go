package schedtest_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
	"github.com/dstgo/dst/vtime"
)

// busy is a body that exercises most of the scheduler: goroutines, locks,
// a condition, faults and draws of its own.
func busy(t *schedtest.T) {
	var mu sched.Mutex
	c := sched.NewCond(&mu)
	var wg sched.WaitGroup
	queue := []int{}
	for i := range 3 {
		wg.Go(func() {
			n := t.Entropy().IntRange(1, 4)
			for j := range n {
				if sched.Fault("produce") {
					continue
				}
				mu.Lock()
				queue = append(queue, i*10+j)
				c.Signal()
				mu.Unlock()
			}
		})
	}
	done := false
	wg.Go(func() {
		mu.Lock()
		for !done || len(queue) > 0 {
			if len(queue) == 0 {
				c.Wait()
				continue
			}
			queue = queue[1:]
		}
		mu.Unlock()
	})
	sched.Go(func() {
		for range 3 {
			sched.Yield()
		}
		mu.Lock()
		done = true
		c.Broadcast()
		mu.Unlock()
	})
	wg.Wait()
}

func fingerprint(t *testing.T, res *schedtest.Result) string {
	t.Helper()
	b, err := res.Recording.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	msg := ""
	if res.Failure != nil {
		msg = res.Failure.Error()
	}
	return fmt.Sprintf("%x|%d|%d|%d|%v|%s", b, res.Steps, res.Switches, res.Goroutines, res.Faults, msg)
}

// TestDeterminism: the same seed gives the same decisions, byte for byte,
// over 100 runs, with GOMAXPROCS 1 and 4 (and under -race when the tests run
// with it).
func TestDeterminism(t *testing.T) {
	for _, strategy := range []string{"random", "pct"} {
		for _, seed := range []uint64{1, 0xfeed} {
			opts := schedtest.Options{Seed: seed, Strategy: strategy, Faults: map[string]float64{"produce": 0.3}}
			want := ""
			for _, procs := range []int{1, 4} {
				prev := runtime.GOMAXPROCS(procs)
				for i := range 100 {
					res, err := schedtest.Run(opts, busy)
					if err != nil {
						t.Fatal(err)
					}
					got := fingerprint(t, res)
					if want == "" {
						want = got
						if res.Steps < 20 {
							t.Fatalf("the body took only %d steps; it should exercise the scheduler", res.Steps)
						}
					} else if got != want {
						runtime.GOMAXPROCS(prev)
						t.Fatalf("%s seed %#x GOMAXPROCS %d run %d differs:\n got %s\nwant %s", strategy, seed, procs, i, got, want)
					}
				}
				runtime.GOMAXPROCS(prev)
			}
		}
	}
}

func TestDifferentSeedsExploreDifferentSchedules(t *testing.T) {
	seen := map[string]bool{}
	for seed := range uint64(20) {
		res, _ := schedtest.Run(schedtest.Options{Seed: seed + 1, Strategy: "random"}, busy)
		seen[fingerprint(t, res)] = true
	}
	if len(seen) < 10 {
		t.Fatalf("20 seeds gave only %d distinct schedules", len(seen))
	}
}

// TestReplayReproduces: a failing run's recording, replayed, fails the same
// way with the same decisions.
func TestReplayReproduces(t *testing.T) {
	body := abba(false)
	res := testutil.Fails(t, schedtest.Options{}, schedtest.Deadlock, body)
	again, err := schedtest.Run(schedtest.Options{Recording: res.Recording, Strategy: res.Strategy}, body)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fingerprint(t, again), fingerprint(t, res); got != want {
		t.Fatalf("replay differs:\n got %s\nwant %s", got, want)
	}
	// Through the handle, as -dst.replay takes it.
	rec, err := entropy.ParseHandle(res.Recording.Handle())
	if err != nil {
		t.Fatal(err)
	}
	again, _ = schedtest.Run(schedtest.Options{Recording: rec, Strategy: res.Strategy}, body)
	if again.Failure == nil || again.Failure.Kind != schedtest.Deadlock {
		t.Fatalf("replay through the handle: %+v", again.Failure)
	}
}

func TestParallelRunsAreIsolated(t *testing.T) {
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			testutil.Pass(t, schedtest.Options{Seed: uint64(i + 1)}, counter(false))
			res, _ := schedtest.Run(schedtest.Options{Seed: 7, Faults: map[string]float64{"produce": 0.3}}, busy)
			ref, _ := schedtest.Run(schedtest.Options{Seed: 7, Faults: map[string]float64{"produce": 0.3}}, busy)
			if fingerprint(t, res) != fingerprint(t, ref) {
				t.Error("runs alongside other runs are not deterministic")
			}
		})
	}
}

func TestFaults(t *testing.T) {
	// With probability 1 every fault point fires, until StopFaults.
	res, _ := schedtest.Run(schedtest.Options{Faults: map[string]float64{"disk": 1}}, func(t *schedtest.T) {
		for range 3 {
			if !sched.Fault("disk") {
				t.Error("a certain fault did not fire")
			}
		}
		if sched.Fault("net") {
			t.Error("a fault with no probability fired")
		}
		sched.StopFaults()
		if sched.Fault("disk") {
			t.Error("a fault fired after StopFaults")
		}
	})
	if res.Failure != nil {
		t.Fatal(res.Failure)
	}
	if len(res.Faults) != 3 || !strings.HasPrefix(res.Faults[0], "disk (step") {
		t.Fatalf("faults recorded: %v", res.Faults)
	}
	// A probability in between fires sometimes, and the report lists it.
	r := testutil.Fails(t, schedtest.Options{FaultProbability: 0.5}, schedtest.TestFailed, func(t *schedtest.T) {
		if sched.Fault("write.timeout") {
			t.Error("request failed")
		}
	}, "goroutine 1: harness_test.go:", ": request failed")
	if len(r.Faults) != 1 || !strings.HasPrefix(r.Faults[0], "write.timeout (step 1, goroutine 1)") {
		t.Fatalf("faults recorded: %v", r.Faults)
	}
}

func TestInvalidOptions(t *testing.T) {
	for _, o := range []schedtest.Options{
		{Strategy: "bfs"}, {Depth: -1}, {Iterations: -2}, {FaultProbability: 2},
		{Faults: map[string]float64{"x": -1}},
	} {
		if _, err := schedtest.Run(o, func(*schedtest.T) {}); err == nil || !strings.HasPrefix(err.Error(), "sched: ") {
			t.Errorf("Run(%+v) error %v, want a sched: error", o, err)
		}
	}
}

// Child tests: run only when a parent test re-executes this test binary
// (or go test) with DST_CHILD set, to check what a failing test prints.

// failingBodies are run by TestChildFailure, one per kind of failure.
var failingBodies = map[string]struct {
	kind string // how the report starts
	opts schedtest.Options
	body func(*schedtest.T)
}{
	"deadlock":    {"deadlock: all goroutines are asleep", schedtest.Options{}, abba(false)},
	"lost-update": {"goroutine 1: oracle_test.go:", schedtest.Options{}, counter(true)},
	"leak":        {"leak: the test body returned", schedtest.Options{}, waitGroupLeak(true)},
	"panic":       {"panic in goroutine 1: runtime error", schedtest.Options{}, orderViolation(true)},
	"livelock":    {"livelock: the run reached the step bound", schedtest.Options{MaxSteps: 500}, spin(true)},
	"fatal": {"fatal error: sync: unlock of unlocked mutex", schedtest.Options{}, func(t *schedtest.T) {
		var mu sched.Mutex
		var wg sched.WaitGroup
		wg.Go(func() { mu.Lock(); mu.Unlock() })
		mu.Unlock()
		wg.Wait()
	}},
}

func TestChildFailure(t *testing.T) {
	fb, ok := failingBodies[os.Getenv("DST_CHILD")]
	if !ok {
		t.Skip("run by TestReproduceLine")
	}
	schedtest.TestWith(t, fb.opts, fb.body)
}

// TestChildABBA is the deadlock, under the name TestReplayFlag uses.
func TestChildABBA(t *testing.T) {
	switch os.Getenv("DST_CHILD") {
	case "abba":
		schedtest.Test(t, abba(false))
	case "abba-fixed": // the bug fixed: the saved failures no longer fail
		schedtest.TestWith(t, schedtest.Options{Iterations: 5}, abba(true))
	default:
		t.Skip("run by TestReplayFlag")
	}
}

// A saved failure that no longer fails is pointed out, with the command
// that deletes those; -dst.prune deletes it.
func TestPruneSavedFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	saved := t.TempDir()
	if out, err := childSaving(t, saved, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$"); err == nil {
		t.Fatalf("the buggy test passed:\n%s", out)
	}
	traces, _ := filepath.Glob(filepath.Join(saved, "TestChildABBA", "*.trace"))
	if len(traces) != 1 {
		t.Fatalf("saved: %v", traces)
	}
	out, err := childSaving(t, saved, ".", "abba-fixed", os.Args[0], "-test.run=^TestChildABBA$", "-test.v")
	if err != nil || !strings.Contains(out, "no longer fails") || !strings.Contains(out, " -dst.prune") {
		t.Fatalf("the fixed test: %v\n%s", err, out)
	}
	if _, err := os.Stat(traces[0]); err != nil {
		t.Fatalf("without -dst.prune the saved failure went: %v", err)
	}
	out, err = childSaving(t, saved, ".", "abba-fixed", os.Args[0], "-test.run=^TestChildABBA$", "-test.v", "-dst.prune")
	if err != nil || !strings.Contains(out, "no longer fails: deleted (-dst.prune)") {
		t.Fatalf("with -dst.prune: %v\n%s", err, out)
	}
	if _, err := os.Stat(traces[0]); !os.IsNotExist(err) {
		t.Errorf("-dst.prune left the saved failure: %v", err)
	}
}

// raceBodies are run by TestChildRace in a child process built with -race;
// want says whether the race detector must report a race.
var raceBodies = map[string]struct {
	want bool
	body func(*schedtest.T)
}{
	// Two managed goroutines increment a counter without synchronization.
	"unsynchronized": {true, func(t *schedtest.T) {
		var wg sched.WaitGroup
		n := 0
		for range 2 {
			wg.Go(func() { n++ })
		}
		wg.Wait()
	}},
	// The same with a Mutex, a Once and a read after Wait: all ordered.
	"synchronized": {false, func(t *schedtest.T) {
		var mu sched.Mutex
		var wg sched.WaitGroup
		var once sched.Once
		n, m := 0, 0
		for range 2 {
			wg.Go(func() {
				mu.Lock()
				n++
				mu.Unlock()
				once.Do(func() { m++ })
			})
		}
		wg.Wait()
		_ = n + m
	}},
	// Signal orders nothing: a write before one Signal races with a read
	// after another (the Cond's copy check must not order them).
	"cond-does-not-synchronize": {true, func(t *schedtest.T) {
		var mu sched.Mutex
		c := sched.NewCond(&mu)
		var wg sched.WaitGroup
		x := 0
		wg.Go(func() { x = 1; c.Signal() })
		wg.Go(func() { c.Signal(); sched.Yield(); _ = x })
		wg.Wait()
	}},
	// Add inside the goroutine is not ordered before Wait (Go's WaitGroup
	// reports it under -race).
	"waitgroup-add-inside": {true, func(t *schedtest.T) {
		var wg sched.WaitGroup
		sched.Go(func() {
			wg.Add(1)
			sched.Yield()
			wg.Done()
		})
		sched.Yield()
		wg.Wait()
	}},
	// An AfterFunc's goroutine is ordered after where its timer was armed,
	// not after what the goroutine that moved the clock did: the write
	// after arming races with the read in f, as Go's race detector says.
	// Regression (found in review, fixed): the goroutine was started by a
	// go statement in the goroutine that advanced the clock, which hid it.
	"afterfunc-write-after-arming": {true, func(t *schedtest.T) {
		var wg sched.WaitGroup
		wg.Add(1)
		x := 0
		vtime.AfterFunc(time.Second, func() { _ = x; wg.Done() })
		x = 1
		wg.Wait()
	}},
	// A write before arming is ordered before f.
	"afterfunc-write-before-arming": {false, func(t *schedtest.T) {
		var wg sched.WaitGroup
		wg.Add(1)
		x := 0
		x = 1
		vtime.AfterFunc(time.Second, func() { _ = x; wg.Done() })
		wg.Wait()
	}},
	// Two goroutines leak in Cond.Wait; teardown runs their deferred calls
	// one after the other, which must not be reported as racing.
	"teardown": {false, func(t *schedtest.T) {
		var mu sched.Mutex
		c := sched.NewCond(&mu)
		exits := 0
		for range 2 {
			sched.Go(func() {
				mu.Lock()
				defer mu.Unlock()
				defer func() { exits++ }()
				c.Wait()
			})
		}
	}},
}

func TestChildRace(t *testing.T) {
	rb, ok := raceBodies[os.Getenv("DST_CHILD")]
	if !ok {
		t.Skip("run by TestRaceDetectorSeesManagedGoroutines")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 40, Seed: 1, Strategy: "random"}, rb.body)
}

func child(t *testing.T, dir, mode string, args ...string) (string, error) {
	t.Helper()
	// Each child saves failures in a directory of its own: not in the
	// repository, and not where the next child would replay them.
	return childSaving(t, t.TempDir(), dir, mode, args...)
}

// childSaving is child with the directory where the child saves and finds
// failures.
func childSaving(t *testing.T, saveDir, dir, mode string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DST_CHILD="+mode, "DST_DIR="+saveDir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

var (
	reproduceRE = regexp.MustCompile(`reproduce:\n\s+(go test .*)\n`)
	stackIDs    = regexp.MustCompile(`goroutine \d+ \[|in goroutine \d+\n`)
	hexValues   = regexp.MustCompile(`0x[0-9a-f]+\??`)
)

// TestReproduceLine runs a failing test for each kind of failure, then runs
// the go test command it printed, and checks that the second run fails the
// same way in its first schedule.
func TestReproduceLine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	for mode, fb := range failingBodies {
		t.Run(mode, func(t *testing.T) {
			out, err := child(t, ".", mode, os.Args[0], "-test.run=^TestChildFailure$")
			if err == nil {
				t.Fatalf("the child passed:\n%s", out)
			}
			m := reproduceRE.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no reproduce line in:\n%s", out)
			}
			line := m[1]
			// The failure is shrunk, so the line replays the shrunk schedule's
			// recording.
			wantPrefix := "go test ./sched/schedtest -run '^TestChildFailure$' -dst.replay=e2"
			if engine.RaceEnabled {
				wantPrefix = "go test -race ./sched/schedtest -run '^TestChildFailure$' -dst.replay=e2"
			}
			if !strings.HasPrefix(line, wantPrefix) {
				t.Fatalf("reproduce line %q, want prefix %q", line, wantPrefix)
			}
			out2, err := child(t, root, mode, "sh", "-c", line)
			if err == nil {
				t.Fatalf("the reproduce line passed:\n%s", out2)
			}
			report := func(s string) string {
				// From the failure's description on: the header names the
				// schedule number, which differs (1 in the reproduction).
				i := strings.Index(s, fb.kind)
				j := strings.Index(s, "reproduce:")
				if i < 0 || j < i {
					t.Fatalf("want a report starting %q:\n%s", fb.kind, s)
				}
				// A panic's stack names runtime goroutine ids and argument
				// values, which differ between processes.
				r := stackIDs.ReplaceAllString(s[i:j], "goroutine N")
				return hexValues.ReplaceAllString(r, "0x?")
			}
			if report(out) != report(out2) {
				t.Fatalf("the reproduction differs.\nfirst:\n%s\nreproduced:\n%s", out, out2)
			}
			if !strings.Contains(out2, "in schedule 1 of TestChildFailure") {
				t.Fatalf("the reproduction did not fail in its first schedule:\n%s", out2)
			}
		})
	}
}

// TestRaceDetectorSeesManagedGoroutines: the handoff between managed
// goroutines hides no data race from -race, and the shims' own
// happens-before edges keep correctly synchronized code quiet.
func TestRaceDetectorSeesManagedGoroutines(t *testing.T) {
	if !engine.RaceEnabled {
		t.Skip("needs a -race build")
	}
	for mode, rb := range raceBodies {
		t.Run(mode, func(t *testing.T) {
			out, _ := child(t, ".", mode, os.Args[0], "-test.run=^TestChildRace$")
			if got := strings.Contains(out, "WARNING: DATA RACE"); got != rb.want {
				t.Fatalf("race reported: %v, want %v:\n%s", got, rb.want, out)
			}
		})
	}
}

// TestReplayFlag: -dst.replay takes a recording's handle.
func TestReplayFlag(t *testing.T) {
	res := testutil.Fails(t, schedtest.Options{}, schedtest.Deadlock, abba(false))
	out, err := child(t, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$",
		"-dst.replay="+res.Recording.Handle(), "-dst.strategy="+res.Strategy)
	if err == nil || !strings.Contains(out, "deadlock in schedule 1 of TestChildABBA (from a recording") {
		t.Fatalf("replaying a handle:\n%s", out)
	}
	if !strings.Contains(out, "-dst.replay=e2") {
		t.Fatalf("the reproduce line of a replay should replay the same handle:\n%s", out)
	}
	out, err = child(t, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$", "-dst.replay=nonsense")
	if err == nil || !strings.Contains(out, "sched: -dst.replay=nonsense: entropy: handle") {
		t.Fatalf("a bad handle:\n%s", out)
	}
	out, err = child(t, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$", "-dst.strategy=bfs")
	if err == nil || !strings.Contains(out, `sched: -dst.strategy=bfs: unknown strategy "bfs"`) {
		t.Fatalf("a bad strategy:\n%s", out)
	}
}

// TestNamedScheduleSkipsSavedFailures: a command line that names the
// schedule to run (a reproduce line) runs that schedule, not the saved
// failures of the test, which may be other bugs.
func TestNamedScheduleSkipsSavedFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	seed := abbaSeed(t, false)
	saved := t.TempDir()
	out, err := childSaving(t, saved, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$")
	if err == nil || !strings.Contains(out, "trace saved as") {
		t.Fatalf("the first run should fail and save its trace:\n%s", out)
	}
	passing := fmt.Sprintf("-dst.seed=%#x", seed)
	out, err = childSaving(t, saved, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$", "-test.v",
		passing, "-dst.strategy=random")
	if err != nil {
		t.Fatalf("%s names a passing schedule, but the test failed:\n%s", passing, out)
	}
	if !strings.Contains(out, "-dst.seed names the schedule to run: not replaying the saved failure of TestChildABBA") {
		t.Fatalf("the skipped saved failure is not mentioned:\n%s", out)
	}
	// Without a named schedule, the saved failure replays first.
	out, err = childSaving(t, saved, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$")
	if err == nil || !strings.Contains(out, "(a saved failure: delete") {
		t.Fatalf("the saved failure did not replay first:\n%s", out)
	}
}

// TestSavedTracePathFromModuleRoot: the report names a saved trace by its
// path from the module's root, where the reproduce lines run, so that its
// dstreplay line works there (go test runs the test in the package's
// directory).
func TestSavedTracePathFromModuleRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	rel := filepath.Join("testdata", fmt.Sprintf("tmp-saved-%d", os.Getpid()))
	t.Cleanup(func() { os.RemoveAll(rel) })
	out, err := childSaving(t, rel, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$")
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	m := regexp.MustCompile(`dstreplay summary (\S+)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no dstreplay line:\n%s", out)
	}
	want := "sched/schedtest/" + filepath.ToSlash(rel) + "/TestChildABBA/"
	if !strings.HasPrefix(m[1], want) {
		t.Errorf("dstreplay reads %s, want a path from the module's root (%s...)", m[1], want)
	}
	if _, err := os.Stat(filepath.Join("..", "..", m[1])); err != nil {
		t.Errorf("the path does not name the trace from the module's root: %v", err)
	}
	if !strings.Contains(out, "trace saved as "+m[1]+";") {
		t.Errorf("the report names the trace differently:\n%s", out)
	}
}

// TestChildTimeBudget explores a passing body whose options say 3
// schedules.
func TestChildTimeBudget(t *testing.T) {
	if os.Getenv("DST_CHILD") != "time" {
		t.Skip("run by TestTimeFlagBoundsTheExploration")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 3, Seed: 1}, func(t *schedtest.T) { sched.Go(sched.Yield) })
}

// -dst.time alone, on the command line, bounds the exploration by time,
// whatever count the test's options give; with -dst.iters, the first
// bound reached stops it.
// Regression (found in review, fixed): the README's one-process hunt of
// TestFixedStore for 30s stopped after its 2000 schedules, in 0.3s.
func TestTimeFlagBoundsTheExploration(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	out, err := child(t, ".", "time", os.Args[0], "-test.run=^TestChildTimeBudget$", "-test.v", "-dst.time=300ms")
	m := regexp.MustCompile(`sched: (\d+) schedules passed in `).FindStringSubmatch(out)
	if err != nil || m == nil || m[1] == "3" {
		t.Fatalf("-dst.time=300ms did not bound the exploration by time:\n%s", out)
	}
	out, err = child(t, ".", "time", os.Args[0], "-test.run=^TestChildTimeBudget$", "-test.v", "-dst.time=300ms", "-dst.iters=5")
	if err != nil || !strings.Contains(out, "sched: 5 schedules passed") {
		t.Fatalf("-dst.iters=5 with -dst.time:\n%s", out)
	}
	// No budget (0) leaves the test's count.
	out, err = child(t, ".", "time", os.Args[0], "-test.run=^TestChildTimeBudget$", "-test.v", "-dst.time=0")
	if err != nil || !strings.Contains(out, "sched: 3 schedules passed") {
		t.Fatalf("-dst.time=0:\n%s", out)
	}
}

// TestChildOuterFailure fails through the enclosing *testing.T from the
// body, in the schedules where a lost update happens.
func TestChildOuterFailure(t *testing.T) {
	if os.Getenv("DST_CHILD") != "outer" {
		t.Skip("run by TestOuterFailureStopsExploration")
	}
	outer := t
	schedtest.TestWith(t, schedtest.Options{Seed: 1, Strategy: "random"}, func(t *schedtest.T) {
		x := 0
		var mu sched.Mutex
		var wg sched.WaitGroup
		for range 2 {
			wg.Go(func() {
				mu.Lock()
				v := x
				mu.Unlock()
				mu.Lock()
				x = v + 1 // no data race, but an update may be lost
				mu.Unlock()
			})
		}
		wg.Wait()
		if x != 2 {
			outer.Errorf("lost update: x=%d", x)
		}
	})
}

// TestOuterFailureStopsExploration: a body that fails the enclosing test
// instead of its *schedtest.T stops the exploration at that schedule, says so,
// and prints the schedule's reproduce line.
func TestOuterFailureStopsExploration(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	out, err := child(t, ".", "outer", os.Args[0], "-test.run=^TestChildOuterFailure$")
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	if n := strings.Count(out, "lost update"); n != 1 {
		t.Errorf("the test was failed %d times; want the exploration to stop at the first:\n%s", n, out)
	}
	if !strings.Contains(out, "TestChildOuterFailure was failed through its *testing.T in schedule") {
		t.Errorf("no explanation:\n%s", out)
	}
	m := regexp.MustCompile(`reproduce:\n\s+go test (?:-race )?\./sched/schedtest -run '\^TestChildOuterFailure\$' (-dst\.seed=\S+ .*)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no reproduce line:\n%s", out)
	}
	out, err = child(t, ".", "outer", append([]string{os.Args[0], "-test.run=^TestChildOuterFailure$"}, strings.Fields(m[1])...)...)
	if err == nil || !strings.Contains(out, "in schedule 1 (") {
		t.Errorf("the reproduce line did not fail in its first schedule:\n%s", out)
	}
}

// TestWith in parallel subtests: each explores its own schedules while the
// others run.
func TestParallelSubtests(t *testing.T) {
	for i, body := range []func(*schedtest.T){counter(false), abba(true), busy} {
		t.Run(fmt.Sprintf("body%d", i), func(t *testing.T) {
			t.Parallel()
			schedtest.TestWith(t, schedtest.Options{Seed: uint64(10 + i), Iterations: 150,
				Faults: map[string]float64{"produce": 0.2}}, body)
		})
	}
}

// Explore reads no flags: -dst.shrink=false, which a go test command line
// gives the tests it runs, leaves Explore's failures shrunk.
func TestExploreReadsNoFlags(t *testing.T) {
	if err := flag.Set("dst.shrink", "false"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("dst.shrink", "true") })
	res, err := schedtest.Explore(schedtest.Options{Seed: 1, Strategy: "pct", Iterations: 300}, abba(false))
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatal("no deadlock found")
	}
	// Shrinking rewrites the failure as a random walk.
	if res.Strategy != "random" {
		t.Errorf("the failure was found by %s and left unshrunk: Explore read -dst.shrink", res.Strategy)
	}
}

// TestDataRaceIsAFinding: under -race, a race between managed goroutines is
// a failure of its own kind, shrunk, saved and reproduced like any other,
// whose report names both accesses; not a complaint that the test failed
// its *testing.T.
func TestDataRaceIsAFinding(t *testing.T) {
	if !engine.RaceEnabled {
		t.Skip("needs a -race build")
	}
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	saved := t.TempDir()
	out, err := childSaving(t, saved, ".", "unsynchronized", os.Args[0], "-test.run=^TestChildRace$")
	if err == nil {
		t.Fatalf("the racy child passed:\n%s", out)
	}
	accesses := regexp.MustCompile(`data race: (read|write) at harness_test\.go:\d+ \(\S+\) by goroutine [23], ` +
		`and an earlier (read|write) at harness_test\.go:\d+ \(\S+\) by goroutine [23]\n`)
	for _, want := range []string{"sched: data race in schedule ", "shrunk from ", "trace saved as ", "the race detector's report:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if !accesses.MatchString(out) {
		t.Errorf("the report does not name both accesses")
	}
	if strings.Contains(out, "was failed through its *testing.T") {
		t.Errorf("the race was blamed on the test's own t")
	}
	if t.Failed() {
		t.Fatalf("the child's output:\n%s", out)
	}
	// The saved trace has the race as a fail event of the goroutine that
	// raced, and the reproduce line races again.
	traces, _ := filepath.Glob(filepath.Join(saved, "TestChildRace", "data-race-*.trace"))
	if len(traces) != 1 {
		t.Fatalf("saved traces: %v", traces)
	}
	r, err := trace.OpenFile(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fail := false
	for i := range r.Len() {
		ev, err := r.Event(i)
		if err != nil {
			t.Fatal(err)
		}
		fail = fail || ev.Kind == trace.KindFail && ev.G > 1 && ev.Text == "data race"
	}
	if !fail {
		t.Errorf("the trace has no fail event for the race")
	}
	m := reproduceRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no reproduce line")
	}
	args := strings.Fields(m[1])
	args = slices.DeleteFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-dst.") })
	again, err := child(t, ".", "unsynchronized", append([]string{os.Args[0], "-test.run=^TestChildRace$"}, args...)...)
	if err == nil || !strings.Contains(again, "sched: data race in schedule 1 of TestChildRace") {
		t.Errorf("the reproduce line's flags %v did not race again:\n%s", args, again)
	}
}

// positive and nonZero are test helpers as go test users write them:
// nonZero calls positive, and neither is where a failure belongs.
func positive(t *schedtest.T, n int) {
	t.Helper()
	if n <= 0 {
		t.Errorf("%d is not positive", n)
	}
}

func nonZero(t *schedtest.T, n int) {
	t.Helper()
	positive(t, n)
}

// notAHelper fails without calling Helper: the failure is its own line's,
// which it returns.
func notAHelper(t *schedtest.T) int {
	_, _, line, _ := runtime.Caller(0)
	t.Error("fails here")
	return line + 1
}

// TestHelperPlacesFailures: a failure a helper reports is placed, in the
// report (and so in its signature, which Place holds), at the line that called the
// helper, through helpers that call helpers, as go test places it; a
// function that did not call Helper keeps its own line.
func TestHelperPlacesFailures(t *testing.T) {
	for _, c := range []struct {
		name string
		body func(t *schedtest.T) int // the line the failure belongs to
	}{
		{"helper", func(t *schedtest.T) int {
			_, _, line, _ := runtime.Caller(0)
			positive(t, 0)
			return line + 1
		}},
		{"nested helpers", func(t *schedtest.T) int {
			_, _, line, _ := runtime.Caller(0)
			nonZero(t, -1)
			return line + 1
		}},
		{"in a goroutine", func(t *schedtest.T) int {
			var line int
			var wg sched.WaitGroup
			wg.Go(func() {
				_, _, line, _ = runtime.Caller(0)
				positive(t, 0)
			})
			wg.Wait()
			return line + 1
		}},
		{"not a helper", notAHelper},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want int
			res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) { want = c.body(st) })
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure == nil {
				t.Fatal("the run passed")
			}
			place := fmt.Sprintf("harness_test.go:%d: ", want)
			if !strings.Contains(res.Failure.Error(), place) {
				t.Errorf("the failure is not placed at %q:\n%s", place, res.Failure)
			}
		})
	}
}

// A test that never starts a goroutine has no interleaving to explore: its
// schedules differ only in what Go draws at random (math/rand's values, the
// orders of map ranges), and Test stops exploring it after ten. One that
// starts a goroutine, or draws values of its own, runs them all, as every
// test does under Explore.
func TestSequentialTestStopsEarly(t *testing.T) {
	opts := schedtest.Options{Iterations: 100, Seed: 1}
	cases := []struct {
		name string
		body func(*schedtest.T)
		want int
	}{
		{"sequential", func(t *schedtest.T) {
			m := map[int]int{1: 1, 2: 2, 3: 3}
			for k := range native.Map(m) {
				_ = k + native.Rand().Intn(10)
				_ = native.Now() // the time between readings is drawn
			}
			var pool sched.Pool
			pool.Put(1)
			pool.Get() // whether a collection emptied it is drawn
		}, 10},
		{"a goroutine", func(t *schedtest.T) {
			var wg sched.WaitGroup
			wg.Go(func() {})
			wg.Wait()
		}, 100},
		{"values of its own", func(t *schedtest.T) { t.Entropy().Uint64() }, 100},
	}
	for _, c := range cases {
		res, err := schedtest.ExploreAsTest(opts, c.body)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil || res.Schedule != c.want {
			t.Errorf("%s: %d schedules ran (failure %v), want %d", c.name, res.Schedule, res.Failure, c.want)
		}
	}
}
