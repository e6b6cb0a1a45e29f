package schedtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
	"github.com/dstgo/dst/vtime"
)

// childBodies are the bodies the tests of this file run in a child test
// binary (TestChildReproduce), by DST_CHILD.
var childBodies = map[string]func(*schedtest.T){
	// A long schedule: its handle, shrunk or not, is kilobytes long.
	"big":   poolLostUpdate(50, 10, 45, 8),
	"small": smallLostUpdate,
	// Fails only in code rewritten by dstreplay test, as a bug in code
	// that go test runs as written, off the scheduler, would.
	"rewritten-only": func(t *schedtest.T) {
		if os.Getenv("DST_REWRITTEN") != "" {
			smallLostUpdate(t)
		}
	},
	// Fails only under a mark of the environment, as a data race does
	// only under -race.
	"marked-only": func(t *schedtest.T) {
		if os.Getenv("DST_TEST_MARK") != "" {
			smallLostUpdate(t)
		}
	},
	// Takes 20 ms of real time a schedule: a thousand take 20 s.
	"slowreal": func(t *schedtest.T) {
		var wg sched.WaitGroup
		wg.Go(func() {
			for start := time.Now(); time.Since(start) < 20*time.Millisecond; {
			}
		})
		wg.Wait()
	},
	// Outlives its timeout (childTimeout) on the virtual clock.
	"slow": func(t *schedtest.T) {
		var wg sched.WaitGroup
		wg.Go(func() { vtime.Sleep(2 * time.Hour) })
		wg.Wait()
	},
}

// childTimeout is the virtual timeout of the child's "slow" body, as a
// wrapped test's is go test's -timeout.
const childTimeout = time.Hour

// smallLostUpdate loses one of two updates when the goroutines interleave.
func smallLostUpdate(t *schedtest.T) {
	var mu sched.Mutex
	var wg sched.WaitGroup
	x := 0
	for range 2 {
		wg.Go(func() {
			mu.Lock()
			v := x
			mu.Unlock()
			mu.Lock()
			x = v + 1
			mu.Unlock()
		})
	}
	wg.Wait()
	if x != 2 {
		t.Errorf("x = %d, want 2", x)
	}
}

func TestChildReproduce(t *testing.T) {
	body, ok := childBodies[os.Getenv("DST_CHILD")]
	if !ok {
		t.Skip("run by the tests of reproduce_test.go")
	}
	o := schedtest.Options{Strategy: "random", Seed: 1, Iterations: 50}
	switch os.Getenv("DST_CHILD") {
	case "slow":
		o.Timeout = childTimeout
	case "slowreal":
		o.Iterations = 1000
	}
	schedtest.TestWith(t, o, body)
}

// childEnv runs the test binary's TestChildReproduce with body mode, the
// failures saved under saveDir, in dir, with env added to the environment.
func childEnv(t *testing.T, saveDir, dir, mode string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DST_CHILD="+mode, "DST_DIR="+saveDir)
	// The tests set what they test; the environment of whoever runs them
	// (dstreplay test, or a shell that ran it) must not.
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool {
		return strings.HasPrefix(kv, "DST_REWRITTEN=") || strings.HasPrefix(kv, "DST_TOOL=") || strings.HasPrefix(kv, "DST_TEST_DIR=")
	})
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

var anyReproduceRE = regexp.MustCompile(`reproduce:\n\s+(.*)\n`)

