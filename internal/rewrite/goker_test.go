package rewrite_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// gokerHarness runs every kernel the package registers under the
// scheduler with the default options, each unmodified but rewritten, for
// up to 1000 schedules, and prints one JSON line per kernel: whether a
// schedule failed, which, how, and the blocked goroutines of the report
// (function, wait reason in the words of Go's goroutine profiles).
const gokerHarness = `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/sched/schedtest"
)

var (
	blockedRE = regexp.MustCompile(` + "`" + `^goroutine \d+(?: \(test body\))?: blocked in (.+?)(?:, held by goroutine \d+)?$` + "`" + `)
	atRE      = regexp.MustCompile(` + "`" + `(?m)^\s+at \S+ \((.+)\)$` + "`" + `)
	runsRE    = regexp.MustCompile(` + "`" + `, runs (\S+)$` + "`" + `)
)

// blocked lists a report's blocked goroutines as Go's goroutine leak
// profile test names them: the function the goroutine runs, and the wait
// reason.
func blocked(report string) []string {
	var out []string
	for _, g := range strings.Split(report, "\n  goroutine ")[1:] {
		lines := strings.Split("goroutine "+g, "\n")
		m := blockedRE.FindStringSubmatch(lines[0])
		if m == nil {
			continue
		}
		fn := ""
		if a := atRE.FindStringSubmatch(g); a != nil {
			fn = a[1]
		}
		for _, l := range lines {
			if r := runsRE.FindStringSubmatch(strings.TrimSpace(l)); r != nil {
				fn = r[1]
			}
		}
		out = append(out, fn+"(...) ["+reason(m[1])+"]")
	}
	return out
}

func reason(what string) string {
	if strings.HasPrefix(what, "select") {
		return "select"
	}
	if !strings.Contains(what, ".") {
		return strings.ToLower(what) // Sleep
	}
	obj, op := what, ""
	if i := strings.LastIndexByte(what, '.'); i >= 0 {
		obj, op = what[:i], what[i+1:]
	}
	nilChan := strings.HasPrefix(obj, "nil")
	switch {
	case op == "Send" && nilChan:
		return "chan send (nil chan)"
	case op == "Recv" && nilChan:
		return "chan receive (nil chan)"
	case op == "Send":
		return "chan send"
	case op == "Recv":
		return "chan receive"
	}
	if i := strings.IndexAny(obj, "#@ "); i >= 0 {
		obj = obj[:i]
	}
	return "sync." + obj + "." + op
}

// clockFaults is what a kernel that the default options miss is explored
// with a second time: time passes while goroutines work (the clock jumps
// to the next timer at one scheduling point in a thousand, while a timer
// is pending), as the kernels that race a timer against work need.
var clockFaults = schedtest.ClockFaults{BusyProbability: 0.001}

func TestGoKer(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = null // the kernels print their leak profiles
	defer func() { os.Stdout = stdout }()
	var names []string
	for name := range cmds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if filter := os.Getenv("GOKER_RUN"); filter != "" && !regexp.MustCompile(filter).MatchString(name) {
			continue
		}
		f := cmds[name]
		start := time.Now()
		// The default options, as a user's schedtest.Test gets them, but
		// for a fixed seed (the table is reproducible) and a time budget
		// (the run as a whole stays within its timeout).
		opts := schedtest.Options{Iterations: 1000, Time: 20 * time.Second, Seed: 1}
		res, err := schedtest.Explore(opts, func(*schedtest.T) { f() })
		if err != nil {
			t.Fatal(err)
		}
		line := map[string]any{"name": name, "schedules": res.Schedule, "seconds": time.Since(start).Seconds()}
		if res.Failure != nil {
			line["kind"] = string(res.Failure.Kind)
			line["schedule"] = res.Schedule
			b := blocked(res.Failure.Error())
			line["blocked"] = b
			if len(b) == 0 || os.Getenv("GOKER_REPORT") != "" {
				line["report"] = res.Failure.Error()
			}
		}
		if k := line["kind"]; k != "leak" && k != "deadlock" {
			// Missed with the defaults: again with clock faults.
			opts.ClockFaults = clockFaults
			res, err := schedtest.Explore(opts, func(*schedtest.T) { f() })
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure != nil {
				line["faults_kind"] = string(res.Failure.Kind)
				line["faults_schedule"] = res.Schedule
			}
		}
		b, _ := json.Marshal(line)
		fmt.Fprintf(stdout, "GOKER %s\n", b)
	}
}
`

