package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/hunt"
)

// realModules is the corpus of issue 25's proof: real, concurrency-heavy
// modules from the proxy, at pinned versions, whose own suites run unedited
// under dstreplay test -wrap. The language versions their go.mod files
// declare go from go1.12 to go1.26, and four have no go.mod at all.
var realModules = []struct{ path, version, kind string }{
	// pools, worker queues, errgroup-likes
	{"github.com/panjf2000/ants/v2", "v2.11.3", "pool"},
	{"github.com/alitto/pond", "v1.9.2", "pool"},
	{"github.com/gammazero/workerpool", "v1.1.3", "pool"},
	{"github.com/sourcegraph/conc", "v0.3.0", "errgroup-like"},
	{"golang.org/x/sync", "v0.25.0", "errgroup, semaphore, singleflight"},
	// caches
	{"github.com/patrickmn/go-cache", "v2.1.0+incompatible", "cache"},
	{"github.com/hashicorp/golang-lru/v2", "v2.0.7", "cache"},
	{"github.com/bluele/gcache", "v0.0.2", "cache"},
	{"github.com/orcaman/concurrent-map/v2", "v2.0.1", "concurrent map"},
	{"github.com/jellydator/ttlcache/v3", "v3.3.0", "cache"},
	{"github.com/golang/groupcache", "v0.0.0-20210331224755-41bb18bfe9da", "cache, singleflight"},
	{"github.com/allegro/bigcache/v3", "v3.1.0", "cache"},
	// rate limiters
	{"golang.org/x/time", "v0.5.0", "rate limiter"},
	{"go.uber.org/ratelimit", "v0.3.1", "rate limiter"},
	{"github.com/juju/ratelimit", "v1.0.2", "rate limiter"},
	// circuit breakers
	{"github.com/sony/gobreaker", "v1.0.0", "circuit breaker"},
	{"github.com/eapache/go-resiliency", "v1.7.0", "circuit breaker, retrier, semaphore"},
	// retry and backoff
	{"github.com/cenkalti/backoff/v4", "v4.3.0", "retry, backoff"},
	{"github.com/avast/retry-go/v4", "v4.6.1", "retry"},
	{"github.com/jpillora/backoff", "v1.0.0", "backoff"},
	{"github.com/sethvargo/go-retry", "v0.3.0", "retry"},
	// pub/sub
	{"github.com/cskr/pubsub", "v1.0.2", "pub/sub"},
	{"github.com/asaskevich/EventBus", "v0.0.0-20200907212545-49d423059eef", "pub/sub"},
	// schedulers
	{"github.com/robfig/cron/v3", "v3.0.1", "scheduler"},
	{"github.com/go-co-op/gocron", "v1.37.0", "scheduler"},
	// clocks
	{"github.com/benbjohnson/clock", "v1.3.5", "clock"},
	{"github.com/jonboulle/clockwork", "v0.4.0", "clock"},
}