// TestReproduceLongSchedule: the reproduce line of a schedule whose handle
// is kilobytes long (a thousand goroutines make hundreds) names a file,
// the saved trace or, with saving off, an input file, and runs as printed.
// Regression (found by a user, fixed): the line held a 303 KB
// -dst.replay handle, which the shell refused (Argument list too long).
func TestReproduceLongSchedule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	for _, saving := range []bool{true, false} {
		name := map[bool]string{true: "saved", false: "dir-off"}[saving]
		t.Run(name, func(t *testing.T) {
			saveDir := t.TempDir()
			if !saving {
				saveDir = "off"
			}
			out, err := childEnv(t, saveDir, ".", "big", nil, os.Args[0], "-test.run=^TestChildReproduce$")
			if err == nil || !strings.Contains(out, "test failed in schedule") {
				t.Fatalf("the child did not fail: %v\n%s", err, out)
			}
			m := anyReproduceRE.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no reproduce line:\n%s", out)
			}
			line := m[1]
			if len(line) > 4096 || strings.Contains(line, "-dst.replay=") {
				t.Fatalf("the reproduce line is %d bytes long, a handle: %.300s...", len(line), line)
			}
			want := "-dst.trace="
			if !saving {
				want = "-dst.input="
			}
			if !strings.HasPrefix(line, "go test ") || !strings.Contains(line, want) {
				t.Fatalf("the reproduce line %q does not run go test with %s", line, want)
			}
			out2, err := childEnv(t, saveDir, root, "big", nil, "sh", "-c", line)
			if err == nil || !strings.Contains(out2, "want 500") {
				t.Fatalf("%s: %v\n%s", line, err, out2)
			}
		})
	}
}

// TestReproduceNamesTool: code that dstreplay test rewrote is run again
// the way dstreplay was run, as it says in DST_TOOL; when nothing says, the
// lines say go tool dstreplay and a note says what that needs.
// Regression (found by a user, fixed): the lines said go tool dstreplay,
// which fails where dstreplay is not a tool of the module.
func TestReproduceNamesTool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child test binary")
	}
	const via = "go run github.com/dstgo/dst/cmd/dstreplay@v0.0.0-test"
	out, err := childEnv(t, t.TempDir(), ".", "small", []string{"DST_REWRITTEN=-wrap", "DST_TOOL=" + via},
		os.Args[0], "-test.run=^TestChildReproduce$")
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	m := anyReproduceRE.FindStringSubmatch(out)
	if m == nil || !strings.HasPrefix(m[1], via+" test -wrap ") {
		t.Fatalf("the reproduce line does not run %q test -wrap:\n%s", via, out)
	}
	if !strings.Contains(out, " "+via+" summary ") || strings.Contains(out, "go tool dstreplay") {
		t.Errorf("the report's commands do not all run %q:\n%s", via, out)
	}

	out, err = childEnv(t, t.TempDir(), ".", "small", []string{"DST_REWRITTEN=1"}, os.Args[0], "-test.run=^TestChildReproduce$")
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	if m := anyReproduceRE.FindStringSubmatch(out); m == nil || !strings.HasPrefix(m[1], "go tool dstreplay test ") {
		t.Fatalf("without DST_TOOL, the reproduce line does not run go tool dstreplay test:\n%s", out)
	}
	if !strings.Contains(out, "go get -tool github.com/dstgo/dst/cmd/dstreplay") {
		t.Errorf("no note says what go tool dstreplay needs:\n%s", out)
	}
}

// TestReproduceKeepsTimeout: the reproduce line of a wrapped test run
// under a go test -timeout that is not the default runs it under the same
// one, which is its virtual timeout; without it the line's run fails
// later, or, as here, passes. Under the default it says none, whatever
// timeout the test's own options give (a test that calls TestWith itself,
// which -wrap leaves as it is: its Timeout is virtual, not go test's).
// Regression (found in review, fixed): the line carried no -timeout; then
// it carried the options' Timeout, a real-time bound for go test.
func TestReproduceKeepsTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child test binary")
	}
	for _, c := range []struct{ timeout, want string }{
		{childTimeout.String(), " -timeout=" + childTimeout.String()},
		{"10m0s", ""},
	} {
		out, err := childEnv(t, "off", ".", "slow", []string{"DST_REWRITTEN=-wrap", "DST_TOOL=" + os.Args[0] + " -"},
			os.Args[0], "-test.run=^TestChildReproduce$", "-test.timeout="+c.timeout)
		if err == nil || !strings.Contains(out, "timeout: the virtual clock reached") {
			t.Fatalf("the child did not time out: %v\n%s", err, out)
		}
		m := anyReproduceRE.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no reproduce line:\n%s", out)
		}
		if c.want != "" && !strings.HasSuffix(m[1], c.want) || c.want == "" && strings.Contains(m[1], "-timeout") {
			t.Errorf("-test.timeout=%s: the reproduce line does not run with go test's -timeout of the run (%q):\n%s", c.timeout, c.want, m[1])
		}
	}
}

