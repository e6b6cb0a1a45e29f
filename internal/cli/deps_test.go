package cli_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestWrapDeps: dstreplay test -wrap rewrites the tested module's
// dependencies by default (issue 25), here golang.org/x/sync/errgroup from
// the module cache, whose Go starts the goroutines. A test whose goroutines
// errgroup starts passes, as under go test; a bug between them is found, and
// its saved trace re-runs as recorded under dstreplay exec, which rewrites
// errgroup again. -rewrite=none leaves the dependencies native, as before.
// Regression (github.com/panjf2000/ants/v2's TestMultiPool*, fixed): with
// errgroup not rewritten, the run did not see its goroutines, and the first
// test failed as a deadlock.
func TestWrapDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	m := newOwnModule(t, map[string]string{
		"pipe.go": `package mine

import (
	"errors"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Pipe sends a value from a goroutine of an errgroup.Group.
func Pipe() int {
	var g errgroup.Group
	c := make(chan int)
	g.Go(func() error { c <- 1; return nil })
	v := <-c
	g.Wait()
	return v
}

// Ordered appends 1 then 2 from two goroutines: a bug, for nothing orders
// them.
func Ordered() error {
	var g errgroup.Group
	var mu sync.Mutex
	var order []int
	for i := 1; i <= 2; i++ {
		g.Go(func() error {
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			return nil
		})
	}
	g.Wait()
	if order[0] != 1 {
		return errors.New("2 came first")
	}
	return nil
}
`,
		"pipe_test.go": `package mine

import "testing"

func TestPipe(t *testing.T) {
	if v := Pipe(); v != 1 {
		t.Fatalf("Pipe() = %d", v)
	}
}

func TestOrdered(t *testing.T) {
	if err := Ordered(); err != nil {
		t.Fatal(err)
	}
}
`,
	})
	m.env = append(m.env, "GOPROXY=off")
	if out, err := m.sh("go mod tidy"); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	out, err := m.sh("go tool dstreplay test -wrap -count=1 -run '^TestPipe$' . -dst.iters=20")
	if err != nil || !regexp.MustCompile(`(?m)^ok\s+example.com/mine\b`).MatchString(out) {
		t.Errorf("TestPipe, errgroup rewritten by default: %v, want ok\n%s", err, out)
	}
	out, err = m.sh("go tool dstreplay test -wrap -rewrite=none -count=1 -run '^TestPipe$' . -dst.iters=20")
	if err == nil || !strings.Contains(out, "deadlock") {
		t.Errorf("TestPipe with -rewrite=none: %v, want the deadlock of a run that does not see errgroup's goroutines\n%s", err, out)
	}
	out, err = m.sh("go tool dstreplay test -wrap -count=1 -run '^TestOrdered$' . -dst.iters=200")
	if err == nil || !strings.Contains(out, "2 came first") {
		t.Fatalf("TestOrdered: %v, want the bug found\n%s", err, out)
	}
	traces, _ := filepath.Glob(filepath.Join(m.dir, "testdata", "dst", "TestOrdered", "*.trace"))
	if len(traces) != 1 {
		t.Fatalf("%d saved traces of TestOrdered, want 1", len(traces))
	}
	out, err = m.sh("go tool dstreplay exec " + traces[0])
	if !strings.Contains(out, "the re-run ended as recorded") || !strings.Contains(out, "2 came first") ||
		!strings.Contains(out, "as dstreplay test -wrap -rewrite=... ") {
		t.Errorf("exec of the saved trace: %v, want it rewritten as recorded (every dependency) and to end as recorded\n%s", err, out)
	}
}