// TestRealModules runs the corpus's suites, each as it ships, natively and
// under go tool dstreplay test -wrap <module>/... at DST_REAL_ITERS
// schedules per test (1000 by default), from a module of its own that
// requires the corpus module at its pinned version, and logs a table:
// builds, tests, passed, failed (each failure's test, kind and first line,
// and whether the test fails natively too), native and wrapped wall time
// (both measured on a second run, builds cached), and the wall time of the
// wrapped build, with the rewrite's cache empty and again with it full.
// The command is what a user runs: every dependency rewritten;
// DST_REAL_REWRITE adds a -rewrite flag (none: the dependencies native).
//
// It fails when a module does not build under -wrap. Test failures are
// reported, not failed on, unless DST_REAL_STRICT=1: then every test that
// fails, or does not run, under -wrap while it passes natively fails it.
//
// It fetches the modules from the proxy and takes long (83 minutes at 20
// schedules on a loaded 2-core machine, hours at 1000): it runs with
// DST_REAL=1, and wants go test's -timeout raised (-timeout 0). DST_REAL_ONLY is a comma-separated list of module
// paths of the corpus to run, or path@version of any other module;
// DST_REAL_TIMEOUT is each go test's -timeout (30m); DST_REAL_OUT names a
// file for the markdown table, written with a JSON file of every result
// beside it (<file>.json) and every run's output (<file>.d/).
func TestRealModules(t *testing.T) {
	if os.Getenv("DST_REAL") != "1" {
		t.Skip("set DST_REAL=1 to run the real modules' suites under dstreplay test -wrap (fetches them from the proxy; hours at 1000 schedules: -timeout 0)")
	}
	iters := 1000
	if s := os.Getenv("DST_REAL_ITERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("DST_REAL_ITERS=%q: want a positive number", s)
		}
		iters = n
	}
	timeout := "30m"
	if s := os.Getenv("DST_REAL_TIMEOUT"); s != "" {
		if _, err := time.ParseDuration(s); err != nil {
			t.Fatalf("DST_REAL_TIMEOUT=%q: %v", s, err)
		}
		timeout = s
	}
	strict := os.Getenv("DST_REAL_STRICT") == "1"
	rewriteFlag := os.Getenv("DST_REAL_REWRITE")
	out := os.Getenv("DST_REAL_OUT")

	type mod struct{ path, version, kind string }
	var mods []mod
	if only := os.Getenv("DST_REAL_ONLY"); only != "" {
		for _, p := range strings.Split(only, ",") {
			p = strings.TrimSpace(p)
			if path, version, ok := strings.Cut(p, "@"); ok {
				mods = append(mods, mod{path, version, "named in DST_REAL_ONLY"})
				continue
			}
			i := slices.IndexFunc(realModules, func(m struct{ path, version, kind string }) bool { return m.path == p })
			if i < 0 {
				t.Fatalf("DST_REAL_ONLY: %s is not in the corpus; name it as path@version", p)
			}
			mods = append(mods, mod(realModules[i]))
		}
	} else {
		for _, m := range realModules {
			mods = append(mods, mod(m))
		}
	}

	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	commit := "unknown"
	if b, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(b))
		if b, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(b)) > 0 {
			commit += fmt.Sprintf(" with %d changed file(s)", len(strings.Split(strings.TrimSpace(string(b)), "\n")))
		}
	}
	var rawDir string
	if out != "" {
		rawDir = out + ".d"
		if err := os.MkdirAll(rawDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	var results []*realResult
	// write puts the table and the results so far into DST_REAL_OUT, after
	// every module: a run stopped midway keeps what it measured.
	write := func() {
		if out == "" {
			return
		}
		if err := os.WriteFile(out, []byte(realTable(results, iters, commit)), 0o644); err != nil {
			t.Error(err)
		}
		b, _ := json.MarshalIndent(struct {
			Commit  string
			Iters   int
			Modules []*realResult
		}{commit, iters, results}, "", "  ")
		if err := os.WriteFile(out+".json", b, 0o644); err != nil {
			t.Error(err)
		}
	}
	for _, m := range mods {
		r := &realResult{Module: m.path, Pinned: m.version, Kind: m.kind}
		results = append(results, r)
		t.Run(m.path, func(t *testing.T) {
			measureRealModule(t, r, iters, timeout, rewriteFlag, rawDir)
			switch {
			case r.SetupError != "":
				t.Errorf("%s@%s: the corpus module could not be set up: %s", r.Module, r.Pinned, r.SetupError)
			case !r.NativeBuilds:
				t.Logf("%s@%s does not build natively either: %s", r.Module, r.Pinned, r.BuildError)
			case !r.Builds:
				t.Errorf("%s@%s does not build under dstreplay test -wrap: %s", r.Module, r.Pinned, r.BuildError)
			}
			if strict {
				for _, f := range r.Failures {
					if !f.FailsNatively {
						t.Errorf("%s: %s under -wrap (passes natively): %s", f.Test, f.Kind, f.Message)
					}
				}
				for _, n := range r.NotRun {
					t.Errorf("%s: did not run to its end under -wrap (passes natively)", n)
				}
			}
		})
		write()
	}

	table := realTable(results, iters, commit)
	t.Logf("dstreplay test -wrap at %d schedules per test (commit %s):\n%s", iters, commit, table)
}

// realResult is what TestRealModules measured of one module.
type realResult struct {
	Module, Pinned, Kind string
	Version              string // the version the build list selected
	GoVersion            string // the module's go directive, "" without one
	GoMod                bool   // whether the module has a go.mod
	SetupError           string

	NativeBuilds, Builds bool
	BuildError           string // the first line of the first build error

	Tests, Passed, Skipped int // top-level tests (and examples) under -wrap
	NativeTests            int
	NativeFailed           []string // tests that fail natively
	NotRerunnable          []string // tests that pass natively once but fail at -count=2
	Failures               []*realFailure
	NotRun                 []string // tests that ended natively but not under -wrap
	PackageFailures        []string // packages that failed with no failed test: a crash or a timeout, its last lines

	NativeDeps []string // the lines that say which dependencies the rewrite left native, and why

	NativeSeconds, WrappedSeconds float64
	ColdBuildSeconds              float64   // the wrapped build with the rewrite's cache empty (go's build cache is the shared one)
	WarmBuildSeconds              float64   // and again, the rewrite's cache full
	TestRatios                    []float64 // per test passing both ways: wrapped / native elapsed (each at least 10ms, go test's resolution)
}

// realFailure is one test that failed under -wrap.
type realFailure struct {
	Test          string // package.TestName
	Kind          string // the harness's failure kind (deadlock, leak, ...) or what ended it
	Message       string // the report's first line of substance
	FailsNatively bool
	FailsRerun    bool     // it passes natively once, but not at -count=2: its second run sees the first's state
	Report        []string // the first lines of its output
	// Shrunk: the report said "shrunk from B preemptions, ... to A
	// preemptions, ..."; ShrunkFrom and ShrunkTo are B and A.
	Shrunk               bool
	ShrunkFrom, ShrunkTo int
}

// measureRealModule sets up a module requiring r's module, and runs its
// suite natively and under dstreplay test -wrap, each once to build and
// once measured.
func measureRealModule(t *testing.T, r *realResult, iters int, timeout, rewriteFlag, rawDir string) {
	m := newOwnModule(t, map[string]string{"mine.go": "package mine\n"})
	// The rewrite's cache is the module's own (dstreplay/rewrite under
	// XDG_CACHE_HOME), so that what an earlier run, another module or
	// another build of the tool left there plays no part; go's build cache
	// stays the shared one.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	m.env = append(m.env, "XDG_CACHE_HOME="+filepath.Join(t.TempDir(), "cache"), "GOCACHE="+strings.TrimSpace(string(gocache)))
	dur, err := time.ParseDuration(timeout)
	if err != nil {
		t.Fatal(err)
	}
	raw := func(name string, stdout, stderr []byte) {
		if rawDir == "" {
			return
		}
		base := filepath.Join(rawDir, strings.NewReplacer("/", "_", "@", "_").Replace(r.Module)+"."+name)
		os.WriteFile(base+".out", stdout, 0o644)
		os.WriteFile(base+".err", stderr, 0o644)
	}
	// run runs the go command in the module, bounded by the tests' timeout
	// and some, and returns its stdout, its stderr and its wall time.
	run := func(args ...string) ([]byte, []byte, time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), dur+10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir, cmd.Env = m.dir, m.env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		return stdout.Bytes(), stderr.Bytes(), time.Since(start), err
	}
	pattern := r.Module + "/..."

	if _, stderr, _, err := run("get", "-t", pattern+"@"+r.Pinned); err != nil {
		r.SetupError = "go get -t " + pattern + "@" + r.Pinned + ": " + firstLine(string(stderr), err)
		return
	}
	stdout, stderr, _, err := run("list", "-m", "-json", r.Module)
	if err != nil {
		r.SetupError = "go list -m: " + firstLine(string(stderr), err)
		return
	}
	var info struct{ Version, GoVersion, GoMod, Dir string }
	if err := json.Unmarshal(stdout, &info); err != nil {
		r.SetupError = "go list -m: " + err.Error()
		return
	}
	r.Version, r.GoVersion = info.Version, info.GoVersion
	_, err = os.Stat(filepath.Join(info.Dir, "go.mod"))
	r.GoMod = err == nil

	// Natively: once to build, once measured. Both ways without go vet,
	// whose checks of today's Go some old suites fail (an example named
	// after a function that is gone).
	stdout, stderr, _, err = run("test", "-count=1", "-json", "-vet=off", "-run=^$", pattern)
	raw("native-build", stdout, stderr)
	if b := parseGoTest(stdout, stderr); err != nil && len(b.buildErrors) > 0 {
		r.BuildError = "natively: " + b.buildErrors[0]
		return
	}
	r.NativeBuilds = true
	stdout, stderr, d, _ := run("test", "-count=1", "-json", "-vet=off", "-timeout="+timeout, pattern)
	raw("native", stdout, stderr)
	native := parseGoTest(stdout, stderr)
	r.NativeSeconds = d.Seconds()
	// Under -wrap a test's body runs once per schedule in one process: a
	// test that fails natively when run twice cannot pass there.
	// Its own bound: a suite that does not run twice may hang the second
	// time (groupcache's peers' test processes do).
	twiceTimeout := min(dur, max(2*time.Minute, 4*d))
	stdout, stderr, _, _ = run("test", "-count=2", "-json", "-vet=off", "-timeout="+twiceTimeout.String(), pattern)
	raw("native-count2", stdout, stderr)
	twice := parseGoTest(stdout, stderr)

	// Under -wrap: once to rewrite and build, once more to time the build
	// from the rewrite's cache, once measured.
	wrap := []string{"tool", "dstreplay", "test", "-wrap"}
	if rewriteFlag != "" {
		wrap = append(wrap, "-rewrite="+rewriteFlag)
	}
	wrap = append(wrap, pattern, "-count=1", "-json", "-vet=off")
	stdout, stderr, d, err = run(append(wrap, "-run=^$")...)
	raw("wrapped-build", stdout, stderr)
	r.ColdBuildSeconds = d.Seconds()
	for _, line := range strings.Split(string(stderr), "\n") {
		if strings.HasPrefix(line, "dstreplay: ") && strings.Contains(line, " is not rewritten and runs natively: ") {
			r.NativeDeps = append(r.NativeDeps, line)
		}
	}
	if b := parseGoTest(stdout, stderr); err != nil {
		switch {
		case len(b.buildErrors) > 0:
			r.BuildError = b.buildErrors[0]
		default:
			r.BuildError = firstLine(string(stderr), err)
		}
		return
	}
	r.Builds = true
	if _, _, d, err := run(append(wrap, "-run=^$")...); err == nil {
		r.WarmBuildSeconds = d.Seconds()
	}
	traces := filepath.Join(t.TempDir(), "traces") // saved failures of this run only
	stdout, stderr, d, _ = run(append(wrap, "-timeout="+timeout, "-dst.iters="+strconv.Itoa(iters), "-dst.dir="+traces)...)
	raw("wrapped", stdout, stderr)
	wrapped := parseGoTest(stdout, stderr)
	r.WrappedSeconds = d.Seconds()

	r.NativeTests = len(native.order)
	for _, k := range native.order {
		switch {
		case native.tests[k].action == "fail":
			r.NativeFailed = append(r.NativeFailed, k)
		case twice.failed[k]:
			r.NotRerunnable = append(r.NotRerunnable, k)
		}
	}
	r.Tests = len(wrapped.order)
	for _, k := range wrapped.order {
		w := wrapped.tests[k]
		n := native.tests[k]
		failsNatively := n != nil && n.action == "fail"
		switch w.action {
		case "pass":
			r.Passed++
			if n != nil && n.action == "pass" {
				r.TestRatios = append(r.TestRatios, max(w.elapsed, 0.01)/max(n.elapsed, 0.01))
			}
		case "skip":
			r.Skipped++
		case "fail":
			kind, msg := failureSummary(w.output)
			f := &realFailure{Test: k, Kind: kind, Message: msg,
				FailsNatively: failsNatively, FailsRerun: !failsNatively && twice.failed[k], Report: firstLines(w.output, 40)}
			f.ShrunkFrom, f.ShrunkTo, f.Shrunk = shrinkOf(w.output)
			r.Failures = append(r.Failures, f)
		}
	}
	for _, k := range native.order {
		if w := wrapped.tests[k]; w == nil && native.tests[k].action != "fail" {
			r.NotRun = append(r.NotRun, k)
		}
	}
	for _, pkg := range wrapped.pkgOrder {
		if p := wrapped.pkgs[pkg]; p.action == "fail" && p.failedTests == 0 {
			r.PackageFailures = append(r.PackageFailures, pkg+": "+strings.Join(lastLines(p.output, 3), " | "))
		}
	}
	sort.Float64s(r.TestRatios)
}