// TestExplorationLeavesTimeForTheRest: a test whose schedules would run
// past go test's -timeout explores for a share of the time left and says
// so, instead of ending the test binary, and every test after it, with go
// test's panic.
// Regression (found on ants' suite, fixed): a thousand schedules of a few
// seconds each outran the 10-minute default.
func TestExplorationLeavesTimeForTheRest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child test binary for seconds")
	}
	note := regexp.MustCompile(`note: the exploration stopped after (\d+) schedules in .*, before its budget \(([^)]*)\): a test explores for at most 1/4 of the time go test's -timeout left`)
	for _, c := range []struct {
		args   []string
		budget string // in the note; "" for none
	}{
		{nil, "1000 schedules"},
		{[]string{"-dst.time=1h"}, "-dst.time 1h0m0s"}, // does not fit
		{[]string{"-dst.time=1s"}, ""},                 // fits: it is what the user asked for
	} {
		out, err := childEnv(t, "off", ".", "slowreal", nil, append([]string{os.Args[0], "-test.run=^TestChildReproduce$", "-test.v", "-test.timeout=6s"}, c.args...)...)
		if err != nil {
			t.Fatalf("%v: the child failed: %v\n%s", c.args, err, out)
		}
		m := note.FindStringSubmatch(out)
		if c.budget == "" {
			if m != nil || !strings.Contains(out, "schedules passed") {
				t.Errorf("%v: the budget given, which fits, was cut:\n%s", c.args, out)
			}
			continue
		}
		if m == nil {
			t.Fatalf("%v: no note of the exploration stopped near the deadline:\n%s", c.args, out)
		}
		if n, _ := strconv.Atoi(m[1]); n < 10 || n > 150 || m[2] != c.budget {
			t.Errorf("%v: %d schedules of 20 ms ran in a quarter of 6 s, budget %q (want %q)", c.args, n, m[2], c.budget)
		}
	}
}

// savedTrace is the one trace saved under dir.
func savedTrace(t *testing.T, dir string) string {
	t.Helper()
	var traces []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".trace") {
			traces = append(traces, path)
		}
		return nil
	})
	if len(traces) != 1 {
		t.Fatalf("%d traces saved under %s, want 1: %v", len(traces), dir, traces)
	}
	return traces[0]
}

