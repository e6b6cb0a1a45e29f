package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/cli"
)

// TestOwnModule uses the tool as a user does, from a module of their own:
// the library in its tests, dstreplay as a go tool, every command the
// report prints run as printed, a hunt of its package, and debug.
// Regression (found by a user, fixed): go run and go install of dstreplay
// failed in another module with "missing go.sum entry", and hunt refused a
// package outside the main module.
func TestOwnModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own, fetching dependencies")
	}
	m := newOwnModule(t, map[string]string{
		"cache.go": `package mine

import "github.com/dstgo/dst/sched"

// Cache moves entries between two shards, locking both: in opposite
// orders, a deadlock.
type Cache struct{ a, b sched.Mutex }

func (c *Cache) AtoB() { c.a.Lock(); c.b.Lock(); c.b.Unlock(); c.a.Unlock() }
func (c *Cache) BtoA() { c.b.Lock(); c.a.Lock(); c.a.Unlock(); c.b.Unlock() }
`,
		"cache_test.go": `package mine

import (
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

func TestCache(t *testing.T) {
	schedtest.Test(t, func(t *schedtest.T) {
		var c Cache
		var wg sched.WaitGroup
		wg.Go(c.AtoB)
		wg.Go(c.BtoA)
		wg.Wait()
	})
}
`,
	})
	dir, root, env, sh := m.dir, m.root, m.env, m.sh
	out, err := sh("go test -count=1 .")
	if err == nil || !strings.Contains(out, "deadlock in schedule") {
		t.Fatalf("the buggy test: %v\n%s", err, out)
	}
	// Every command the report prints works as printed.
	hints := regexp.MustCompile(`(?m)^\s+((?:go test|go tool dstreplay) .*)$`).FindAllStringSubmatch(out, -1)
	if len(hints) < 3 {
		t.Fatalf("the report prints %d commands:\n%s", len(hints), out)
	}
	for _, h := range hints {
		got, err := sh(h[1])
		switch {
		case strings.HasPrefix(h[1], "go test") && (err == nil || !strings.Contains(got, "deadlock")):
			t.Errorf("%s: %v\n%s", h[1], err, got)
		case strings.HasPrefix(h[1], "go tool") && (err != nil || !strings.Contains(got, "deadlock")):
			t.Errorf("%s: %v\n%s", h[1], err, got)
		}
	}
	out, err = sh("go tool dstreplay hunt -time 3s -j 1 -corpus " + filepath.Join(t.TempDir(), "corpus") + " .")
	if err == nil || !strings.Contains(out, "TestCache: deadlock") {
		t.Errorf("hunt in the module: %v\n%s", err, out)
	}
	// And from elsewhere: a package given by its directory, outside the
	// current module.
	cmd := exec.Command("go", "run", "./cmd/dstreplay", "hunt", "-time", "2s", "-j", "1", "-corpus", filepath.Join(t.TempDir(), "corpus"), dir)
	cmd.Dir, cmd.Env = root, env
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "TestCache: deadlock") {
		t.Errorf("hunt of a directory outside the module: %v\n%s", err, b)
	}
	if cli.HaveDlv() {
		traces, _ := filepath.Glob(filepath.Join(dir, "testdata", "dst", "TestCache", "*.trace"))
		if len(traces) == 0 {
			t.Fatal("no saved trace")
		}
		os.WriteFile(filepath.Join(dir, "cmds"), []byte("exit\n"), 0o644)
		if out, err := sh("go tool dstreplay debug --init cmds " + traces[0]); err != nil || !strings.Contains(out, "dstreplay: stopped at step") {
			t.Errorf("debug in the module: %v\n%s", err, out)
		}
	} else if os.Getenv("DST_REQUIRE_TOOLS") == "1" {
		t.Error("delve (dlv) is not installed, and DST_REQUIRE_TOOLS=1")
	}
}