// goTestRun is go test -json's output, read back: the top-level tests, in
// the order they ended, and the packages.
type goTestRun struct {
	tests       map[string]*goTestResult // by package.Test, its last run
	order       []string
	failed      map[string]bool // any of its runs failed
	pkgs        map[string]*goTestResult
	pkgOrder    []string
	buildErrors []string
}

type goTestResult struct {
	action      string // pass, fail or skip
	elapsed     float64
	output      []string
	failedTests int
}

// maxOutput bounds the lines of output kept per test.
const maxOutput = 400

func parseGoTest(stdout, stderr []byte) *goTestRun {
	g := &goTestRun{tests: map[string]*goTestResult{}, pkgs: map[string]*goTestResult{}, failed: map[string]bool{}}
	running := map[string]*goTestResult{}
	pkg := func(name string) *goTestResult {
		p := g.pkgs[name]
		if p == nil {
			p = &goTestResult{}
			g.pkgs[name] = p
			g.pkgOrder = append(g.pkgOrder, name)
		}
		return p
	}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Action, Package, Test, Output, ImportPath, FailedBuild string
			Elapsed                                                float64
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		line := strings.TrimRight(e.Output, "\n")
		switch {
		case e.Action == "build-output":
			if isBuildError(line) {
				g.buildErrors = append(g.buildErrors, e.ImportPath+": "+strings.TrimSpace(line))
			}
		case e.Test == "":
			if e.Package == "" {
				continue
			}
			p := pkg(e.Package)
			switch e.Action {
			case "output":
				if len(p.output) < maxOutput {
					p.output = append(p.output, line)
				}
			case "pass", "fail", "skip":
				p.action, p.elapsed = e.Action, e.Elapsed
			}
		default:
			top, _, _ := strings.Cut(e.Test, "/")
			key := e.Package + "." + top
			tr := running[key]
			if tr == nil {
				tr = &goTestResult{}
				running[key] = tr
			}
			switch {
			case e.Action == "output":
				if len(tr.output) < maxOutput {
					tr.output = append(tr.output, line)
				}
			case e.Test == top && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
				tr.action, tr.elapsed = e.Action, e.Elapsed
				if g.tests[key] == nil {
					g.order = append(g.order, key)
				}
				g.tests[key] = tr
				delete(running, key)
				if e.Action == "fail" {
					pkg(e.Package).failedTests++
					g.failed[key] = true
				}
			}
		}
	}
	for _, line := range strings.Split(string(stderr), "\n") {
		if strings.HasPrefix(line, "dstreplay test: ") && !strings.Contains(line, "file(s) rewritten") && !strings.Contains(line, "data races are not checked") {
			g.buildErrors = append(g.buildErrors, strings.TrimSpace(line))
		}
	}
	return g
}

