package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/trace"
)

// fakeRand returns its values in turn, each modulo n.
type fakeRand struct {
	vals []int
	n    []int // the n of each call
}

func (r *fakeRand) IntN(n int) int {
	r.n = append(r.n, n)
	v := r.vals[0] % n
	r.vals = r.vals[1:]
	return v
}

func TestTestWeight(t *testing.T) {
	const mean = 1000
	fresh := testWeight(pickStats{}, mean)
	found := testWeight(pickStats{execs: mean, batches: 3, sinceNew: 0}, mean)
	older := testWeight(pickStats{execs: mean, batches: 3, sinceNew: 2}, mean)
	stale := testWeight(pickStats{execs: mean, batches: 3, sinceNew: neverNew}, mean)
	few := testWeight(pickStats{execs: 10, batches: 3, sinceNew: neverNew}, mean)
	many := testWeight(pickStats{execs: 1000 * mean, batches: 3, sinceNew: neverNew}, mean)
	if !(fresh > found && found > older && older > stale) {
		t.Errorf("fresh %d, found new coverage last batch %d, two batches ago %d, never %d: want decreasing", fresh, found, older, stale)
	}
	if !(few > stale && stale > many) {
		t.Errorf("few execs %d, mean %d, many %d: want decreasing", few, stale, many)
	}
	if many < weightFloor || many < 1 {
		t.Errorf("a test that ran a lot and found nothing has weight %d: it must keep %d", many, weightFloor)
	}
	if w := testWeight(pickStats{batches: 1, sinceNew: neverNew}, 0); w != weightFloor+weightFew {
		t.Errorf("no executions anywhere: weight %d, want %d", w, weightFloor+weightFew)
	}
}

func TestPickTest(t *testing.T) {
	stats := []pickStats{
		{execs: 5000, batches: 4, sinceNew: neverNew}, // stale
		{execs: 5000, batches: 4, sinceNew: 0},        // just found new coverage
		{execs: 100, batches: 1, sinceNew: 1},         // found new coverage a batch ago, few execs
	}
	var mean float64 = 10100.0 / 3
	weights := []int{testWeight(stats[0], mean), testWeight(stats[1], mean), testWeight(stats[2], mean)}
	total := weights[0] + weights[1] + weights[2]
	// Every draw in [0, total) once: each test is picked as often as its
	// weight says.
	r := &fakeRand{}
	for v := range total {
		r.vals = append(r.vals, v)
	}
	got := make([]int, len(stats))
	for range total {
		got[pickTest(stats, r)]++
	}
	if !slices.Equal(got, weights) {
		t.Errorf("picks %v, want the weights %v", got, weights)
	}
	if slices.ContainsFunc(r.n, func(n int) bool { return n != total }) {
		t.Errorf("drew from %v, want %d each time", r.n, total)
	}
	// The boundaries: the first and last draw of each test's share.
	r = &fakeRand{vals: []int{0, weights[0] - 1, weights[0], total - 1}}
	for i, want := range []int{0, 0, 1, 2} {
		if got := pickTest(stats, r); got != want {
			t.Errorf("draw %d: picked %d, want %d", i, got, want)
		}
	}
	if got := pickTest(stats[:1], &fakeRand{vals: []int{7}}); got != 0 {
		t.Errorf("one test: picked %d", got)
	}
	// While some tests have not run, only they are drawn, alike.
	stats = append(stats, pickStats{}, pickStats{})
	r = &fakeRand{vals: []int{0, 2*weightFresh - 1}}
	if a, b := pickTest(stats, r), pickTest(stats, r); a != 3 || b != 4 || r.n[0] != 2*weightFresh {
		t.Errorf("with two tests not run: picked %d and %d from [0, %d)", a, b, r.n[0])
	}
}