// TestHuntWrapDependency hunts a dependency's unedited suite by its import
// path from the module that requires it, as a user vetting a library does.
// Regression: hunt built the package in the dependency's own directory (the
// module cache, here its replacement), where the -wrap overlay's imports of
// the tool are not required, so its binary lacked the hunt's flags.
func TestHuntWrapDependency(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own, fetching dependencies")
	}
	m := newOwnModule(t, map[string]string{
		"go.mod":     "\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n",
		"mine.go":    "package mine\n\nimport _ \"example.com/dep\"\n",
		"dep/go.mod": "module example.com/dep\n\ngo 1.22\n",
		"dep/counter.go": `package dep

import "sync"

// Counter counts, but Add reads and writes under two locks: two Adds
// at once can count one.
type Counter struct {
	mu sync.Mutex
	n  int
}

func (c *Counter) Add() {
	c.mu.Lock()
	v := c.n
	c.mu.Unlock()
	c.mu.Lock()
	c.n = v + 1
	c.mu.Unlock()
}
`,
		"dep/counter_test.go": `package dep

import (
	"sync"
	"testing"
)

func TestCounter(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); c.Add() }()
	}
	wg.Wait()
	if c.n != 2 {
		t.Fatalf("counted %d of 2", c.n)
	}
}
`,
	})
	out, err := m.sh("go tool dstreplay hunt -wrap -time 5s -j 1 -corpus " + filepath.Join(t.TempDir(), "corpus") +
		" -dir " + filepath.Join(t.TempDir(), "fail") + " example.com/dep")
	if err == nil || !strings.Contains(out, "TestCounter: test failed") {
		t.Errorf("hunt -wrap of a dependency by import path: %v\n%s", err, out)
	}
}

// ownModule is a user's module in a temporary directory, set up as the
// README says: a go.mod as go get -tool github.com/dstgo/dst/cmd/dstreplay
// writes it (at a version replaced by this checkout: the module is not on
// the proxy, which go get would ask), the given files, and go mod tidy for
// the go.sum entries of the tool and the library.
type ownModule struct {
	dir, root string   // the module; this checkout
	env       []string // what commands run with
	sh        func(line string) (string, error)
}