// isBuildError tells a compiler's or the go command's error line from the
// "# package" headers around them.
func isBuildError(line string) bool {
	s := strings.TrimSpace(line)
	return s != "" && !strings.HasPrefix(s, "#") && !strings.HasPrefix(s, "FAIL")
}

var (
	schedKind   = regexp.MustCompile(`sched: (.+?) in schedule \d+`)
	traceLine   = regexp.MustCompile(`^\S+\.(go|s):\d+$`)
	goroutineAt = regexp.MustCompile(`^goroutine \d+[^:]*: \S+\.go:\d+:$`)
)

// failureSummary is the kind of a failed test's report and its first line
// of substance: the assertion's error, a panic, a report's first line.
func failureSummary(output []string) (kind, msg string) {
	from := 0
	for i, l := range output {
		if m := schedKind.FindStringSubmatch(l); m != nil {
			kind, from = m[1], i+1
			break
		}
	}
	if kind == "" {
		kind = "failed (no scheduler report)"
		for _, l := range output {
			switch {
			case strings.Contains(l, "panic: test timed out"):
				kind = "timeout"
			case strings.HasPrefix(strings.TrimSpace(l), "panic:") && kind != "timeout":
				kind = "panic outside a run"
			}
		}
	}
	for i := from; i < len(output); i++ {
		s := strings.TrimSpace(output[i])
		switch {
		case s == "", strings.HasPrefix(s, "shrunk from"), strings.HasPrefix(s, "note:"),
			strings.HasPrefix(s, "=== "), strings.HasPrefix(s, "--- "), strings.HasPrefix(s, "Error Trace:"),
			traceLine.MatchString(s):
			continue
		}
		if _, after, ok := strings.Cut(s, "Error:"); ok {
			s = strings.TrimSpace(after)
			for j := i + 1; j < len(output) && j <= i+3; j++ {
				n := strings.TrimSpace(output[j])
				if n == "" || strings.HasPrefix(n, "Test:") || strings.HasPrefix(n, "Diff:") || strings.HasPrefix(n, "Messages:") {
					break
				}
				s += " " + n
			}
		}
		// "goroutine 1: file.go:12:" with the message on the next line.
		if goroutineAt.MatchString(s) {
			continue
		}
		// "found unexpected goroutines:" and the first line of the list;
		// but testify's "Error Trace:" comes before its "Error:".
		if strings.HasSuffix(s, ":") && i+1 < len(output) {
			next := strings.TrimSpace(output[i+1])
			if strings.HasPrefix(next, "Error Trace:") {
				continue
			}
			s += " " + next
		}
		msg = s
		break
	}
	if len(msg) > 240 {
		msg = msg[:240] + "…"
	}
	return kind, msg
}

