package schedtest_test

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// raceChild runs this test binary, built with -race, with args, in a child
// whose DST_CHILD is mode and whose failures are saved under saveDir, and
// with GORACE as given ("" for the detector's defaults, under which it
// reports each race once per process, as go test -race runs tests).
func raceChild(t *testing.T, mode, saveDir, gorace string, args ...string) string {
	t.Helper()
	if !engine.RaceEnabled {
		t.Skip("needs a -race build")
	}
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	cmd := exec.Command(os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GORACE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "DST_CHILD="+mode, "DST_DIR="+saveDir)
	if gorace != "" {
		cmd.Env = append(cmd.Env, "GORACE="+gorace)
	}
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// verdicts are go test's verdicts in a child's output, test by test, in
// the order they came.
func verdicts(out string) []string {
	var vs []string
	for _, m := range regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): (\S+) `).FindAllStringSubmatch(out, -1) {
		vs = append(vs, m[1]+" "+m[2])
	}
	return vs
}

// TestChildRaceClean is a test without a race, run by
// TestRaceReportedEveryRun after TestChildRace in the same process.
func TestChildRaceClean(t *testing.T) {
	if os.Getenv("DST_CHILD") == "" {
		t.Skip("run by TestRaceReportedEveryRun")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 40, Seed: 1}, raceBodies["synchronized"].body)
}

// The race detector reports each race once per process: after it has
// reported one, a schedule that races the same way again passes unseen.
// Under go test -race -count=3, every run of a racy test fails, each with
// the race's report, whether it replays the trace the first saved or
// explores again; and a test without a race, run after it, passes.
func TestRaceReportedEveryRun(t *testing.T) {
	for _, save := range []string{"saved", "off"} {
		t.Run(save, func(t *testing.T) {
			dir := "off"
			if save == "saved" {
				dir = t.TempDir()
			}
			out := raceChild(t, "unsynchronized", dir, "", "-test.run=^TestChildRace$|^TestChildRaceClean$", "-test.count=3", "-test.v")
			want := []string{"FAIL TestChildRace", "PASS TestChildRaceClean", "FAIL TestChildRace", "PASS TestChildRaceClean",
				"FAIL TestChildRace", "PASS TestChildRaceClean"}
			if got := verdicts(out); strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Fatalf("verdicts %v, want %v:\n%s", got, want, out)
			}
			// Every run after the first says why it ran elsewhere, and the
			// racy test's report names the race.
			note := "the race detector has already reported a race in this process, and it reports each race once per process: %s was explored in a child process whose detector reports every race"
			if n := strings.Count(out, strings.ReplaceAll(note, "%s", "TestChildRace")+"; its report:\n"); n != 2 {
				t.Errorf("%d later runs of TestChildRace say they ran in a child, want 2:\n%s", n, out)
			}
			if n := strings.Count(out, strings.ReplaceAll(note, "%s", "TestChildRaceClean")+", and passed"); n != 3 {
				t.Errorf("%d runs of TestChildRaceClean say they passed in a child, want 3:\n%s", n, out)
			}
			if n := regexp.MustCompile(`data race: (read|write) at harness_test\.go:\d+ \(\S+\) by goroutine [23], and an earlier`).
				FindAllStringIndex(out, -1); len(n) != 3 {
				t.Errorf("%d reports name the race's accesses, want 3:\n%s", len(n), out)
			}
		})
	}
}

// raceFailures are bodies whose schedules race and fail another way too.
var raceFailures = map[string]func(*schedtest.T){
	// Two goroutines race on a counter; then the body leaves a goroutine
	// blocked on a lock it holds, a leak.
	"race-then-leak": func(t *schedtest.T) {
		var wg sched.WaitGroup
		n := 0
		for range 2 {
			wg.Go(func() { n++ })
		}
		wg.Wait()
		var mu sched.Mutex
		mu.Lock()
		sched.Go(func() { mu.Lock() })
	},
}

func TestChildRaceFailure(t *testing.T) {
	body, ok := raceFailures[os.Getenv("DST_CHILD")]
	if !ok {
		t.Skip("run by TestRaceInAFailingRun")
	}
	schedtest.TestWith(t, schedtest.Options{Iterations: 40, Seed: 1, Strategy: "random"}, body)
}

// A race is a finding in its own right even when another failure (a leak)
// ends its schedule: the test fails as a data race, named by its two
// accesses, with the leak in its report, and its trace is saved as a data
// race's.
func TestRaceInAFailingRun(t *testing.T) {
	saved := t.TempDir()
	out := raceChild(t, "race-then-leak", saved, "", "-test.run=^TestChildRaceFailure$")
	for _, want := range []string{
		"sched: data race in schedule ",
		"after the race, the run also failed: leak: the test body returned but 1 goroutine(s) are blocked forever",
		"the race detector's report:",
		"blocked in Mutex#",
		"trace saved as ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if !regexp.MustCompile(`data race: (read|write) at race_test\.go:\d+ \(\S+\) by goroutine [23], and an earlier (read|write) at race_test\.go:\d+`).MatchString(out) {
		t.Errorf("the report does not name both accesses")
	}
	if strings.Contains(out, "sched: leak in schedule") {
		t.Errorf("the schedule was reported as a leak")
	}
	// The re-execution that records source locations names where the
	// goroutines started, which the first execution's message does not:
	// the same output all the same.
	if strings.Contains(out, "but its output differs") {
		t.Errorf("the report says the race's re-execution said other things than its first execution")
	}
	if traces, _ := filepath.Glob(filepath.Join(saved, "TestChildRaceFailure", "data-race-*.trace")); len(traces) != 1 {
		t.Errorf("saved data race traces: %v", traces)
	}
	if t.Failed() {
		t.Logf("the child's output:\n%s", out)
	}
}

// waitGroupCases are the WaitGroup tests of Go's race detector
// (runtime/race/testdata/waitgroup_test.go) on sched.WaitGroup, which
// dstreplay test puts in sync.WaitGroup's place: the same verdicts.
var waitGroupCases = []struct {
	name string
	race bool
	body func(*schedtest.T)
}{
	// Add too late: the goroutines' Add runs concurrently with Wait.
	{"WrongAdd", true, func(t *schedtest.T) {
		c := chans.Make[bool](2)
		var wg sched.WaitGroup
		for range 2 {
			sched.Go(func() {
				wg.Add(1)
				vtime.Sleep(100 * time.Millisecond)
				wg.Done()
				c.Send(true)
			})
		}
		vtime.Sleep(50 * time.Millisecond)
		wg.Wait()
		c.Recv()
		c.Recv()
	}},
	{"WrongWait", true, func(t *schedtest.T) {
		c := chans.Make[bool](2)
		x := 0
		_ = x
		var wg sched.WaitGroup
		for i := range 2 {
			sched.Go(func() {
				wg.Add(1)
				sched.Yield()
				x = i
				wg.Done()
				c.Send(true)
			})
		}
		wg.Wait()
		c.Recv()
		c.Recv()
	}},
	// A WaitGroup reused while the previous Wait has not returned.
	{"Reuse", true, func(t *schedtest.T) {
		const P, T = 3, 3
		done := chans.Make[bool](T)
		var wg sched.WaitGroup
		for range T {
			var data [P]int
			wg.Add(P)
			for p := range P {
				sched.Go(func() {
					vtime.Sleep(50 * time.Millisecond)
					data[p]++
					wg.Done()
				})
			}
			sched.Go(func() {
				wg.Wait()
				for p := range P {
					data[p]++
				}
				done.Send(true)
			})
			vtime.Sleep(100 * time.Millisecond)
			wg.Wait()
		}
		for range T {
			done.Recv()
		}
	}},
	{"MultipleWait", false, func(t *schedtest.T) {
		c := chans.Make[bool](2)
		var wg sched.WaitGroup
		for range 2 {
			sched.Go(func() {
				wg.Wait()
				c.Send(true)
			})
		}
		wg.Wait()
		c.Recv()
		c.Recv()
	}},
	{"Reuse2", false, func(t *schedtest.T) {
		const P = 3
		var data [P]int
		var wg sched.WaitGroup
		for range 3 {
			wg.Add(P)
			for p := range P {
				sched.Go(func() {
					data[p]++
					wg.Done()
				})
			}
			done := chans.Make[bool](0)
			sched.Go(func() {
				wg.Wait()
				for p := range P {
					data[p]++
				}
				done.Send(true)
			})
			wg.Wait()
			done.Recv()
			for p := range P {
				data[p]++
			}
		}
	}},
	{"ConcurrentAdd", false, func(t *schedtest.T) {
		const P = 4
		waiting := chans.Make[bool](P)
		var wg sched.WaitGroup
		for range P {
			sched.Go(func() {
				wg.Add(1)
				waiting.Send(true)
				wg.Done()
			})
		}
		for range P {
			waiting.Recv()
		}
		wg.Wait()
	}},
}

func TestChildWaitGroupRaces(t *testing.T) {
	if os.Getenv("DST_CHILD") != "waitgroup" {
		t.Skip("run by TestWaitGroupRaceChecks")
	}
	for _, c := range waitGroupCases {
		t.Run(c.name, func(t *testing.T) {
			schedtest.TestWith(t, schedtest.Options{Iterations: 100, Seed: 1}, c.body)
		})
	}
}

// sync.WaitGroup's own race checks hold for sched.WaitGroup: an Add that
// starts from zero must happen before Wait, and before a reused
// WaitGroup's Add the previous Wait must have returned. The races are
// reported, by the WaitGroup's methods, where Go's race detector reports
// them, and not where it does not.
func TestWaitGroupRaceChecks(t *testing.T) {
	dir := t.TempDir()
	out := raceChild(t, "waitgroup", "off", engine.RaceEnv(filepath.Join(dir, "race")), "-test.run=^TestChildWaitGroupRaces$", "-test.v")
	got := map[string]string{}
	for _, v := range verdicts(out) {
		verdict, name, _ := strings.Cut(v, " ")
		got[name] = verdict
	}
	for _, c := range waitGroupCases {
		want := "PASS"
		if c.race {
			want = "FAIL"
		}
		if v := got["TestChildWaitGroupRaces/"+c.name]; v != want {
			t.Errorf("%s: %s, want %s", c.name, v, want)
		}
	}
	if !regexp.MustCompile(`data race: WaitGroup.Wait at race_test\.go:\d+ \(\S+\) by goroutine 1, and an earlier WaitGroup.Add at race_test\.go:\d+ \(\S+\) by .*\(sync.WaitGroup's own race check`).MatchString(out) {
		t.Errorf("the report of WrongAdd does not name WaitGroup.Add racing WaitGroup.Wait")
	}
	if !regexp.MustCompile(`data race: WaitGroup.Add at race_test\.go:\d+ \(\S+\) by goroutine 1, and an earlier WaitGroup.Wait at race_test\.go:\d+`).MatchString(out) {
		t.Errorf("the report of Reuse does not name WaitGroup.Add racing the previous WaitGroup.Wait")
	}
	if strings.Contains(out, "sched: data race") && !strings.Contains(out, "sched: data race in schedule") {
		t.Errorf("a data race reported other than as a schedule's failure")
	}
	if t.Failed() {
		t.Logf("the child's output:\n%s", out)
	}
}

