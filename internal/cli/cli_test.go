package cli_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/cli"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
	"github.com/dstgo/dst/vtime"
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func run(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := cli.Main(args, &out, &errb)
	return out.String(), errb.String(), code
}

// The Go version line depends on the toolchain.
// goLine is what differs with the machine and the build: the Go version,
// and the race option of a trace recorded under -race.
var goLine = regexp.MustCompile(`(?m)^# (go: .*|option: race=1)\n`)

func golden(t *testing.T, name, got string) {
	t.Helper()
	got = goLine.ReplaceAllString(got, "")
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

func TestShowGolden(t *testing.T) {
	path := failingTrace(t)
	out, errOut, code := run("show", path)
	if code != cli.ExitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "show.golden", out)
	// A bare trace argument shows it too.
	bare, _, _ := run(path)
	if bare != out {
		t.Error("dstreplay trace differs from dstreplay show trace")
	}
	// Filters.
	out, _, _ = run("show", "-g", "2", "-op", "Lock", path)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "#") && (!strings.Contains(l, " g2 ") || !strings.Contains(l, " Lock ")) {
			t.Errorf("-g 2 -op Lock printed %q", l)
		}
	}
	out, _, _ = run("show", "-grep", "block", "-from", "3", path)
	if !strings.Contains(out, " block ") || strings.Contains(out, " switch ") {
		t.Errorf("-grep block:\n%s", out)
	}
}

func TestSummaryGolden(t *testing.T) {
	out, errOut, code := run("summary", failingTrace(t))
	if code != cli.ExitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "summary.golden", out)
	for _, want := range []string{"outcome: deadlock", "switches:", "preemptions:", "longest waits:", "(never woken)", "goroutine 2:"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
}

func TestDiff(t *testing.T) {
	a := failingTrace(t)
	out, _, code := run("diff", a, a)
	if code != cli.ExitOK || !strings.Contains(out, "the traces have the same") {
		t.Fatalf("diff of a trace with itself: exit %d\n%s", code, out)
	}
	res, _ := schedtest.Run(schedtest.Options{Seed: 99, Record: true}, abba)
	b := filepath.Join(t.TempDir(), "other.trace")
	if err := res.WriteTrace(b); err != nil {
		t.Fatal(err)
	}
	out, _, code = run("diff", a, b)
	if code != cli.ExitFailure || !strings.Contains(out, "first difference at event") || !strings.Contains(out, " > ") {
		t.Fatalf("diff of two traces: exit %d\n%s", code, out)
	}
	// The event it names is numbered as show numbers it: show lists the
	// same events before it, and a different one there.
	n, _ := strconv.Atoi(regexp.MustCompile(`first difference at event (\d+)`).FindStringSubmatch(out)[1])
	showA, _, _ := run("show", "-faults", a)
	showB, _, _ := run("show", "-faults", b)
	la, lb := numbered(showA), numbered(showB)
	for k := 1; k < n; k++ {
		if la[k] != lb[k] {
			t.Fatalf("diff says event %d differs first; show lists event %d as %q and %q", n, k, la[k], lb[k])
		}
	}
	if la[n] == lb[n] {
		t.Errorf("diff says event %d differs; show lists it as %q in both", n, la[n])
	}
}