var shrunkLine = regexp.MustCompile(`shrunk from (\d+) preemptions, .* to (\d+) preemptions, `)

// shrinkOf is the preemptions before and after shrinking that a failure's
// report states, if it states them.
func shrinkOf(output []string) (from, to int, ok bool) {
	for _, l := range output {
		if m := shrunkLine.FindStringSubmatch(l); m != nil {
			from, _ = strconv.Atoi(m[1])
			to, _ = strconv.Atoi(m[2])
			return from, to, true
		}
	}
	return 0, 0, false
}

// shrinkSummary is what shrinking did to the failures that state it: how
// many, the median preemptions before and after, and the median ratio.
func shrinkSummary(results []*realResult) string {
	var before, after, ratios []float64
	unshrunk := 0
	for _, r := range results {
		for _, f := range r.Failures {
			if !f.Shrunk {
				unshrunk++
				continue
			}
			before, after = append(before, float64(f.ShrunkFrom)), append(after, float64(f.ShrunkTo))
			if f.ShrunkFrom > 0 {
				ratios = append(ratios, float64(f.ShrunkTo)/float64(f.ShrunkFrom))
			}
		}
	}
	if len(before) == 0 {
		return fmt.Sprintf("No failure states a shrink (%d failures).\n", unshrunk)
	}
	median := func(v []float64) float64 {
		sort.Float64s(v)
		if n := len(v); n%2 == 0 {
			return (v[n/2-1] + v[n/2]) / 2
		}
		return v[len(v)/2]
	}
	line := fmt.Sprintf("Shrinking: %d failures state it (%d do not: found with no preemption, or not shrunk); preemptions, median, %.1f before and %.1f after",
		len(before), unshrunk, median(before), median(after))
	if len(ratios) > 0 {
		line += fmt.Sprintf("; median after/before %.2f over the %d found with preemptions", median(ratios), len(ratios))
	}
	return line + ".\n"
}