func newOwnModule(t *testing.T, files map[string]string) *ownModule {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	m := &ownModule{dir: t.TempDir(), root: root, env: append(os.Environ(), "GOFLAGS=", "DST_DIR=", "DST_REWRITTEN=")}
	files["go.mod"] = "module example.com/mine\n\ngo 1.26\n\nrequire github.com/dstgo/dst v0.0.0\n\n" +
		"tool github.com/dstgo/dst/cmd/dstreplay\n\nreplace github.com/dstgo/dst => " + root + "\n" + files["go.mod"]
	for name, text := range files {
		path := filepath.Join(m.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m.sh = func(line string) (string, error) {
		t.Helper()
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir, cmd.Env = m.dir, m.env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := m.sh("go mod tidy"); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	return m
}

// TestExecChangedPackage: exec of a trace whose package no longer builds,
// or no longer has the test, says so, instead of "a failure outside the
// replay" or "the re-run with pass".
func TestExecChangedPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own, fetching dependencies")
	}
	test := `package mine

import (
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

func TestCache(t *testing.T) {
	schedtest.Test(t, func(t *schedtest.T) {
		var a, b sched.Mutex
		var wg sched.WaitGroup
		wg.Go(func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
		wg.Go(func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
		wg.Wait()
	})
}
`
	m := newOwnModule(t, map[string]string{"mine.go": "package mine\n", "mine_test.go": test})
	if out, err := m.sh("go test -count=1 ."); err == nil || !strings.Contains(out, "deadlock in schedule") {
		t.Fatalf("the buggy test: %v\n%s", err, out)
	}
	traces, _ := filepath.Glob(filepath.Join(m.dir, "testdata", "dst", "TestCache", "*.trace"))
	if len(traces) == 0 {
		t.Fatal("no saved trace")
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(m.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mine_test.go", strings.Replace(test, "TestCache", "TestRenamed", 1))
	if out, err := m.sh("go tool dstreplay exec " + traces[0]); err == nil || !strings.Contains(out, "has no test TestCache now") {
		t.Errorf("exec with the test renamed: %v\n%s", err, out)
	}
	write("mine.go", "package mine\n\nvar x int = \"not an int\"\n")
	if out, err := m.sh("go tool dstreplay exec " + traces[0]); err == nil || !strings.Contains(out, "does not build now") {
		t.Errorf("exec with the package broken: %v\n%s", err, out)
	}
}

// TestWrapSaysWhatRunsNatively: a wrapped test that starts an HTTP server
// and calls it, with -nativehttp, passes as before, and says that the
// server and the client ran natively, with where they were called, instead
// of passing its schedules in silence as if their goroutines had been
// explored. Without -nativehttp, nothing runs natively.
func TestWrapSaysWhatRunsNatively(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own, fetching dependencies")
	}
	m := newOwnModule(t, map[string]string{
		"mine.go": "package mine\n",
		"mine_test.go": `package mine

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != "hi" {
		t.Fatalf("got %q", b)
	}
}
`,
	})
	out, err := m.sh("go tool dstreplay test -wrap -nativehttp . -count=1 -v -dst.iters=3 -dst.dir=off")
	if err != nil || !strings.Contains(out, "--- PASS: TestServer") {
		t.Fatalf("the wrapped test: %v\n%s", err, out)
	}
	for _, want := range []string{"the test called httptest.NewServer (mine_test.go:11), http.Get (mine_test.go:13), which run natively", "not explored", "unless -nativehttp is given"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	m.wrapPasses(t, "the wrapped test with net/http on the scheduler (the default)", 3, "-dst.dir=off")
}

// TestLinesFromPackageDir: run from a package's own directory, dstreplay
// test prints lines that work there: the reproduce and replay lines name
// the package as ".", and the read line the trace from there. Regression
// (a helper, on labstack/echo's middleware): they were from the module's
// root ("./middleware", "middleware/testdata/..."), and the read line
// failed where the user was.
func TestLinesFromPackageDir(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	m := newOwnModule(t, map[string]string{
		"mine.go": "package mine\n",
		"sub/cache.go": `package sub

import "sync"

type Cache struct{ a, b sync.Mutex }

func (c *Cache) AtoB() { c.a.Lock(); c.b.Lock(); c.b.Unlock(); c.a.Unlock() }
func (c *Cache) BtoA() { c.b.Lock(); c.a.Lock(); c.a.Unlock(); c.b.Unlock() }
`,
		"sub/cache_test.go": `package sub

import (
	"sync"
	"testing"
)

func TestCache(t *testing.T) {
	var c Cache
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.AtoB() }()
	go func() { defer wg.Done(); c.BtoA() }()
	wg.Wait()
}
`,
	})
	sub := filepath.Join(m.dir, "sub")
	in := func(line string) (string, error) {
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir, cmd.Env = sub, m.env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := in("go tool dstreplay test -wrap . -count=1")
	if err == nil || !strings.Contains(out, "deadlock in schedule") {
		t.Fatalf("the buggy test: %v\n%s", err, out)
	}
	hints := regexp.MustCompile(`(?m)^\s+(go tool dstreplay .*)$`).FindAllStringSubmatch(out, -1)
	if len(hints) < 3 {
		t.Fatalf("the report prints %d commands:\n%s", len(hints), out)
	}
	for _, h := range hints {
		if strings.Contains(h[1], "./sub") || strings.Contains(h[1], "sub/testdata") {
			t.Errorf("a line names the package from the module's root: %s", h[1])
		}
		if got, err := in(h[1]); !strings.Contains(got, "deadlock") {
			t.Errorf("%s, run in the package's directory: %v\n%s", h[1], err, got)
		}
	}
}