func TestHelp(t *testing.T) {
	out, _, code := run("help")
	if code != cli.ExitOK {
		t.Fatalf("help: exit %d", code)
	}
	for _, c := range []string{"show", "summary", "diff", "export", "exec", "debug", "html", "hunt", "help"} {
		if !strings.Contains(out, "\t"+c) {
			t.Errorf("help does not list %s:\n%s", c, out)
		}
		o, _, code := run(c, "--help")
		if code != cli.ExitOK || !strings.Contains(o, "usage: dstreplay "+c) {
			t.Errorf("%s --help: exit %d\n%s", c, code, o)
		}
		o, _, _ = run("help", c)
		if !strings.Contains(o, "usage: dstreplay "+c) {
			t.Errorf("help %s:\n%s", c, o)
		}
	}
	if _, e, code := run("frobnicate"); code != cli.ExitUsage || !strings.Contains(e, "unknown command") {
		t.Errorf("unknown command: exit %d %q", code, e)
	}
	if _, e, code := run("show"); code != cli.ExitUsage || !strings.Contains(e, "want 1 argument") {
		t.Errorf("show without a file: exit %d %q", code, e)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	if _, e, code := run("show", filepath.Join(dir, "missing.trace")); code != cli.ExitUsage || !strings.Contains(e, "no such file") {
		t.Errorf("missing file: exit %d %q", code, e)
	}
	junk := filepath.Join(dir, "junk.trace")
	os.WriteFile(junk, []byte("this is not a trace at all"), 0o644)
	if _, e, code := run("summary", junk); code != cli.ExitUsage || !strings.Contains(e, "not a trace") {
		t.Errorf("junk: exit %d %q", code, e)
	}
	// A trace cut in half: what can be shown is shown, and the exit code
	// says the trace is damaged.
	full, _ := os.ReadFile(failingTrace(t))
	cut := filepath.Join(dir, "cut.trace")
	os.WriteFile(cut, full[:len(full)*2/3], 0o644)
	out, e, code := run("show", cut)
	if code != cli.ExitFailure || !strings.Contains(e, "cut short") || !strings.Contains(out, "# test: schedtest.Explore") {
		t.Errorf("truncated: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, e)
	}
}

// TestExportPerfetto checks the export against the trace-event format's
// required fields, phase by phase.
func TestExportPerfetto(t *testing.T) {
	for _, c := range []struct{ name, path string }{
		{"pingpong", pingPongTrace(t, 5)}, // goroutines wake each other
		{"selfwake", selfWakeTrace(t)},    // a timer wakes the only goroutine that can run
	} {
		t.Run(c.name, func(t *testing.T) { checkPerfetto(t, c.path) })
	}
	if _, _, code := run("export", "-format", "svg", pingPongTrace(t, 1)); code != cli.ExitUsage {
		t.Errorf("an unknown format: exit %d", code)
	}
}

// selfWakeTrace records a goroutine that sleeps while the only other one
// is blocked: the timer wakes it, and it runs on without a switch.
func selfWakeTrace(t *testing.T) string {
	t.Helper()
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Record: true}, func(t *schedtest.T) {
		c := chans.Make[int](0)
		sched.Go(func() { c.Recv() })
		vtime.Sleep(time.Millisecond) // the other one blocks meanwhile
		vtime.Sleep(time.Millisecond) // then this one is the last to block
		c.Send(1)
	})
	if err != nil || res.Failure != nil {
		t.Fatal(err, res.Failure)
	}
	path := cli.SaveTrace(t, res, "selfwake.trace")
	return path
}