func firstLine(s string, err error) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "go: downloading") && !strings.Contains(l, "file(s) rewritten") {
			return l
		}
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "timed out"
		}
		return err.Error()
	}
	return ""
}

func firstLines(lines []string, n int) []string { return lines[:min(n, len(lines))] }
func lastLines(lines []string, n int) []string  { return lines[max(0, len(lines)-n):] }

// realTable is the results as markdown: a row per module, then every
// failure.
func realTable(results []*realResult, iters int, commit string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "dstreplay test -wrap, %d schedules per test, commit %s\n\n", iters, commit)
	b.WriteString("| module@version | go | builds | tests | passed | failed | skipped | not run | fail natively | fail at -count=2 | native | -wrap | median test ratio | -wrap build, cold / warm |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	var total, passed, failed, built int
	for _, r := range results {
		gover := r.GoVersion
		if !r.GoMod {
			gover = "(no go.mod)"
		}
		version := r.Pinned
		if r.Version != "" && r.Version != r.Pinned {
			version += " (selected " + r.Version + ")"
		}
		builds := "yes"
		switch {
		case r.SetupError != "":
			builds = "setup failed: " + r.SetupError
		case !r.NativeBuilds:
			builds = "no, natively either: " + r.BuildError
		case !r.Builds:
			builds = "**no**: " + r.BuildError
		default:
			built++
		}
		builds = strings.ReplaceAll(builds, "|", `\|`)
		ratio := "-"
		if n := len(r.TestRatios); n > 0 {
			ratio = fmt.Sprintf("%.1fx", r.TestRatios[n/2])
		}
		total, passed, failed = total+r.Tests, passed+r.Passed, failed+len(r.Failures)
		fmt.Fprintf(&b, "| %s@%s | %s | %s | %d | %d | %d | %d | %d | %d | %d | %.1fs | %.1fs | %s | %.1fs / %.1fs |\n",
			r.Module, version, gover, builds, r.Tests, r.Passed, len(r.Failures), r.Skipped, len(r.NotRun), len(r.NativeFailed), len(r.NotRerunnable),
			r.NativeSeconds, r.WrappedSeconds, ratio, r.ColdBuildSeconds, r.WarmBuildSeconds)
	}
	fmt.Fprintf(&b, "\n%d/%d modules build under -wrap; %d tests: %d passed, %d failed.\n", built, len(results), total, passed, failed)
	b.WriteString(shrinkSummary(results))
	var any bool
	for _, r := range results {
		for _, f := range r.Failures {
			if !any {
				b.WriteString("\nFailures under -wrap (test: kind: first line):\n\n")
				any = true
			}
			natively := ""
			switch {
			case f.FailsNatively:
				natively = " (fails natively too)"
			case f.FailsRerun:
				natively = " (fails natively at -count=2)"
			}
			fmt.Fprintf(&b, "- %s: %s%s: %s\n", f.Test, f.Kind, natively, f.Message)
		}
		for _, n := range r.NotRun {
			fmt.Fprintf(&b, "- %s: did not end under -wrap (ran natively)\n", n)
		}
		for _, p := range r.PackageFailures {
			fmt.Fprintf(&b, "- package %s\n", p)
		}
	}
	for _, r := range results {
		for _, n := range r.NativeDeps {
			fmt.Fprintf(&b, "- %s: %s\n", r.Module, strings.TrimPrefix(n, "dstreplay: "))
		}
	}
	return b.String()
}

