package rewrite_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// goTestJSON runs go test -json with args in dir and returns each test's
// outcome (pass, fail, skip) and output.
func goTestJSON(t *testing.T, dir string, env []string, args ...string) (map[string]string, map[string]string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"test", "-json", "-count=1"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	out, _ := cmd.Output() // a failing test is an exit status; the events say which
	action, output := map[string]string{}, map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e struct{ Action, Test, Output string }
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Test == "" {
			continue
		}
		output[e.Test] += e.Output
		if e.Action == "pass" || e.Action == "fail" || e.Action == "skip" {
			action[e.Test] = e.Action
		}
	}
	if len(action) == 0 {
		t.Fatalf("go test %s ran no test:\n%s", strings.Join(args, " "), out)
	}
	return action, output
}

// TestWrap runs a suite written for go test, with subtests, parallel
// subtests, cleanups, t.Context, Skip, a fuzz target and a helper package
// taking *testing.T, through the -wrap rewrite: each test passes, skips or
// fails as under go test, the subtests -run leaves out do not run, and the
// one bug natively out of reach is found in a subtest, with a reproduce
// line that wraps again.
func TestWrap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	files := map[string]string{}
	for name, as := range map[string]string{"suite_test.go.txt": "suite_test.go", "check.go.txt": "check/check.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "wrap", name))
		if err != nil {
			t.Fatal(err)
		}
		files[as] = string(b)
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	dir := tempModule(t, env, files)

	// The suite is right about go test: natively, what does not fail by
	// design passes or skips.
	native, out := goTestJSON(t, dir, env, "-run", "^(TestSubtests|TestParallelTogether|TestContext|TestSkipped|TestOwnScheduler|FuzzChannel|TestReflectSelect)$", ".")
	for name, want := range map[string]string{"TestSubtests": "pass", "TestParallelTogether": "pass", "TestContext": "pass", "TestSkipped": "skip",
		"TestOwnScheduler": "pass", "FuzzChannel": "pass", "TestReflectSelect": "pass"} {
		if native[name] != want {
			t.Errorf("natively, %s: %q, want %q\n%s", name, native[name], want, out[name])
		}
	}

	overlay, n, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"."}, Wrap: true, Env: env, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d files rewritten, want 2 (the suite and the helper package)", n)
	}
	env = append(env, rewrite.EnvMarker+"=-wrap")
	got, out := goTestJSON(t, dir, env, "-overlay="+overlay, "-dst.iters=200", "-skip", "^TestFilter$", ".")
	for name, want := range map[string]string{"TestSubtests": "pass", "TestParallelTogether": "pass", "TestContext": "pass",
		"TestSkipped": "skip", "TestOwnScheduler/sub": "pass", "FuzzChannel": "pass", "FuzzChannel/seed#0": "pass", "TestFailLostUpdate": "fail",
		"TestReflectSelect": "pass"} {
		if got[name] != want {
			t.Errorf("wrapped, %s: %q, want %q\n%s", name, got[name], want, out[name])
		}
	}
	for _, name := range []string{"TestSubtests", "TestOwnScheduler/sub", "TestReflectSelect"} {
		if !strings.Contains(out[name], "sched: 200 schedules passed") {
			t.Errorf("%s did not run under the scheduler:\n%s", name, out[name])
		}
	}
	// check.Equal is a helper: the failure is placed at the line that
	// called it.
	line := 1 + strings.Count(strings.Split(files["suite_test.go"], `check.Equal(t, "lost update: n"`)[0], "\n")
	for _, want := range []string{fmt.Sprintf("suite_test.go:%d: TestFailLostUpdate/adds: lost update: n = 1, want 2", line),
		"go tool dstreplay test -wrap . -run '^TestFailLostUpdate$'"} {
		if !strings.Contains(out["TestFailLostUpdate"], want) {
			t.Errorf("TestFailLostUpdate's report lacks %q:\n%s", want, out["TestFailLostUpdate"])
		}
	}

	// -run selects subtests inside the run as go test does.
	if got, out := goTestJSON(t, dir, env, "-overlay="+overlay, "-dst.iters=20", "-run", "^TestFilter$/^keep$", "."); got["TestFilter"] != "pass" {
		t.Errorf("TestFilter with -run TestFilter/keep: %q\n%s", got["TestFilter"], out["TestFilter"])
	}
	if got, out := goTestJSON(t, dir, env, "-overlay="+overlay, "-dst.iters=20", "-run", "^TestFilter$", "."); got["TestFilter"] != "fail" ||
		!strings.Contains(out["TestFilter"], "TestFilter/drop: a subtest -run leaves out ran") {
		t.Errorf("TestFilter unfiltered: %q, want its subtest drop to fail it\n%s", got["TestFilter"], out["TestFilter"])
	}
}