// TestRewrittenTraceUnderGoTest: a trace recorded under dstreplay test is
// not replayed by plain go test, which runs the code as written: as a
// saved failure it is kept (-dst.prune does not delete it) and the test
// says how to replay it; named by -dst.trace it fails the test, saying the
// same.
// Regression (found by a user, fixed): go test said the saved failure "no
// longer fails" and suggested -dst.prune, which deleted the valid trace.
func TestRewrittenTraceUnderGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child test binary")
	}
	saveDir := t.TempDir()
	out, err := childEnv(t, saveDir, ".", "rewritten-only", []string{"DST_REWRITTEN=-wrap"}, os.Args[0], "-test.run=^TestChildReproduce$")
	if err == nil {
		t.Fatalf("the rewritten child passed:\n%s", out)
	}
	path := savedTrace(t, saveDir)
	r, err := trace.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := r.Header.Options
	r.Close()
	if !slices.Contains(opts, "rewritten=1") {
		t.Fatalf("the trace's header options %q do not say rewritten=1", opts)
	}

	out, err = childEnv(t, saveDir, ".", "rewritten-only", nil, os.Args[0], "-test.run=^TestChildReproduce$", "-test.v", "-dst.prune")
	if err != nil {
		t.Fatalf("go test of the code as written failed: %v\n%s", err, out)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the saved trace is gone: %v\n%s", err, out)
	}
	// A trace recorded under -race is replayed under -race.
	wrap := "go tool dstreplay test -wrap "
	if engine.RaceEnabled {
		wrap += "-race "
	}
	for _, want := range []string{"was recorded under dstreplay test", "replay it as it was recorded:",
		wrap + "./sched/schedtest -run '^TestChildReproduce$' -dst.trace=" + path} {
		if !strings.Contains(out, want) {
			t.Errorf("go test's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no longer fails") || strings.Contains(out, "deleted (-dst.prune)") {
		t.Errorf("go test calls the trace fixed:\n%s", out)
	}

	out, err = childEnv(t, saveDir, ".", "rewritten-only", nil, os.Args[0], "-test.run=^TestChildReproduce$", "-dst.trace="+path)
	if err == nil || !strings.Contains(out, "was recorded under dstreplay test") ||
		!strings.Contains(out, wrap+"./sched/schedtest") {
		t.Errorf("-dst.trace of a rewritten trace under go test: %v\n%s", err, out)
	}
}

// markRace rewrites the trace at path as if recorded under -race: race=1
// among its header's options and, with dataRace, a data race as its
// outcome.
func markRace(t *testing.T, path string, dataRace bool) {
	t.Helper()
	r, err := trace.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, o := r.Header, *r.Outcome
	events, err := r.ReadAll()
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	h.Options = append(h.Options, "race=1")
	slices.Sort(h.Options)
	if dataRace {
		o.Kind = string(schedtest.DataRace)
	}
	var buf trace.Buffer
	for i := range events {
		buf.Add(&events[i])
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.Write(f, &h, &buf, &o); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRaceTraceWithoutRace: a trace recorded under -race whose failure is
// a data race is not replayed without -race, which cannot report it: the
// test says to add -race, with the command. One whose failure is another
// kind is replayed, and if it then passes, the test says it was recorded
// under -race rather than calling it fixed, and -dst.prune keeps it.
func TestRaceTraceWithoutRace(t *testing.T) {
	if testing.Short() || engine.RaceEnabled {
		t.Skip("runs a child test binary without -race")
	}
	for _, dataRace := range []bool{true, false} {
		t.Run(map[bool]string{true: "data-race", false: "other"}[dataRace], func(t *testing.T) {
			saveDir := t.TempDir()
			out, err := childEnv(t, saveDir, ".", "marked-only", []string{"DST_TEST_MARK=1"}, os.Args[0], "-test.run=^TestChildReproduce$")
			if err == nil {
				t.Fatalf("the child passed:\n%s", out)
			}
			path := savedTrace(t, saveDir)
			markRace(t, path, dataRace)

			out, err = childEnv(t, saveDir, ".", "marked-only", nil, os.Args[0], "-test.run=^TestChildReproduce$", "-test.v", "-dst.trace="+path)
			line := "go test -race ./sched/schedtest -run '^TestChildReproduce$' -dst.trace=" + path
			switch {
			case dataRace && (err == nil || !strings.Contains(out, "was recorded under -race") || !strings.Contains(out, line)):
				t.Errorf("-dst.trace of a data race without -race: %v\n%s", err, out)
			case !dataRace && (err != nil || !strings.Contains(out, "but it was recorded under go test -race") || !strings.Contains(out, line)):
				t.Errorf("-dst.trace of a -race trace that passes without -race: %v\n%s", err, out)
			}

			out, err = childEnv(t, saveDir, ".", "marked-only", nil, os.Args[0], "-test.run=^TestChildReproduce$", "-test.v", "-dst.prune")
			if err != nil || !strings.Contains(out, line) || strings.Contains(out, "deleted (-dst.prune)") {
				t.Errorf("the saved -race trace under go test -dst.prune: %v\n%s", err, out)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("the saved trace is gone: %v\n%s", err, out)
			}
		})
	}
}

// TestRaceRecordedInHeader: a trace saved under -race says so.
func TestRaceRecordedInHeader(t *testing.T) {
	if testing.Short() || !engine.RaceEnabled {
		t.Skip("needs a -race build, and runs a child test binary")
	}
	saveDir := t.TempDir()
	out, err := childEnv(t, saveDir, ".", "small", nil, os.Args[0], "-test.run=^TestChildReproduce$")
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	r, err := trace.OpenFile(savedTrace(t, saveDir))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !slices.Contains(r.Header.Options, "race=1") {
		t.Errorf("the header options of a trace saved under -race are %q, without race=1", r.Header.Options)
	}
}