// TestShrinkOf: the corpus reads the preemptions before and after
// shrinking from a report's line as schedtest writes it (hunt.Size's
// String), and summarizes them.
func TestShrinkOf(t *testing.T) {
	line := fmt.Sprintf("shrunk from %v to %v (%d runs)",
		hunt.Size{Preemptions: 4565, Steps: 90000, Goroutines: 1001, Values: 5000},
		hunt.Size{Preemptions: 3, Steps: 700, Goroutines: 12, Values: 40}, 812)
	from, to, ok := shrinkOf([]string{"sched: deadlock in schedule 1 of TestX (...)", line, ""})
	if !ok || from != 4565 || to != 3 {
		t.Fatalf("shrinkOf(%q) = %d, %d, %v; want 4565, 3, true", line, from, to, ok)
	}
	if _, _, ok := shrinkOf([]string{"sched: leak in schedule 1 of TestX (...)"}); ok {
		t.Fatal("shrinkOf found a shrink in a report without one")
	}
	results := []*realResult{{Failures: []*realFailure{
		{Shrunk: true, ShrunkFrom: 10, ShrunkTo: 1},
		{Shrunk: true, ShrunkFrom: 20, ShrunkTo: 2},
		{Shrunk: true, ShrunkFrom: 40, ShrunkTo: 40},
		{},
	}}}
	want := "Shrinking: 3 failures state it (1 do not: found with no preemption, or not shrunk); preemptions, median, 20.0 before and 2.0 after; median after/before 0.10 over the 3 found with preemptions.\n"
	if got := shrinkSummary(results); got != want {
		t.Fatalf("shrinkSummary:\n got %q\nwant %q", got, want)
	}
}