// gokerResult is one kernel's line.
type gokerResult struct {
	Name      string   `json:"name"`
	Kind      string   `json:"kind"`
	Schedule  int      `json:"schedule"`
	Schedules int      `json:"schedules"`
	Blocked   []string `json:"blocked"`
	Report    string   `json:"report"`
	// How a second exploration with clock faults failed, when the
	// defaults missed the bug.
	FaultsKind     string `json:"faults_kind"`
	FaultsSchedule int    `json:"faults_schedule"`
}

// groundTruth reads, from Go's own test, the goroutines each GoKer kernel is
// expected to leave blocked: regular expressions over profile lines.
func groundTruth(t *testing.T, goroot string) map[string][]*regexp.Regexp {
	path := filepath.Join(goroot, "src", "runtime", "goroutineleakprofile_test.go")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("reading the ground truth: %v", err)
	}
	truth := map[string][]*regexp.Regexp{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		id, ok := call.Fun.(*ast.Ident)
		if !ok || (id.Name != "makeTest" && id.Name != "makeFlakyTest") || len(call.Args) == 0 {
			return true
		}
		var strs []string
		for _, a := range call.Args {
			lit, ok := a.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			strs = append(strs, s)
		}
		var res []*regexp.Regexp
		for _, s := range strs[1:] {
			re, err := regexp.Compile(s)
			if err != nil {
				t.Fatalf("ground truth %s: %v", strs[0], err)
			}
			res = append(res, re)
		}
		truth[strs[0]] = res
		return true
	})
	return truth
}

// gokerKernels is the GoKer kernels that ship with Go whose file names
// match pattern, and the GOROOT they are in; the test is skipped if there
// are none.
func gokerKernels(t *testing.T, pattern string) (kernels []string, goroot string) {
	t.Helper()
	goroot = runtime.GOROOT()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		goroot = strings.TrimSpace(string(out))
	}
	src := filepath.Join(goroot, "src", "runtime", "testdata", "testgoroutineleakprofile", "goker")
	kernels, _ = filepath.Glob(filepath.Join(src, pattern))
	if len(kernels) == 0 {
		t.Skipf("no GoKer kernels %s in %s (they ship with Go 1.26 and later)", pattern, src)
	}
	return kernels, goroot
}

// gokerEnv is the environment to build kernels in: they write Go's
// goroutine leak profile, an experiment in Go 1.26.
func gokerEnv() []string {
	return append(os.Environ(), "GOFLAGS=-mod=mod", "GOEXPERIMENT=goroutineleakprofile")
}