// checkPerfetto checks the export of the trace at path against the
// trace-event format's required fields, phase by phase.
func checkPerfetto(t *testing.T, path string) {
	out, errOut, code := run("export", "-format", "perfetto", path)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if len(doc.TraceEvents) == 0 {
		t.Fatal("no events")
	}
	starts, ends := map[float64]bool{}, map[float64]bool{}
	phases := map[string]int{}
	for i, ev := range doc.TraceEvents {
		for _, f := range []string{"name", "ph", "ts", "pid", "tid"} {
			if _, ok := ev[f]; !ok {
				t.Fatalf("event %d lacks %q: %v", i, f, ev)
			}
		}
		if _, ok := ev["ts"].(float64); !ok {
			t.Fatalf("event %d: ts is not a number: %v", i, ev)
		}
		ph := ev["ph"].(string)
		phases[ph]++
		switch ph {
		case "X":
			if d, ok := ev["dur"].(float64); !ok || d <= 0 {
				t.Errorf("complete event %d without a positive dur: %v", i, ev)
			}
		case "i":
			if ev["s"] != "t" {
				t.Errorf("instant event %d without scope: %v", i, ev)
			}
		case "s", "f":
			id, ok := ev["id"].(float64)
			if !ok {
				t.Fatalf("flow event %d without id: %v", i, ev)
			}
			if ph == "s" {
				starts[id] = true
			} else {
				ends[id] = true
			}
		case "M":
			if a, ok := ev["args"].(map[string]any); !ok || a["name"] == "" {
				t.Errorf("metadata event %d without a name: %v", i, ev)
			}
		default:
			t.Errorf("event %d has phase %q", i, ph)
		}
	}
	for id := range ends {
		if !starts[id] {
			t.Errorf("flow %v ends without starting", id)
		}
	}
	// Every wake reaches the goroutine it woke, also one a timer woke while
	// every goroutine was blocked, which runs without a switch to it.
	// Regression (found in review, fixed): those wakes never ended.
	for id := range starts {
		if !ends[id] {
			t.Errorf("flow %v starts and never ends", id)
		}
	}
	// One goroutine runs at a time: the running slices do not overlap. On
	// each goroutine's track, it runs or it is blocked, not both.
	var slices [][2]float64
	track := map[float64][][2]float64{}
	for _, ev := range doc.TraceEvents {
		if ev["ph"] == "X" {
			from := ev["ts"].(float64)
			span := [2]float64{from, from + ev["dur"].(float64)}
			if ev["name"] == "running" {
				slices = append(slices, span)
			}
			tid := ev["tid"].(float64)
			track[tid] = append(track[tid], span)
		}
	}
	for _, spans := range append([][][2]float64{slices}, mapValues(track)...) {
		sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
		for i := 1; i < len(spans); i++ {
			if spans[i][0] < spans[i-1][1]-1e-9 {
				t.Errorf("slices overlap: %v and %v", spans[i-1], spans[i])
			}
		}
	}
	// Time is virtual time: every instant is at its event's virtual time,
	// or just after it (a nanosecond per event before it at that instant),
	// and the events keep their order.
	var instants []map[string]any
	for _, ev := range doc.TraceEvents {
		if ev["ph"] == "i" {
			instants = append(instants, ev)
		}
	}
	prevNum, prevTs := 0.0, -1.0
	for _, ev := range instants {
		args := ev["args"].(map[string]any)
		num, ok := args["event"].(float64) // numbered as show numbers it
		if !ok {
			t.Fatalf("instant %v has no event number", ev)
		}
		vt, ts := args["time_ns"].(float64), ev["ts"].(float64)*1000
		if num <= prevNum || ts <= prevTs {
			t.Errorf("event %v at %vns comes after event %v at %vns", num, ts, prevNum, prevTs)
		}
		if ts < vt-1e-6 || ts > vt+num {
			t.Errorf("event %v at virtual time %vns is placed at %vns", num, vt, ts)
		}
		prevNum, prevTs = num, ts
	}
	// A goroutine that blocks has a slice for it, named for what it waits
	// in, from its block event on.
	blocked := 0
	for _, ev := range doc.TraceEvents {
		if ev["ph"] == "X" && ev["cat"] == "blocked" {
			blocked++
			if !strings.HasPrefix(ev["name"].(string), "blocked in ") {
				t.Errorf("blocked slice %v", ev)
			}
		}
	}
	if blocked == 0 {
		t.Error("no blocked slices")
	}
	if again, _, _ := run("export", "-format", "perfetto", path); again != out {
		t.Error("two exports of one trace differ")
	}
	for _, ph := range []string{"X", "i", "s", "f", "M"} {
		if phases[ph] == 0 {
			t.Errorf("no %q events: %v", ph, phases)
		}
	}
}

// numbered is show's event lines by the number it gives them, without
// their source locations (which diff ignores).
func numbered(out string) map[int]string {
	m := map[int]string{}
	for _, l := range strings.Split(out, "\n") {
		num, rest, ok := strings.Cut(strings.TrimSpace(l), "  ")
		if n, err := strconv.Atoi(num); ok && err == nil {
			rest, _, _ = strings.Cut(rest, " at ")
			m[n] = rest
		}
	}
	return m
}

func mapValues[K comparable, V any](m map[K]V) []V {
	var out []V
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// recordFailure runs test in pkg with go test and env, expects it to fail,
// and returns the path of the one trace it saved.
func recordFailure(t *testing.T, pkg, test string, env ...string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "test", "-count=1", pkg, "-run", "^"+test+"$")
	cmd.Env = append(append(os.Environ(), env...), "DST_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("%s passed:\n%s", test, out)
	}
	traces, _ := filepath.Glob(filepath.Join(dir, test, "*.trace"))
	if len(traces) != 1 {
		t.Fatalf("want one saved trace, found %v", traces)
	}
	return traces[0]
}