// Without -race a test says, once, that data races were not checked (a
// lock removed from a map update is found by the race detector alone);
// under -race it does not.
func TestRaceNotCheckedNote(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildRaceClean$", "-test.v")
	cmd.Env = append(os.Environ(), "DST_CHILD=clean", "DST_DIR=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	note := "sched: note: data races were not checked (the race detector is off: run with -race to check them)"
	want := 1
	if engine.RaceEnabled {
		want = 0
	}
	if n := strings.Count(string(out), note); n != want {
		t.Errorf("the note is said %d times, want %d:\n%s", n, want, out)
	}
}

// TestChildRaceFlags races in every schedule, and logs what its process
// was given: whether it is raceInChild's child (whose GORACE is set),
// -test.short, -dst.watchdog, and whether its deadline is within 35s.
func TestChildRaceFlags(t *testing.T) {
	if os.Getenv("DST_CHILD") != "flags" {
		t.Skip("run by TestRaceChildInheritsFlags")
	}
	d, ok := t.Deadline()
	within := ok && time.Until(d) <= 35*time.Second
	watchdog := flag.Lookup("dst.watchdog").Value.String()
	schedtest.TestWith(t, schedtest.Options{Iterations: 40, Seed: 1, Strategy: "random"}, func(t *schedtest.T) {
		t.Logf("child=%v short=%v watchdog=%s deadline within 35s=%v", os.Getenv("GORACE") != "", testing.Short(), watchdog, within)
		raceBodies["unsynchronized"].body(t)
	})
}

// The child to which a race is handed (raceInChild) runs the test as this
// process does: with its -test.short and -dst.* flags, and within its
// deadline.
func TestRaceChildInheritsFlags(t *testing.T) {
	out := raceChild(t, "flags", t.TempDir(), "", "-test.run=^TestChildRaceFlags$", "-test.short", "-dst.watchdog=7s", "-test.timeout=40s")
	if !strings.Contains(out, "sched: data race in schedule ") {
		t.Fatalf("no race reported:\n%s", out)
	}
	if want := "child=true short=true watchdog=7s deadline within 35s=true"; !strings.Contains(out, want) {
		t.Errorf("the report, raceInChild's child's, does not log %q:\n%s", want, out)
	}
}