// gokerModule makes a module whose package goker holds harness and the
// kernels, which stay where Go ships them: the package's files are links
// to them.
func gokerModule(t *testing.T, env []string, harness string, kernels []string) string {
	t.Helper()
	dir := tempModule(t, env, map[string]string{"goker/dst_goker_test.go": harness})
	for _, k := range kernels {
		if err := os.Symlink(k, filepath.Join(dir, "goker", filepath.Base(k))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A GoKer kernel called unmodified (not rewritten) inside schedtest.Test:
// etcd 6857 starts 101 plain goroutines, each of which starts a node's
// run, Status and Stop and returns at once; Stop often ends run before
// Status sends, and Status then blocks forever on a native channel. Those
// goroutines are reported as escapes on the first schedule, where they
// wait and which go statement started them, though the goroutine that
// started them has returned.
// Regression (found by a user, fixed): it passed 3 schedules of 3 with no
// report.
func TestGoKerUnrewrittenEscape(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds the standard library with GOEXPERIMENT=goroutineleakprofile; not under -race or -short")
	}
	kernels, _ := gokerKernels(t, "etcd6857.go")
	env := gokerEnv()
	dir := gokerModule(t, env, escapeHarness, kernels)
	cmd := exec.Command("go", "test", "-count=1", "-run=^TestEtcd6857$", "./goker", "-dst.iters=3", "-dst.dir=off")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the test passed; want an escape reported:\n%s", out)
	}
	for _, want := range []string{
		"escape in schedule 1 of TestEtcd6857",
		"started by a goroutine that a plain go statement of the run started, and that has since returned",
		"goroutines alike, this one and goroutines", // a hundred, shown once
		"[chan send",
		"(*node_etcd6857).Status(",
		"created by example.com/m/goker.Etcd6857.func",
		"etcd6857.go:",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "labels:") {
		t.Errorf("the report shows goroutine labels:\n%s", out)
	}
}

// escapeHarness calls etcd 6857 as it is, in a schedtest.Test body; what
// the kernel writes to standard output is dropped.
const escapeHarness = `package main

import (
	"os"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

var kernels = map[string]func(){}

func register(name string, f func()) { kernels[name] = f }

func TestEtcd6857(t *testing.T) {
	stdout := os.Stdout
	os.Stdout, _ = os.Open(os.DevNull)
	defer func() { os.Stdout = stdout }()
	schedtest.Test(t, func(t *schedtest.T) { kernels["Etcd6857"]() })
}
`

// TestGoKer runs the blocking bug kernels of GoBench that ship with Go
// (MIT licensed), read in place from GOROOT, each unmodified through the
// rewrite under the scheduler with the default options, and checks that
// every one is found within 1000 schedules, but for the known misses and
// the kernels that need clock faults (clockKernels), which must be found
// by a second exploration with them. With DST_GOKER_TABLE=file it writes
// the table of results (BENCHMARKS.md shows it).
func TestGoKer(t *testing.T) {
	if testing.Short() || raceEnabled || os.Getenv("DST_GOKER") == "" {
		t.Skip("runs for about 15 minutes: DST_GOKER=1 go test -timeout 60m -run TestGoKer ./internal/rewrite (.ci/run does, without -race)")
	}
	kernels, goroot := gokerKernels(t, "*.go")
	env := gokerEnv()
	dir := gokerModule(t, env, gokerHarness, kernels)
	overlay, n, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"./goker"}, Env: env, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("rewriting the kernels: %v", err)
	}
	t.Logf("%d files rewritten", n)
	cmd := exec.Command("go", "test", "-v", "-overlay="+overlay, "-count=1", "-run=^TestGoKer$", "-timeout=60m", "./goker")
	cmd.Dir, cmd.Env = dir, append(env, "GOKER_RUN="+os.Getenv("GOKER_RUN"))
	out, err := cmd.CombinedOutput()
	var results []gokerResult
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "GOKER ")
		if !ok {
			continue
		}
		var r gokerResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		results = append(results, r)
	}
	if err != nil || len(results) == 0 {
		t.Fatalf("go test of the kernels: %v\n%s", err, out)
	}
	truth := groundTruth(t, goroot)
	table, found, firsts := gokerTable(results, truth)
	t.Logf("\n%s", table)
	if path := os.Getenv("DST_GOKER_TABLE"); path != "" {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv("GOKER_RUN") == "" && len(results) != len(kernels)-1 { // main.go registers none
		t.Errorf("%d kernels ran, %d files", len(results), len(kernels)-1)
	}
	withFaults := 0
	for _, r := range results {
		why, known := knownMisses[r.Name]
		clock, needsClock := clockKernels[r.Name]
		if !isFound(r) && foundWithFaults(r) {
			withFaults++
		}
		switch {
		case !isFound(r) && needsClock && foundWithFaults(r):
			t.Logf("%s: found only with clock faults (%s)", r.Name, clock)
		case !isFound(r) && !known:
			t.Errorf("%s: not found in %d schedules (%s; with clock faults: %s)\n%s", r.Name, r.Schedules, orNone(r.Kind), orNone(r.FaultsKind), firstLines(r.Report, 30))
		case isFound(r) && known:
			t.Logf("%s is found now (listed as missed: %s): take it off knownMisses", r.Name, why)
		case isFound(r) && needsClock:
			t.Logf("%s is found with the default options now (listed as needing clock faults: %s): take it off clockKernels", r.Name, clock)
		}
	}
	sort.Ints(firsts)
	if len(firsts) > 0 {
		t.Logf("found %d of %d with the default options, %d more with clock faults; median first detection: schedule %d",
			found, len(results), withFaults, firsts[len(firsts)/2])
	}
}