// TestExec records a failing test's trace with go test, then re-runs it
// with dstreplay exec.
func TestExec(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	traces := []string{recordFailure(t, "github.com/dstgo/dst/examples/bank", "TestBuggyBank", "DST_DEMO=1")}
	// The demo runs when asked for one of its schedules, without DST_DEMO.
	t.Setenv("DST_DEMO", "")
	t.Setenv("DST_DIR", "off")
	out, errOut, code := run("exec", traces[0])
	if code != cli.ExitOK || !strings.Contains(errOut, "the re-run ended as recorded") {
		t.Fatalf("exec: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// A trace cut short has no recorded outcome to confirm.
	whole, err := os.ReadFile(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.trace")
	if err := os.WriteFile(cut, whole[:len(whole)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, e, code := run("exec", cut); code != cli.ExitFailure || !strings.Contains(e, "the recorded run's outcome is unknown: ") ||
		strings.Contains(e, "ended with pass") {
		t.Errorf("exec of a trace cut short: exit %d %q", code, e)
	}
	// A trace that no go test test recorded cannot be re-run.
	if _, e, code := run("exec", failingTrace(t)); code != cli.ExitUsage || !strings.Contains(e, "not recorded by a go test test") {
		t.Errorf("exec of a schedtest.Explore trace: exit %d %q", code, e)
	}
	// A trace of a package that is not here: nothing to build, and it says
	// which package.
	gone := filepath.Join(t.TempDir(), "gone.trace")
	f, err := os.Create(gone)
	if err != nil {
		t.Fatal(err)
	}
	w, err := trace.NewWriter(f, &trace.Header{Package: "example.com/gone", Test: "TestGone", Strategy: "random"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []trace.Event{{Kind: trace.KindSpawn, Arg: 1}, {Kind: trace.KindOp, Step: 1, G: 1, Op: 5}} {
		if err := w.Add(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(&trace.Outcome{Kind: "deadlock", Steps: 1}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, cmd := range []string{"exec", "debug"} {
		if _, e, code := run(cmd, gone); code != cli.ExitUsage || !strings.Contains(e, "package example.com/gone is not found") {
			t.Errorf("%s of a trace whose package is not here: exit %d %q", cmd, code, e)
		}
	}
}

// The header says "seed" only when the seed reproduces the schedule; a
// schedule from a recording (a replayed handle) says so.
func TestScheduleLabel(t *testing.T) {
	body := func(t *schedtest.T) { sched.Yield() }
	bySeed, err := schedtest.Run(schedtest.Options{Seed: 5, Strategy: "random", Record: true}, body)
	if err != nil {
		t.Fatal(err)
	}
	byRec, err := schedtest.Run(schedtest.Options{Recording: bySeed.Recording, Strategy: "random", Record: true}, body)
	if err != nil {
		t.Fatal(err)
	}
	// A recording beside a seed: the recording runs, the seed does not.
	byBoth, err := schedtest.Run(schedtest.Options{Seed: 77, Recording: bySeed.Recording, Strategy: "random", Record: true}, body)
	if err != nil {
		t.Fatal(err)
	}
	byZero, err := schedtest.Run(schedtest.Options{Strategy: "random", Record: true}, body) // seed 0
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		res  *schedtest.Result
		want string
	}{{bySeed, "(random, seed 0x5)"}, {byRec, "(random, from a recording)"}, {byBoth, "(random, from a recording)"},
		{byZero, "(random, seed 0x0)"}} {
		path := cli.SaveTrace(t, c.res, "x.trace")
		if out, _, _ := run("summary", path); !strings.Contains(out, c.want) {
			t.Errorf("summary says %q, want %q", strings.SplitN(out, "\n", 2)[0], c.want)
		}
	}
}

// show, summary and html take several traces (a glob that matches more
// than one saved failure), one after the other under their names.
func TestSeveralTraces(t *testing.T) {
	a, b := pingPongTrace(t, 1), selfWakeTrace(t)
	out, errOut, code := run("summary", a, b)
	if code != cli.ExitOK || !strings.Contains(out, "==> "+a+" <==") || !strings.Contains(out, "==> "+b+" <==") ||
		strings.Count(out, "outcome: pass") != 2 {
		t.Errorf("summary of two traces: exit %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{{"-g", "1", a, b}, {"-to", "-1", a, b}, {"--grep", "-x", a, b}, {"--", a, b}} {
		if out, _, code := run(append([]string{"show"}, args...)...); code != cli.ExitOK || strings.Count(out, "# test: ") != 2 {
			t.Errorf("show %q: exit %d\n%s", args, code, out)
		}
	}
	for _, o := range []string{"-o", "--o"} {
		if _, e, code := run("html", o, filepath.Join(t.TempDir(), "x.html"), a, b); code != cli.ExitUsage || !strings.Contains(e, "-o names one page") {
			t.Errorf("html %s with two traces: exit %d %q", o, code, e)
		}
	}
	if _, e, code := run("exec", a, b); code != cli.ExitUsage {
		t.Errorf("exec of two traces: exit %d %q", code, e)
	}
}