func TestFormatProgress(t *testing.T) {
	p := progress{elapsed: 72*time.Second + 400*time.Millisecond, workers: 2, execs: 45210, rateNow: 3120, rateAll: 628,
		corpus: 34, cover: 311, failures: 1}
	want := "hunt 1m12s: 2 workers, 45.2k execs (3120/s now, 628/s overall), corpus 34, cover 311, 1 failure"
	if got := formatProgress(p); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	p.tests = []testProgress{{name: "TestA", execs: 12000, failures: 3}, {name: "TestB", execs: 4100}, {name: "TestC", dropped: true}}
	want += "\n  TestA 12.0k execs 3 fail, TestB 4100 execs, TestC 0 execs (out)"
	if got := formatProgress(p); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// Many tests: the per-test part stays about one line.
	p.tests = nil
	for i := range 40 {
		p.tests = append(p.tests, testProgress{name: fmt.Sprintf("TestNumber%d", i), execs: 123456})
	}
	lines := strings.Split(formatProgress(p), "\n")
	if len(lines) != 2 || len(lines[1]) > progressWidth+30 || !strings.HasSuffix(lines[1], "more)") {
		t.Errorf("40 tests: %q", lines)
	}
	for _, s := range lines {
		if strings.Contains(s, "\r") {
			t.Errorf("a carriage return in %q", s)
		}
	}
}