// TestWrapRefusesUnrewrittenT: under -wrap, a *testing.T handed to a
// function that is not rewritten (it would receive a *nativetest.T) is an
// error naming the place, the function and what to do; a testing.TB
// parameter takes the *nativetest.T and is not refused.
func TestWrapRefusesUnrewrittenT(t *testing.T) {
	src := `package p

import (
	"log/slog"
	"testing/slogtest"
	"testing"
)

func check(t *testing.T) {
	slogtest.Run(t, func(*testing.T) slog.Handler { return nil }, nil)
	var tb testing.TB = t
	_ = tb
}
`
	out, errs := rewriteSourceWith(t, src, rewrite.Config{Wrap: true})
	want := "/src/p.go:10:15: t hands the test's *testing.T to testing/slogtest.Run, which is not rewritten: " +
		"under -wrap the test's t is a *nativetest.T; add testing/slogtest to -rewrite, or run this test without -wrap"
	if out != "" || len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("got %q, errors %v; want the error %q", out, errs, want)
	}
	out, errs = rewriteSourceWith(t, src, rewrite.Config{Wrap: true, Rewritten: func(path string) bool { return path == "testing/slogtest" }})
	if len(errs) != 0 || !strings.Contains(out, "func check(t *_dstw.T") {
		t.Errorf("with testing/slogtest rewritten: errors %v, text:\n%s", errs, out)
	}
}

// TestWrapLeavesOwnExplorations: a test that hands a *testing.T to the
// tool's API explores schedules itself, and -wrap leaves it as it is (its
// subtests' *testing.T too); handing that *testing.T to a helper whose
// *testing.T -wrap changes is refused.
func TestWrapLeavesOwnExplorations(t *testing.T) {
	src := `package p

import (
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

func helper(t *testing.T) {}

func TestWrapped(t *testing.T) { helper(t) }

func TestSelf(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		schedtest.Test(t, func(*schedtest.T) {})
	})
}

func TestSelfHelper(t *testing.T) {
	helper(t)
	schedtest.Test(t, func(*schedtest.T) {})
}

func explore(t *testing.T) { schedtest.Test(t, func(*schedtest.T) {}) }
`
	_, errs := rewriteWith(t, sourceFset, sourceImporter, "/src/p_test.go", src, rewrite.Config{Wrap: true})
	want := "/src/p_test.go:20:9: TestSelfHelper hands t to helper, whose *testing.T parameter -wrap makes a *nativetest.T; " +
		"-wrap leaves TestSelfHelper as it is because it runs the scheduler itself (it hands a *testing.T to this tool's API): " +
		"run it without -wrap, or make helper take a testing.TB"
	want2 := "/src/p_test.go:24:45: t hands a *testing.T to schedtest.Test outside a test function: -wrap leaves a test that calls " +
		"schedtest.Test itself as it is, but makes this t a *nativetest.T; call schedtest.Test from the test function, or run these tests without -wrap"
	if len(errs) != 2 || errs[0].Error() != want || errs[1].Error() != want2 {
		t.Fatalf("errors %v; want the two errors\n%s\n%s", errs, want, want2)
	}
	src = strings.Replace(src, "\thelper(t)\n\tschedtest", "\tschedtest", 1)
	src = src[:strings.Index(src, "\nfunc explore")]
	out, errs := rewriteWith(t, sourceFset, sourceImporter, "/src/p_test.go", src, rewrite.Config{Wrap: true})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{"func helper(t *_dstw.T", "func TestWrapped(t *testing.T) {_dstw.Wrap(t, func(t *_dstw.T) {",
		"func TestSelf(t *testing.T) {", `t.Run("sub", func(t *testing.T) {`} {
		if !strings.Contains(out, want) {
			t.Errorf("the rewrite lacks %q:\n%s", want, out)
		}
	}
}

// TestWrapOwnExplorationCompiles: under -wrap, a test file whose test runs
// the scheduler itself and uses the sync types compiles rewritten (it
// imported nativetest for the *testing.T it keeps, and failed as unused).
func TestWrapOwnExplorationCompiles(t *testing.T) {
	src := `package p

import (
	"sync"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

func TestX(t *testing.T) {
	schedtest.Test(t, func(t *schedtest.T) {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { wg.Done() }()
		wg.Wait()
	})
}
`
	out, errs := rewriteWith(t, sourceFset, sourceImporter, "/src/p_test.go", src, rewrite.Config{Wrap: true})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	f, err := parser.ParseFile(sourceFset, "/out/p_test.go", out, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := (&types.Config{Importer: sourceImporter}).Check("p", sourceFset, []*ast.File{f}, nil); err != nil {
		t.Fatalf("the rewritten file does not compile: %v\n%s", err, out)
	}
}