// clockKernels are the kernels whose bug the default options do not reach
// because it races a timer against work: the clock moves while goroutines
// work only when every runnable goroutine polls (time passes while
// goroutines spin) or with clock faults (ClockFaults.BusyProbability,
// which these are found with). Jumping to the next timer while goroutines
// work is not a default: it makes any timeout fire during work, however
// generous, which in real suites is a false red.
var clockKernels = map[string]string{
	"Grpc3017":        "a 1ns AfterFunc must fire between RemoveSubConn and NewSubConn, which its 100 copies run 10,000 times each without blocking",
	"Istio18454":      "a 1ns timer must fire, and be received, before the event loop is reset",
	"Kubernetes11298": "its notifiers' timers must fire while the other goroutines run",
}

// foundWithFaults reports whether a kernel's bug was found by the second
// exploration, with clock faults.
func foundWithFaults(r gokerResult) bool { return r.FaultsKind == "leak" || r.FaultsKind == "deadlock" }

// knownMisses are the kernels the scheduler does not find yet, and why.
var knownMisses = map[string]string{
	"Kubernetes58107": "its 1,000 copies need 3×10^8 scheduling points before nothing can run: every schedule ends at the step bound (2×10^6 by default; it keeps making progress) while the leaked workers wait; Go's leak profile proves them leaked with the garbage collector",
	"Moby27782":       "no leak is reachable as it ships: Remove runs only after the watcher is closed, which happens under the lock readLogs holds until it returns (Go lists its leaks as flaky; 100 native runs with Go's leak profile: 0 leaks)",
}

func orNone(s string) string {
	if s == "" {
		return "no failure"
	}
	return s
}

// isFound reports whether a kernel's bug was found: the run ended with
// goroutines blocked forever.
func isFound(r gokerResult) bool { return r.Kind == "leak" || r.Kind == "deadlock" }

// gokerTable formats the results as a Markdown table, and counts.
func gokerTable(results []gokerResult, truth map[string][]*regexp.Regexp) (string, int, []int) {
	var b strings.Builder
	b.WriteString("| kernel | found | first failing schedule | how | blocked goroutines vs Go's ground truth |\n")
	b.WriteString("| --- | --- | --- | --- | --- |\n")
	found := 0
	var firsts []int
	for _, r := range results {
		if !isFound(r) && foundWithFaults(r) {
			fmt.Fprintf(&b, "| %s | with clock faults | %d | %s (%s with the defaults) | - |\n", r.Name, r.FaultsSchedule, r.FaultsKind, orNone(r.Kind))
			continue
		}
		if !isFound(r) {
			fmt.Fprintf(&b, "| %s | no | - | %s | - |\n", r.Name, orNone(r.Kind))
			continue
		}
		found++
		firsts = append(firsts, r.Schedule)
		fmt.Fprintf(&b, "| %s | yes | %d | %s | %s |\n", r.Name, r.Schedule, r.Kind, matchTruth(r.Blocked, truth[r.Name]))
	}
	return b.String(), found, firsts
}

// matchTruth compares the blocked goroutines with the ground truth: which
// expected ones were seen, and which seen ones were not expected.
func matchTruth(blocked []string, want []*regexp.Regexp) string {
	if want == nil {
		return "no ground truth (not in Go's test list)"
	}
	seen := 0
	for _, re := range want {
		if slices.ContainsFunc(blocked, re.MatchString) {
			seen++
		}
	}
	var extra []string
	for _, b := range blocked {
		if !slices.ContainsFunc(want, func(re *regexp.Regexp) bool { return re.MatchString(b) }) && !slices.Contains(extra, b) {
			extra = append(extra, b)
		}
	}
	s := fmt.Sprintf("%d of %d expected", seen, len(want))
	if len(extra) > 0 {
		s += "; also " + strings.Join(extra, ", ")
	}
	return s
}

// firstLines is s cut to n lines.
func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "") + fmt.Sprintf("... (%d more lines)\n", len(lines)-n)
}