func TestShort(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 3.6: "4", 9999: "9999", 12345: "12.3k", 123456: "123k", 4.5e6: "4.5M", 2.1e9: "2.1G"} {
		if got := short(v); got != want {
			t.Errorf("short(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestHuntFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-j", "0"}, "-j 0: want at least 1 worker"},
		{[]string{"-j", "many"}, "invalid value"},
		{[]string{"-run", "Test(A"}, "-run \"Test(A\": error parsing regexp"},
		{[]string{"-time", "-1s"}, "-time -1s"},
		{[]string{"-execs", "-5"}, "-execs -5"},
		{[]string{"-batch", "1ms"}, "-batch 1ms: want at least"},
		{[]string{"./examples/dedup", "-j", "0"}, "-j 0"}, // flags after packages
	} {
		var out, errb bytes.Buffer
		code := Main(append([]string{"hunt"}, c.args...), &out, &errb)
		if code != ExitUsage || !strings.Contains(errb.String(), c.want) {
			t.Errorf("hunt %v: exit %d, want %d with %q:\n%s", c.args, code, ExitUsage, c.want, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"hunt", "--help"}, &out, &errb); code != ExitOK {
		t.Fatalf("--help: exit %d", code)
	}
	for _, want := range []string{"usage: dstreplay hunt [flags] [packages]", "-dst.strategy=hunt", "resumes", "-corpus", "-execs", "-batch", "-race"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

func TestParseFlagsInterleaved(t *testing.T) {
	for _, c := range []struct {
		args      []string
		pos       []string
		v, j      string
		wantError bool
	}{
		{args: []string{"-v", "a", "b"}, pos: []string{"a", "b"}, v: "true"},
		{args: []string{"a", "-j", "3", "b", "-v"}, pos: []string{"a", "b"}, v: "true", j: "3"},
		{args: []string{"a", "-", "b"}, pos: []string{"a", "-", "b"}},
		{args: []string{"-j", "2", "--", "-v", "x"}, pos: []string{"-v", "x"}, j: "2"},
		{args: []string{"a", "-nope"}, wantError: true},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(new(bytes.Buffer))
		v := fs.Bool("v", false, "")
		j := fs.Int("j", 0, "")
		err := parseFlags(fs, c.args, true)
		if (err != nil) != c.wantError {
			t.Errorf("%q: error %v", c.args, err)
			continue
		}
		if err != nil {
			continue
		}
		if !slices.Equal(fs.Args(), c.pos) || fmt.Sprint(*v) != cmpOr(c.v, "false") || fmt.Sprint(*j) != cmpOr(c.j, "0") {
			t.Errorf("%q: args %q, -v %v, -j %d", c.args, fs.Args(), *v, *j)
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestCrashMessage(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"ok\nfatal error: concurrent map writes\n\ngoroutine 5 [running]:\n", "fatal error: concurrent map writes"},
		{"panic: boom [recovered]\n", "panic: boom [recovered]"},
		{"--- FAIL: TestX (0.01s)\n\n    x_test.go:12: it broke\nFAIL\n", "x_test.go:12: it broke"},
		{"nothing to see\n", "signal: killed"},
	} {
		if got := crashMessage([]byte(c.out), "signal: killed"); got != c.want {
			t.Errorf("%q: got %q, want %q", c.out, got, c.want)
		}
	}
	if got := lastLines([]byte("a\nb\nc\n"), 2); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("lastLines: %q", got)
	}
	if got := lastLines(nil, 2); got != nil {
		t.Errorf("lastLines of nothing: %q", got)
	}
}

func TestTailAndLines(t *testing.T) {
	var got []string
	w := &lineWriter{fn: func(l []byte) { got = append(got, string(l)) }}
	w.Write([]byte("one\ntw"))
	w.Write([]byte("o\nthree"))
	w.flush()
	if !slices.Equal(got, []string{"one", "two", "three"}) {
		t.Errorf("lines: %q", got)
	}
	got = nil
	w.Write(bytes.Repeat([]byte("x"), maxLine+10))
	w.Write([]byte("\n"))
	if len(got) != 2 || len(got[0]) != maxLine || len(got[1]) != 10 {
		t.Errorf("a long line: %d pieces", len(got))
	}

	var tl tail
	for i := range 20000 {
		tl.add(fmt.Appendf(nil, "line %d", i))
	}
	b := tl.bytes()
	if len(b) > maxTail || !bytes.HasPrefix(b, []byte("line ")) || !bytes.HasSuffix(b, []byte("line 19999\n")) {
		t.Errorf("tail: %d bytes, from %q", len(b), b[:20])
	}
}

// The fake worker: hunt_test re-runs its own binary as the workers, which
// follow the protocol as the tests' names say.
const fakeWorkerEnv = "DSTREPLAY_FAKE_WORKER"

func init() {
	if os.Getenv(fakeWorkerEnv) != "" {
		os.Exit(fakeWorker(os.Args[1:]))
	}
}

// fakeWorker hunts for -dst.time or -dst.iters, making 100 executions each
// 20ms. TestPlain prints no status; TestCrash dies; TestBuggy finds a
// failure.
func fakeWorker(args []string) int {
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	run := fs.String("test.run", "", "")
	fs.Int("test.count", 1, "")
	fs.String("dst.strategy", "", "")
	budget := fs.Duration("dst.time", 0, "")
	iters := fs.Int64("dst.iters", 0, "")
	fs.String("dst.corpus", "", "")
	worker := fs.Int("dst.worker", -1, "")
	fs.Bool("dst.keepgoing", false, "")
	fs.Bool("dst.shrink", true, "")
	fs.String("dst.input", "", "")
	crashTrace := fs.String("dst.crashtrace", "", "")
	dir := fs.String("dst.dir", "", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	name := strings.Trim(*run, "^$")
	var execs int64
	status := func(final bool) {
		fmt.Printf(`dst-hunt {"test":%q,"worker":%d,"execs":%d,"corpus":5,"cover":10,"failures":0,"new":1,"final":%v}`+"\n", name, *worker, execs, final)
	}
	switch name {
	case "TestPlain":
		fmt.Println("PASS")
		return 0
	case "TestCrash":
		if *crashTrace != "" {
			// The re-run that records the crash's trace: two events on
			// disk, then the same death.
			f, err := os.Create(*crashTrace)
			if err != nil {
				return 3
			}
			w, _ := trace.NewWriter(f, &trace.Header{Package: "example.com/fake", Test: name, Detail: true})
			var b trace.Buffer
			w.Stream(&b)
			b.AddArgs(trace.KindSpawn, 0, 0, 0, 1, 0)
			b.AddOp(trace.KindOp, 1, 1, 0, 5, 1, &trace.Location{Func: "fake.F", File: "/fake/f.go", Line: 7})
		} else {
			status(false)
		}
		fmt.Fprintln(os.Stderr, "fatal error: concurrent map writes")
		return 2
	}
	begin := time.Now()
	for {
		time.Sleep(20 * time.Millisecond)
		execs += 100
		if name == "TestBuggy" && execs == 200 {
			trace := filepath.Join(*dir, name, fmt.Sprintf("deadlock-%d.trace", *worker))
			os.MkdirAll(filepath.Dir(trace), 0o755)
			os.WriteFile(trace, []byte("a trace"), 0o644)
			// The message varies (as ids in a message do); the signature
			// does not.
			fmt.Printf(`dst-hunt-failure {"test":%q,"worker":%d,"kind":"deadlock","message":"all goroutines are blocked (job %d)","signature":"deadlock: Lock","trace":%q,"before":{"steps":120,"preemptions":9,"goroutines":4,"values":130},"after":{"steps":%d,"preemptions":2,"goroutines":3,"values":12}}`+"\n",
				name, *worker, *worker, trace, 30+*worker)
		}
		if *iters > 0 && execs >= *iters || *budget > 0 && time.Since(begin) >= *budget {
			break
		}
		status(false)
	}
	status(true)
	fmt.Println("other output")
	return 0
}

// fakeHunter is a hunter over tests of a fake package, whose workers are
// fake workers.
func fakeHunter(t *testing.T, cfg huntConfig, names ...string) (*hunter, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pkg := &huntPackage{path: "example.com/fake", dir: dir, bin: self}
	cfg.dir = filepath.Join(dir, "fail")
	cfg.corpus = filepath.Join(dir, "corpus")
	var tests []*huntTest
	for _, name := range names {
		tests = append(tests, &huntTest{pkg: pkg, name: name, corpusDir: filepath.Join(cfg.corpus, pkg.path, name),
			failDir: cfg.dir, sinceNew: neverNew})
	}
	var out, errb bytes.Buffer
	h := newHunter(cfg, tests, &out, &errb)
	h.command = func(t *huntTest, args []string) *exec.Cmd {
		cmd := exec.Command(self, args...)
		cmd.Dir = t.pkg.dir
		cmd.Env = append(os.Environ(), fakeWorkerEnv+"=1")
		return cmd
	}
	return h, &out, &errb
}

// stubRecoverCrash stands in for fuzzloop.RecoverCrash, and returns the
// calls' arguments.
func stubRecoverCrash(t *testing.T) *[][]string {
	var calls [][]string
	old := recoverCrash
	recoverCrash = func(corpusDir string, worker int, failDir, test string, output []byte) (string, error) {
		calls = append(calls, []string{corpusDir, fmt.Sprint(worker), failDir, test, string(output)})
		return filepath.Join(failDir, test, "crash-1234.input"), os.MkdirAll(filepath.Join(failDir, test), 0o755)
	}
	t.Cleanup(func() { recoverCrash = old })
	return &calls
}

func TestHunterSeveralTests(t *testing.T) {
	calls := stubRecoverCrash(t)
	// The budget leaves room for every test to get a batch even when the
	// machine is busy (go test runs packages in parallel): with 2s, a
	// loaded CI run once never started TestCrash.
	h, out, errb := fakeHunter(t, huntConfig{budget: 6 * time.Second, jobs: 2, batch: 300 * time.Millisecond},
		"TestGood", "TestBuggy", "TestCrash", "TestPlain")
	// A saved failure from before the hunt, which a worker writes again: it
	// stays, even when another schedule of the failure is smaller.
	committed := filepath.Join(h.cfg.dir, "TestBuggy", "deadlock-1.trace")
	if err := os.MkdirAll(filepath.Dir(committed), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(committed, []byte("a saved failure"), 0o644); err != nil {
		t.Fatal(err)
	}
	code := h.run(nil)
	stdout, stderr := out.String(), errb.String()
	if code != ExitFailure {
		t.Errorf("exit %d, want %d", code, ExitFailure)
	}
	for _, want := range []string{
		"hunted 4 tests for ",
		"TestBuggy: deadlock: all goroutines are blocked",
		"TestCrash: crash: fatal error: concurrent map writes",
		// The package first: go test passes what follows a -dst flag to the test.
		"go test -count=1 example.com/fake -run '^TestCrash$' -dst.input=" + filepath.Join(h.cfg.dir, "TestCrash", "crash-1234.input") + "\n",
		"its trace up to the crash: dstreplay " + filepath.Join(h.cfg.dir, "TestCrash", "crash-1234.trace") + "\n",
		"(no progress reported: skipped, or no schedtest.Test)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	// The smallest schedule found (the fake worker's depends on its slot).
	if !regexp.MustCompile(`shrunk: steps 120 → 3[01], preemptions 9 → 2, goroutines 4 → 3, values 130 → 12\n`).MatchString(stdout) {
		t.Errorf("the summary lacks the sizes before and after shrinking")
	}
	m := regexp.MustCompile(`dstreplay show (\S+)\n\tdstreplay exec (\S+)\n`).FindStringSubmatch(stdout)
	if m == nil || m[1] != m[2] {
		t.Fatalf("no commands to open the failure:\n%s", stdout)
	}
	if _, err := os.Stat(m[1]); err != nil {
		t.Error(err)
	}
	// Failures with one signature are one finding, whose smallest schedule
	// is the only one whose trace is kept.
	if n := strings.Count(stdout, "TestBuggy: deadlock: "); n != 1 {
		t.Errorf("TestBuggy's failure is listed %d times:\n%s", n, stdout)
	}
	left, _ := filepath.Glob(filepath.Join(h.cfg.dir, "TestBuggy", "*.trace"))
	if want := []string{m[1], committed}; !slices.Equal(left, want) && !slices.Equal(left, []string{want[1], want[0]}) {
		t.Errorf("traces left: %v, want %v", left, want)
	}
	// The progress, once a second: overall and per test.
	if !regexp.MustCompile(`(?m)^hunt 1s: \d workers?, .* execs .*, corpus \d+, cover \d+, \d+ failures?\n  Test\w+ \d`).MatchString(stderr) {
		t.Errorf("no progress lines:\n%s", stderr)
	}
	// Failures are reported as they are found, with a crash's output.
	if !strings.Contains(stderr, "dstreplay hunt: TestBuggy (worker ") || !strings.Contains(stderr, "\t\tfatal error: concurrent map writes") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if len(*calls) == 0 || len(*calls) > maxCrashes {
		t.Fatalf("RecoverCrash called %d times, want 1 to %d", len(*calls), maxCrashes)
	}
	// The crash's trace, cut short where the process died.
	if r, err := trace.OpenFile(filepath.Join(h.cfg.dir, "TestCrash", "crash-1234.trace")); err != nil {
		t.Errorf("the crash's trace: %v", err)
	} else {
		if r.Len() != 2 || r.Truncated == nil {
			t.Errorf("the crash's trace: %d events, truncated: %v; want 2, cut short", r.Len(), r.Truncated)
		}
		r.Close()
	}
	crash := h.tests[2]
	for _, c := range *calls {
		if c[0] != crash.corpusDir || (c[1] != "0" && c[1] != "1") || c[2] != crash.failDir || c[3] != "TestCrash" || !strings.Contains(c[4], "fatal error") {
			t.Errorf("RecoverCrash(%q)", c)
		}
	}
	for _, tt := range h.tests {
		switch {
		case tt.name == "TestPlain" && (tt.execs != 0 || tt.sched):
			t.Errorf("TestPlain: %d execs", tt.execs)
		case (tt.name == "TestGood" || tt.name == "TestBuggy") && (tt.execs == 0 || tt.batches == 0 || tt.dropped != ""):
			t.Errorf("%s: %d execs in %d batches, dropped %q", tt.name, tt.execs, tt.batches, tt.dropped)
		}
	}
}

// TestHunterCrashes: a test whose worker dies every time is given up.
func TestHunterCrashes(t *testing.T) {
	calls := stubRecoverCrash(t)
	h, out, errb := fakeHunter(t, huntConfig{budget: time.Minute, jobs: 2, batch: time.Second}, "TestCrash")
	h.backoff = 10 * time.Millisecond
	begin := time.Now()
	if code := h.run(nil); code != ExitFailure {
		t.Fatalf("exit %d\n%s\n%s", code, out, errb)
	}
	if time.Since(begin) > 30*time.Second {
		t.Errorf("the hunt went on for %v after the only test was given up", time.Since(begin))
	}
	// The other worker may crash once more before it learns.
	if n := len(*calls); n < maxCrashes || n > maxCrashes+1 {
		t.Errorf("RecoverCrash called %d times, want %d or %d", n, maxCrashes, maxCrashes+1)
	}
	if want := fmt.Sprintf("%d times in all", len(*calls)); !strings.Contains(out.String(), want) {
		t.Errorf("the summary lacks %q", want)
	}
	for _, want := range []string{"TestCrash: crash: fatal error: concurrent map writes", "(given up after 5 crashes in a row)",
		"the worker process exited: exit status 2"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errb.String(), "dstreplay hunt: TestCrash: given up after 5 crashes in a row") {
		t.Errorf("stderr:\n%s", errb)
	}
}

func TestHunterExecsBudget(t *testing.T) {
	stubRecoverCrash(t)
	h, out, errb := fakeHunter(t, huntConfig{execs: 1000, jobs: 2, batch: time.Second, verbose: true}, "TestGood")
	if code := h.run(nil); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errb)
	}
	if !strings.Contains(out.String(), "hunted 1 test for") || !strings.Contains(out.String(), ": 1000 execs") || !strings.Contains(out.String(), "no failures") {
		t.Errorf("summary:\n%s", out)
	}
	// The budget was shared between the workers, and with one test there
	// are no batches: no -dst.time.
	if n := strings.Count(errb.String(), " -dst.iters=500 "); n != 2 || strings.Contains(errb.String(), "-dst.time") {
		t.Errorf("want two workers with -dst.iters=500 and no -dst.time:\n%s", errb)
	}
	// -v shows the workers' other output.
	if !strings.Contains(errb.String(), "TestGood| other output") {
		t.Errorf("-v shows no other output:\n%s", errb)
	}
}

func TestHunterInterrupt(t *testing.T) {
	stubRecoverCrash(t)
	h, out, errb := fakeHunter(t, huntConfig{budget: time.Minute, jobs: 2, batch: time.Second}, "TestGood")
	sigs := make(chan os.Signal, 1)
	timer := time.AfterFunc(1200*time.Millisecond, func() { sigs <- os.Interrupt })
	defer timer.Stop()
	begin := time.Now()
	code := h.run(sigs)
	if code != ExitOK || time.Since(begin) > 20*time.Second {
		t.Fatalf("exit %d after %v\n%s\n%s", code, time.Since(begin), out, errb)
	}
	if !strings.Contains(out.String(), "interrupted (interrupt) after hunting 1 test") || strings.Contains(out.String(), "crash") {
		t.Errorf("summary:\n%s", out)
	}
	if !strings.Contains(errb.String(), "stopping the workers") {
		t.Errorf("stderr:\n%s", errb)
	}
}

func TestFailDir(t *testing.T) {
	t.Setenv("DST_DIR", "")
	if got := failDir("/abs/fail", "/pkg"); got != "/abs/fail" {
		t.Errorf("-dir: %s", got)
	}
	if got := failDir("", "/pkg"); got != filepath.Join("/pkg", "testdata", "dst") {
		t.Errorf("default: %s", got)
	}
	t.Setenv("DST_DIR", "saved")
	if got := failDir("", "/pkg"); got != filepath.Join("/pkg", "saved") {
		t.Errorf("$DST_DIR: %s", got)
	}
}

// TestHuntEndToEnd hunts the dedup example's buggy store with its real test
// binary.
func TestHuntEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and hunts examples/dedup")
	}
	t.Setenv("DST_DEMO", "1") // TestBuggyStore skips itself otherwise
	t.Chdir("../..")
	tmp := t.TempDir()
	var out, errb bytes.Buffer
	code := Main([]string{"hunt", "-time", "5s", "-j", "2", "-run", "TestBuggyStore$",
		"-corpus", filepath.Join(tmp, "corpus"), "-dir", filepath.Join(tmp, "fail"), "./examples/dedup"}, &out, &errb)
	if strings.Contains(errb.String(), "flag provided but not defined") {
		t.Fatalf("the test binary does not know the hunt's flags yet:\n%s", errb.String())
	}
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitFailure, out.String(), errb.String())
	}
	m := regexp.MustCompile(`dstreplay show (\S+\.trace)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no trace to show:\n%s", out.String())
	}
	if _, err := os.Stat(m[1]); errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(m[1], tmp) {
		t.Errorf("the trace %s: %v", m[1], err)
	}
}

func TestNextWake(t *testing.T) {
	now := time.Now()
	a := &huntTest{name: "TestA", notBefore: now.Add(3 * time.Second)}
	b := &huntTest{name: "TestB", notBefore: now.Add(time.Second)}
	c := &huntTest{name: "TestC", notBefore: now.Add(-time.Second)} // may start now
	h := &hunter{tests: []*huntTest{a, b, c}}
	if d := h.nextWake(now); d != time.Second {
		t.Errorf("wake in %v, want 1s", d)
	}
	b.dropped = "given up"
	if d := h.nextWake(now); d != 3*time.Second {
		t.Errorf("with TestB given up: wake in %v, want 3s", d)
	}
	h.deadline = now.Add(2 * time.Second) // TestA's wait outlasts the budget
	if d := h.nextWake(now); d != 0 {
		t.Errorf("past the deadline: wake in %v, want none", d)
	}
}

// The progress line names first what runs now, then what ran most, and
// last what was given up.
func TestOrderProgress(t *testing.T) {
	tests := []testProgress{
		{name: "Given", execs: 900, dropped: true},
		{name: "Idle", execs: 10},
		{name: "Busy", execs: 500},
		{name: "RunningSmall", execs: 5, running: true},
		{name: "RunningBig", execs: 50, running: true},
	}
	orderProgress(tests)
	var got []string
	for _, p := range tests {
		got = append(got, p.name)
	}
	if want := "RunningBig RunningSmall Busy Idle Given"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

// The files there before a hunt include its subtests' saved failures.
func TestSavedBefore(t *testing.T) {
	dir := t.TempDir()
	files := []string{
		filepath.Join(dir, "TestX", "deadlock-1.trace"),
		filepath.Join(dir, "TestX", "deadlock-1.input"),
		filepath.Join(dir, "TestX", "sub", "leak-2.trace"),
	}
	other := filepath.Join(dir, "TestY", "leak-3.trace")
	for _, f := range append(files, other, filepath.Join(dir, "TestX", "notes.txt")) {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := savedBefore([]*huntTest{{name: "TestX", failDir: dir}})
	if len(got) != len(files) {
		t.Errorf("savedBefore = %v, want %v", got, files)
	}
	for _, f := range files {
		if !got[f] {
			t.Errorf("savedBefore lacks %s", f)
		}
	}
}
