package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/hunt"
	"github.com/dstgo/dst/trace"
)

func TestFormatProgress(t *testing.T) {
	p := hunt.Progress{Elapsed: 72*time.Second + 400*time.Millisecond, Workers: 2, Execs: 45210, RateNow: 3120, RateAll: 628,
		Corpus: 34, Cover: 311, Failures: 1}
	want := "hunt 1m12s: 2 workers, 45.2k execs (3120/s now, 628/s overall), corpus 34, cover 311, 1 failure"
	if got := formatProgress(p); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// One test left out: the line says why.
	p.Tests = []hunt.TestProgress{{Name: "TestA", Execs: 12000, Failures: 1, Dropped: true, Out: "fails on 97% of schedules"}}
	if got, want := formatProgress(p), want+"; TestA left out: fails on 97% of schedules"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	p.Tests = []hunt.TestProgress{{Name: "TestA", Execs: 12000, Failures: 3}, {Name: "TestB", Execs: 4100},
		{Name: "TestC", Dropped: true}, {Name: "TestD", Execs: 2000, Dropped: true, Out: "fails on 99% of schedules"}}
	want += "\n  TestA 12.0k execs 3 fail, TestB 4100 execs, TestC 0 execs (out), TestD 2000 execs (out: fails on 99% of schedules)"
	if got := formatProgress(p); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// Many tests: the per-test part stays about one line.
	p.Tests = nil
	for i := range 40 {
		p.Tests = append(p.Tests, hunt.TestProgress{Name: fmt.Sprintf("TestNumber%d", i), Execs: 123456})
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
		failing := int64(0)
		if name == "TestAlways" {
			failing = execs // every schedule fails
		}
		cover := 10
		if name == "TestUncovered" {
			cover = 0 // it reaches no scheduling point
		}
		fmt.Printf(`dst-hunt {"test":%q,"worker":%d,"execs":%d,"failing":%d,"corpus":5,"cover":%d,"failures":0,"new":1,"final":%v}`+"\n", name, *worker, execs, failing, cover, final)
	}
	switch name {
	case "TestGORACE":
		fmt.Println("GORACE=" + os.Getenv("GORACE"))
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
		if (name == "TestBuggy" || name == "TestAlways") && execs == 200 {
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
// fake workers, and whose RecoverCrash is a stub that records its calls.
type fakeHunter struct {
	*hunt.Hunter
	out, errb bytes.Buffer
	calls     [][]string // RecoverCrash's arguments
}

func newFakeHunter(t *testing.T, s hunt.Settings, names ...string) *fakeHunter {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pkg := &hunt.Package{Path: "example.com/fake", Dir: dir, Bin: self}
	s.Dir = filepath.Join(dir, "fail")
	s.Corpus = filepath.Join(dir, "corpus")
	var tests []*hunt.Test
	for _, name := range names {
		tests = append(tests, hunt.NewTest(pkg, name, filepath.Join(s.Corpus, pkg.Path, name), s.Dir))
	}
	f := &fakeHunter{}
	f.Hunter = hunt.NewHunter(s, tests, &f.errb)
	f.Command = func(t *hunt.Test, args []string) *exec.Cmd {
		cmd := exec.Command(self, args...)
		cmd.Dir = t.Pkg.Dir
		cmd.Env = append(os.Environ(), fakeWorkerEnv+"=1")
		return cmd
	}
	f.Recover = func(corpusDir string, worker int, failDir, test string, output []byte) (string, error) {
		f.calls = append(f.calls, []string{corpusDir, fmt.Sprint(worker), failDir, test, string(output)})
		return filepath.Join(failDir, test, "crash-1234.input"), os.MkdirAll(filepath.Join(failDir, test), 0o755)
	}
	return f
}

// run runs the hunt as the command does, and returns its exit code.
func (f *fakeHunter) run(sigs <-chan os.Signal) int {
	showHunt(f.Hunter, "dstreplay test -count=1", &f.errb)
	f.Run(sigs)
	return huntSummary(f.Hunter, "dstreplay test -count=1", &f.out, &f.errb)
}

func TestHunterSeveralTests(t *testing.T) {
	// The budget leaves room for every test to get a batch even when the
	// machine is busy (go test runs packages in parallel): with 2s, a
	// loaded CI run once never started TestCrash.
	h := newFakeHunter(t, hunt.Settings{Budget: 6 * time.Second, Jobs: 2, Batch: 300 * time.Millisecond},
		"TestGood", "TestBuggy", "TestCrash", "TestPlain")
	// A saved failure from before the hunt, which a worker writes again: it
	// stays, even when another schedule of the failure is smaller.
	committed := filepath.Join(h.Settings.Dir, "TestBuggy", "deadlock-1.trace")
	if err := os.MkdirAll(filepath.Dir(committed), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(committed, []byte("a saved failure"), 0o644); err != nil {
		t.Fatal(err)
	}
	code := h.run(nil)
	stdout, stderr := h.out.String(), h.errb.String()
	if code != ExitFailure {
		t.Errorf("exit %d, want %d", code, ExitFailure)
	}
	for _, want := range []string{
		"hunted 4 tests for ",
		"TestBuggy: deadlock: all goroutines are blocked",
		"TestCrash: crash: fatal error: concurrent map writes",
		// The package first: go test passes what follows a -dst flag to the test.
		"dstreplay test -count=1 example.com/fake -run '^TestCrash$' -dst.input=" + filepath.Join(h.Settings.Dir, "TestCrash", "crash-1234.input") + "\n",
		"its trace up to the crash: dstreplay " + filepath.Join(h.Settings.Dir, "TestCrash", "crash-1234.trace") + "\n",
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
	left, _ := filepath.Glob(filepath.Join(h.Settings.Dir, "TestBuggy", "*.trace"))
	// (Worker 1 writes the committed file's name: when only it ran
	// TestBuggy, the two are one.)
	want := []string{m[1], committed}
	if m[1] == committed {
		want = want[:1]
	}
	if !slices.Equal(left, want) && !slices.Equal(left, []string{want[len(want)-1], want[0]}) {
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
	if len(h.calls) == 0 || len(h.calls) > 5 {
		t.Fatalf("RecoverCrash called %d times, want 1 to %d", len(h.calls), 5)
	}
	// The crash's trace, cut short where the process died.
	if r, err := trace.OpenFile(filepath.Join(h.Settings.Dir, "TestCrash", "crash-1234.trace")); err != nil {
		t.Errorf("the crash's trace: %v", err)
	} else {
		if r.Len() != 2 || r.Truncated == nil {
			t.Errorf("the crash's trace: %d events, truncated: %v; want 2, cut short", r.Len(), r.Truncated)
		}
		r.Close()
	}
	crash := h.Tests[2]
	for _, c := range h.calls {
		if c[0] != crash.CorpusDir || (c[1] != "0" && c[1] != "1") || c[2] != crash.FailDir || c[3] != "TestCrash" || !strings.Contains(c[4], "fatal error") {
			t.Errorf("RecoverCrash(%q)", c)
		}
	}
	for _, tt := range h.Tests {
		switch {
		case tt.Name == "TestPlain" && (tt.Execs != 0 || tt.Sched):
			t.Errorf("TestPlain: %d execs", tt.Execs)
		case (tt.Name == "TestGood" || tt.Name == "TestBuggy") && (tt.Execs == 0 || tt.Batches == 0 || tt.Dropped != ""):
			t.Errorf("%s: %d execs in %d batches, dropped %q", tt.Name, tt.Execs, tt.Batches, tt.Dropped)
		}
	}
}

// A test whose failure is saved and that fails on every schedule is left
// out, and the hunt says why.
func TestHunterFailsAlways(t *testing.T) {
	h := newFakeHunter(t, hunt.Settings{Budget: 4 * time.Second, Jobs: 2, Batch: 500 * time.Millisecond}, "TestAlways", "TestGood")
	if code := h.run(nil); code != ExitFailure {
		t.Fatalf("exit %d\n%s\n%s", code, &h.out, &h.errb)
	}
	always := h.Tests[0]
	if !strings.Contains(always.Dropped, "fails on 100% of its schedules") || always.Execs > 20000 {
		t.Errorf("TestAlways: %d execs, left out: %q", always.Execs, always.Dropped)
	}
	if good := h.Tests[1]; good.Execs < 5*always.Execs {
		t.Errorf("TestGood ran %d execs, TestAlways %d: the budget did not go to TestGood", good.Execs, always.Execs)
	}
	if !strings.Contains(h.errb.String(), "TestAlways fails on 100% of its schedules and its failure is saved: left out") {
		t.Errorf("stderr:\n%s", &h.errb)
	}
	if !strings.Contains(h.out.String(), "(it fails on 100% of its schedules and its failure is saved: fix it to hunt it further)") {
		t.Errorf("summary:\n%s", &h.out)
	}
}

// With -race, the workers' race detectors report every race, to a file:
// a hunt tells races apart by where they are, and each schedule that races
// fails.
func TestHunterRaceWorkers(t *testing.T) {
	h := newFakeHunter(t, hunt.Settings{Execs: 200, Jobs: 1, Batch: time.Second, Race: true, Verbose: true}, "TestGORACE")
	h.run(nil)
	m := regexp.MustCompile(`TestGORACE\| GORACE=(.*)`).FindStringSubmatch(h.errb.String())
	if m == nil {
		t.Fatalf("the worker printed no GORACE:\n%s", &h.errb)
	}
	for _, want := range []string{"suppress_equal_stacks=0", "suppress_equal_addresses=0", "log_path=/"} {
		if !strings.Contains(m[1], want) {
			t.Errorf("the worker's GORACE %q lacks %s", m[1], want)
		}
	}
}

// TestHunterCrashes: a test whose worker dies every time is given up.
func TestHunterCrashes(t *testing.T) {
	h := newFakeHunter(t, hunt.Settings{Budget: time.Minute, Jobs: 2, Batch: time.Second}, "TestCrash")
	h.Backoff = 10 * time.Millisecond
	begin := time.Now()
	if code := h.run(nil); code != ExitFailure {
		t.Fatalf("exit %d\n%s\n%s", code, &h.out, &h.errb)
	}
	if time.Since(begin) > 30*time.Second {
		t.Errorf("the hunt went on for %v after the only test was given up", time.Since(begin))
	}
	// The other worker may crash once more before it learns.
	if n := len(h.calls); n < 5 || n > 5+1 {
		t.Errorf("RecoverCrash called %d times, want %d or %d", n, 5, 5+1)
	}
	if want := fmt.Sprintf("%d times in all", len(h.calls)); !strings.Contains(h.out.String(), want) {
		t.Errorf("the summary lacks %q", want)
	}
	for _, want := range []string{"TestCrash: crash: fatal error: concurrent map writes", "(given up after 5 crashes in a row)",
		"the worker process exited: exit status 2"} {
		if !strings.Contains(h.out.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, &h.out)
		}
	}
	if !strings.Contains(h.errb.String(), "dstreplay hunt: TestCrash: given up after 5 crashes in a row") {
		t.Errorf("stderr:\n%s", &h.errb)
	}
}

func TestHunterExecsBudget(t *testing.T) {
	h := newFakeHunter(t, hunt.Settings{Execs: 1000, Jobs: 2, Batch: time.Second, Verbose: true}, "TestGood")
	if code := h.run(nil); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, &h.out, &h.errb)
	}
	if !strings.Contains(h.out.String(), "hunted 1 test for") || !strings.Contains(h.out.String(), ": 1000 execs") || !strings.Contains(h.out.String(), "no failures") {
		t.Errorf("summary:\n%s", &h.out)
	}
	// The budget was shared between the workers, and with one test there
	// are no batches: no -dst.time.
	if n := strings.Count(h.errb.String(), " -dst.iters=500 "); n != 2 || strings.Contains(h.errb.String(), "-dst.time") {
		t.Errorf("want two workers with -dst.iters=500 and no -dst.time:\n%s", &h.errb)
	}
	// -v shows the workers' other output.
	if !strings.Contains(h.errb.String(), "TestGood| other output") {
		t.Errorf("-v shows no other output:\n%s", &h.errb)
	}
}

// Every test has a first batch, however many share the budget: with ten
// tests, 4 s batches on two workers and an 8 s budget, six tests would
// never run (first batches are 800 ms now: room for a loaded machine's
// slow process starts) (regression: a hunt of examples/plain's ten tests for 10 s left one
// of its five bugs unfound, with 0 execs).
func TestHunterFirstBatches(t *testing.T) {
	var names []string
	for i := range 10 {
		names = append(names, fmt.Sprintf("TestGood%c", 'A'+i))
	}
	h := newFakeHunter(t, hunt.Settings{Budget: 8 * time.Second, Jobs: 2, Batch: 4 * time.Second}, names...)
	if code := h.run(nil); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, &h.out, &h.errb)
	}
	for _, test := range h.Tests {
		if test.Execs == 0 {
			t.Errorf("%s ran no execution:\n%s", test.Name, &h.out)
		}
	}
}

// A hunt whose tests reach no scheduling point hunted nothing, and says so
// with a non-zero exit: regression, a hunt of a package whose code needed
// the rewrite ran 24,402 executions, said "corpus 0, cover 0, no failures"
// and exited 0. One test without coverage beside others is a note.
func TestHunterWithoutCoverage(t *testing.T) {
	h := newFakeHunter(t, hunt.Settings{Execs: 200, Jobs: 1, Batch: time.Second}, "TestUncovered")
	if code := h.run(nil); code != ExitUsage {
		t.Errorf("exit %d, want %d\n%s\n%s", code, ExitUsage, &h.out, &h.errb)
	}
	if !strings.Contains(h.errb.String(), "dstreplay hunt: the coverage stayed at zero over 200 executions: no test reached a scheduling point") {
		t.Errorf("stderr:\n%s", &h.errb)
	}
	h = newFakeHunter(t, hunt.Settings{Budget: 3 * time.Second, Jobs: 2, Batch: 300 * time.Millisecond}, "TestUncovered", "TestGood")
	if code := h.run(nil); code != ExitOK {
		t.Errorf("exit %d, want %d\n%s\n%s", code, ExitOK, &h.out, &h.errb)
	}
	if !regexp.MustCompile(`TestUncovered .*\(no scheduling point reached\)`).MatchString(h.out.String()) || strings.Contains(h.errb.String(), "stayed at zero") {
		t.Errorf("summary:\n%s\nstderr:\n%s", &h.out, &h.errb)
	}
}

// The hunt's workers run in the environment the rewrite asks for (the
// marker reports and traces read).
func TestHunterWorkersEnv(t *testing.T) {
	pkg := &hunt.Package{Path: "example.com/fake", Dir: t.TempDir(), Bin: "/bin/true"}
	test := hunt.NewTest(pkg, "TestX", t.TempDir(), t.TempDir())
	h := hunt.NewHunter(hunt.Settings{Jobs: 1, Env: []string{"DST_REWRITTEN=-wrap"}}, []*hunt.Test{test}, io.Discard)
	if cmd := h.Command(test, nil); !slices.Contains(cmd.Env, "DST_REWRITTEN=-wrap") || len(cmd.Env) < 2 {
		t.Errorf("the worker's environment %q", cmd.Env)
	}
	if cmd := hunt.NewHunter(hunt.Settings{Jobs: 1}, []*hunt.Test{test}, io.Discard).Command(test, nil); cmd.Env != nil {
		t.Errorf("without Env, the worker's environment %q, want the hunt's", cmd.Env)
	}
}

func TestHunterInterrupt(t *testing.T) {
	h := newFakeHunter(t, hunt.Settings{Budget: time.Minute, Jobs: 2, Batch: time.Second}, "TestGood")
	sigs := make(chan os.Signal, 1)
	timer := time.AfterFunc(1200*time.Millisecond, func() { sigs <- os.Interrupt })
	defer timer.Stop()
	begin := time.Now()
	code := h.run(sigs)
	if code != ExitOK || time.Since(begin) > 20*time.Second {
		t.Fatalf("exit %d after %v\n%s\n%s", code, time.Since(begin), &h.out, &h.errb)
	}
	if !strings.Contains(h.out.String(), "interrupted (interrupt) after hunting 1 test") || strings.Contains(h.out.String(), "crash") {
		t.Errorf("summary:\n%s", &h.out)
	}
	if !strings.Contains(h.errb.String(), "stopping the workers") {
		t.Errorf("stderr:\n%s", &h.errb)
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

// TestHuntWrap hunts examples/plain's tests, ordinary go tests over plain
// Go, as they are written: each buggy twin's bug is found, and saved as a
// trace that dstreplay exec re-runs; no fixed twin fails. Regression: hunt
// built with plain go test -c, so that code needing the rewrite ran
// natively and a hunt found nothing.
func TestHuntWrap(t *testing.T) {
	if testing.Short() {
		t.Skip("rewrites, builds and hunts examples/plain")
	}
	t.Setenv("DST_DEMO", "1") // the buggy twins' tests skip themselves otherwise
	t.Chdir("../..")
	tmp := t.TempDir()
	var out, errb bytes.Buffer
	summary := filepath.Join(tmp, "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	t.Setenv("GITHUB_WORKSPACE", "")
	code := Main([]string{"hunt", "-wrap", "-github", "-time", "12s", "-j", "2",
		"-corpus", filepath.Join(tmp, "corpus"), "-dir", filepath.Join(tmp, "fail"), "./examples/plain"}, &out, &errb)
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitFailure, &out, &errb)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	// Each bug is found, and annotated at the line it is read at: the
	// failed check, the blocked lock, the panicking send, the leaked
	// goroutine's send.
	for test, want := range map[string][2]string{
		"TestBuggyWallet": {"test failed", "plain_test.go"}, "TestBuggyLedger": {"deadlock", "plain.go"},
		"TestBuggyQueue": {"panic", "plain.go"}, "TestBuggyFetch": {"leak", "plain.go"},
		"TestBuggyGather": {"test failed", "plain_test.go"},
	} {
		kind, file := want[0], want[1]
		if !regexp.MustCompile(`(?m)^` + test + `: ` + kind).MatchString(out.String()) {
			t.Errorf("no %s found in %s:\n%s", kind, test, &out)
		}
		annotation := `(?m)^::error file=examples/plain/` + regexp.QuoteMeta(file) + `,line=\d+,title=dstreplay hunt%3A ` + kind + ` in ` + test + `::`
		if !regexp.MustCompile(annotation).MatchString(out.String()) {
			t.Errorf("no annotation %s:\n%s", annotation, &out)
		}
		if !strings.Contains(string(md), "### "+kind+" in "+test+"\n") {
			t.Errorf("the job summary has no section for %s in %s:\n%s", kind, test, md)
		}
	}
	if m := regexp.MustCompile(`(?m)^TestFixed\w+: .*`).FindAllString(out.String(), -1); len(m) > 0 {
		t.Errorf("fixed twins failed: %q", m)
	}
	traces, _ := filepath.Glob(filepath.Join(tmp, "fail", "TestBuggyLedger", "*.trace"))
	if len(traces) == 0 {
		t.Fatalf("no trace saved for TestBuggyLedger:\n%s", &out)
	}
	out.Reset()
	errb.Reset()
	if code := Main([]string{"exec", traces[0]}, &out, &errb); code != ExitOK || !strings.Contains(errb.String(), "the re-run ended as recorded: deadlock") {
		t.Errorf("exec %s: exit %d\n%s\n%s", traces[0], code, &out, &errb)
	}
}

// Two hunts of the same test, on two "machines" (corpora), merge, and the
// next hunt resumes from both as one: its coverage starts from their union.
func TestHuntMergedCorpora(t *testing.T) {
	if testing.Short() {
		t.Skip("rewrites, builds and hunts examples/plain")
	}
	t.Chdir("../..")
	tmp := t.TempDir()
	hunt := func(corpus string, args ...string) (cover, corpusSize int, stderr string) {
		t.Helper()
		var out, errb bytes.Buffer
		argv := append([]string{"hunt", "-wrap", "-j", "1", "-run", "^TestFixedLedger$", "-corpus", corpus, "-dir", filepath.Join(tmp, "fail")}, args...)
		if code := Main(append(argv, "./examples/plain"), &out, &errb); code != ExitOK {
			t.Fatalf("hunt %q: exit %d\n%s\n%s", args, code, &out, &errb)
		}
		m := regexp.MustCompile(`(?m)^TestFixedLedger\s+\d+\s+(\d+)\s+(\d+)\s`).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("no row for the test:\n%s", &out)
		}
		corpusSize, _ = strconv.Atoi(m[1])
		cover, _ = strconv.Atoi(m[2])
		return cover, corpusSize, errb.String()
	}
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	coverA, _, _ := hunt(a, "-time", "2s")
	coverB, sizeB, _ := hunt(b, "-time", "2s")
	cover, _, stderr := hunt(a, "-merge", b, "-execs", "1")
	if !regexp.MustCompile(`merged \S+ into the corpus: \d+ inputs? added, \d+ already there, 0 not inputs`).MatchString(stderr) {
		t.Errorf("no merge line:\n%s", stderr)
	}
	if cover < max(coverA, coverB) || sizeB == 0 {
		t.Errorf("the merged hunt's coverage %d, the two hunts' %d and %d (b's corpus %d): want at least the larger", cover, coverA, coverB, sizeB)
	}
}

// The progress line names first what runs now, then what ran most, and
// last what was given up.
func TestOrderProgress(t *testing.T) {
	tests := []hunt.TestProgress{
		{Name: "Given", Execs: 900, Dropped: true},
		{Name: "Idle", Execs: 10},
		{Name: "Busy", Execs: 500},
		{Name: "RunningSmall", Execs: 5, Running: true},
		{Name: "RunningBig", Execs: 50, Running: true},
	}
	orderProgress(tests)
	var got []string
	for _, p := range tests {
		got = append(got, p.Name)
	}
	if want := "RunningBig RunningSmall Busy Idle Given"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

// TestHuntFaults: -faults turns the network's faults on in the workers (and
// a wrong list is refused before anything builds): examples/lease's split
// brain, which needs a late answer, is found.
func TestHuntFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("rewrites net/http, builds and hunts examples/lease")
	}
	t.Setenv("DST_DEMO", "1")
	t.Chdir("../..")
	var out, errb bytes.Buffer
	if code := Main([]string{"hunt", "-wrap", "-faults", "net.delay=2", "./examples/lease"}, &out, &errb); code != ExitUsage ||
		!strings.Contains(errb.String(), `-faults=net.delay=2: "net.delay=2": the probability "2" is not a number in [0, 1]`) {
		t.Errorf("a wrong -faults: exit %d, want %d and an error naming it\n%s", code, ExitUsage, &errb)
	}
	tmp := t.TempDir()
	out.Reset()
	errb.Reset()
	code := Main([]string{"hunt", "-wrap", "-faults", "net.delay=0.5:20ms", "-time", "20s", "-j", "2", "-run", "^TestBuggyOneLeader$",
		"-corpus", filepath.Join(tmp, "corpus"), "-dir", filepath.Join(tmp, "fail"), "./examples/lease"}, &out, &errb)
	if code != ExitFailure || !regexp.MustCompile(`(?m)^TestBuggyOneLeader: test failed`).MatchString(out.String()) {
		t.Fatalf("exit %d, want %d and the split brain found\nstdout:\n%s\nstderr:\n%s", code, ExitFailure, &out, &errb)
	}
}
