package rewrite_test

import (
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// A module whose suite looks at its own goroutines and its own call stacks
// (runtime.NumGoroutine, goleak, testify's error traces), and whose
// dependency example.com/clock, a mock clock that is not rewritten unless
// -rewrite says so, wakes the test's goroutines with sends on Go channels.
// The suite runs under go test, then under -wrap with the dependencies as
// they are, then with example.com/clock and goleak rewritten; under -race
// when this package's tests run under it.
var introspectFiles = map[string]string{
	"go.mod": `
require (
	example.com/clock v0.0.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
)

replace example.com/clock => ./clock
`,
	"clock/go.mod": "module example.com/clock\n\ngo 1.22\n",
	"clock/clock.go": `// Package clock is a mock clock, as a test's dependency that is not
// rewritten: Add sends on the channels After returned.
package clock

import (
	"sync"
	"time"
)

type Mock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []chan time.Time
}

func (m *Mock) After(d time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	m.mu.Lock()
	m.waiters = append(m.waiters, c)
	m.mu.Unlock()
	return c
}

func (m *Mock) Add(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = m.now.Add(d)
	for _, c := range m.waiters {
		c <- m.now
	}
	m.waiters = nil
}
`,
	"count_test.go": `package m

import (
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestCount polls runtime.NumGoroutine until its workers are gone, as
// leak checks written by hand do.
func TestCount(t *testing.T) {
	start := runtime.NumGoroutine()
	t.Logf("start=%d", start)
	// The native count may include the runtime's finalizer goroutine, which
	// counts while it runs a finalizer: one fewer here is Go's count too.
	if want, err := strconv.Atoi(os.Getenv("WANT_START")); err == nil && (start > want || start < want-1) {
		t.Errorf("%d goroutines at the start, want %d as under go test (or %d, without the finalizer goroutine)", start, want, want-1)
	}
	release := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-release
		}()
	}
	if n := runtime.NumGoroutine(); n != start+10 {
		t.Errorf("%d goroutines with 10 workers, want %d", n, start+10)
	}
	close(release)
	wg.Wait()
	for i := 0; runtime.NumGoroutine() > start; i++ {
		if i == 100 {
			t.Fatalf("leak: %d goroutines remain, want %d", runtime.NumGoroutine(), start)
		}
		time.Sleep(time.Millisecond)
	}
}
`,
	"trace_test.go": `package m

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func check(t *testing.T, n int) {
	t.Helper()
	assert.Equal(t, 1, n, "in a helper")
}

// TestTrace fails, by design, four ways: testify's Error Trace of each
// names the test's lines.
func TestTrace(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		check(t, 2)
	})
	done := make(chan bool)
	go func() {
		assert.True(t, false, "in a goroutine")
		done <- true
	}()
	<-done
	check(t, 3)
	assert.Equal(t, 1, 4, "in the test")
}
`,
	"leak_test.go": `package m

import (
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestGoleakClean(t *testing.T) {
	defer goleak.VerifyNone(t)
	var wg sync.WaitGroup
	c := make(chan int)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c <- i
		}()
	}
	for i := 0; i < 3; i++ {
		<-c
	}
	wg.Wait()
}

func stuck(c chan int) { <-c }

// TestGoleakFinds leaks a goroutine, by design.
func TestGoleakFinds(t *testing.T) {
	defer goleak.VerifyNone(t)
	go stuck(make(chan int))
}
`,
	"clock_test.go": `package m

import (
	"testing"
	"time"

	"example.com/clock"
)

// TestMockClock's goroutine moves the mock clock, whose Add sends on the
// channel the test waits on.
func TestMockClock(t *testing.T) {
	var m clock.Mock
	c := m.After(time.Second)
	if len(c) != 0 {
		t.Fatal("fired before its time")
	}
	done := make(chan bool)
	go func() {
		m.Add(time.Second)
		done <- true
	}()
	<-done
	<-c
}
`,
}

// introspectRuns is the suite's outcomes and outputs: natively, wrapped,
// and wrapped with example.com/clock and goleak rewritten.
type introspectRuns struct {
	dir                          string
	native, wrapped, rewritten   map[string]string
	nativeOut, wrappedOut, rwOut map[string]string
}

var (
	introspectOnce sync.Once
	introspect     *introspectRuns
)

func introspection(t *testing.T) *introspectRuns {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	introspectOnce.Do(func() {
		env := append(os.Environ(), "GOFLAGS=-mod=mod")
		files := map[string]string{}
		for k, v := range introspectFiles {
			files[k] = v
		}
		r := &introspectRuns{dir: tempModule(t, env, files)}
		r.native, r.nativeOut = goTestJSON(t, r.dir, env, "-vet=off", "-v", ".")
		start := regexp.MustCompile(`start=(\d+)`).FindStringSubmatch(r.nativeOut["TestCount"])
		if start == nil {
			t.Fatalf("TestCount natively:\n%s", r.nativeOut["TestCount"])
		}
		var race []string
		if raceEnabled {
			race = []string{"-race"}
		}
		for _, run := range []struct {
			extra       []string
			got, out    *map[string]string
			marker, run string
		}{
			{nil, &r.wrapped, &r.wrappedOut, "-wrap", "^(TestCount|TestTrace|TestMockClock)$"},
			{[]string{"example.com/clock/...", "go.uber.org/goleak/..."}, &r.rewritten, &r.rwOut,
				"-wrap -rewrite=example.com/clock/...,go.uber.org/goleak/...", "^(TestGoleakClean|TestGoleakFinds|TestMockClock)$"},
		} {
			overlay, _, err := rewrite.Overlay(rewrite.Options{Dir: r.dir, Patterns: []string{"."}, Wrap: true, Rewrite: run.extra,
				Flags: race, Env: env, CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			env := append(env, rewrite.EnvMarker+"="+run.marker, "WANT_START="+start[1])
			args := append(race, "-vet=off", "-overlay="+overlay, "-dst.iters=100", "-run", run.run, ".")
			*run.got, *run.out = goTestJSON(t, r.dir, env, args...)
		}
		introspect = r
	})
	if introspect == nil {
		t.Fatal("the module's suite did not run (see the first test that tried)")
	}
	return introspect
}

// TestWrappedNumGoroutine: runtime.NumGoroutine in a wrapped test answers as
// under go test: the same count at the test's start (the tool's own
// goroutines are not the program's), one more per worker, and the workers'
// goroutines gone once they have returned: a test polling for that passes
// in every schedule, under -race too, where a goroutine the scheduler has
// seen exit lingers a while in the runtime.
func TestWrappedNumGoroutine(t *testing.T) {
	r := introspection(t)
	if r.native["TestCount"] != "pass" {
		t.Fatalf("natively, TestCount: %s\n%s", r.native["TestCount"], r.nativeOut["TestCount"])
	}
	if r.wrapped["TestCount"] != "pass" {
		t.Errorf("wrapped, TestCount: %s, want a pass as under go test\n%s", r.wrapped["TestCount"], r.wrappedOut["TestCount"])
	}
}

// errorTraces is the file:line entries of each testify Error Trace in a
// test's output, one string per trace.
func errorTraces(out string) []string {
	var traces []string
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		_, first, ok := strings.Cut(lines[i], "Error Trace:")
		if !ok {
			continue
		}
		trace := []string{strings.TrimSpace(first)}
		for i+1 < len(lines) && !strings.Contains(lines[i+1], "Error:") {
			i++
			trace = append(trace, strings.TrimSpace(lines[i]))
		}
		traces = append(traces, strings.Join(trace, " "))
	}
	return traces
}

// TestWrappedTestifyTrace: testify's Error Trace in a wrapped test lists
// the lines that go test's does (the assertion's, its helper's caller's, a
// goroutine's end), not the tool's files and the runtime's coroutines that
// run the test's function under the scheduler.
func TestWrappedTestifyTrace(t *testing.T) {
	r := introspection(t)
	native := errorTraces(r.nativeOut["TestTrace"] + r.nativeOut["TestTrace/sub"])
	wrapped := errorTraces(r.wrappedOut["TestTrace"] + r.wrappedOut["TestTrace/sub"])
	if len(native) != 4 {
		t.Fatalf("natively, TestTrace has %d error traces, want 4:\n%s", len(native), r.nativeOut["TestTrace"]+r.nativeOut["TestTrace/sub"])
	}
	for _, n := range native {
		found := false
		for _, w := range wrapped {
			found = found || w == n
		}
		if !found {
			t.Errorf("wrapped, no error trace reads %q as under go test; the traces:\n%s", n, strings.Join(wrapped, "\n"))
		}
	}
	for _, w := range wrapped {
		if strings.Contains(w, "/sched/") || strings.Contains(w, "/internal/engine/") || strings.Contains(w, "iter.go") {
			t.Errorf("wrapped, an error trace names the tool's or the runtime's files: %q", w)
		}
	}
}

// TestWrappedGoleak: goleak.VerifyNone in a wrapped test, with goleak
// rewritten, sees the program's goroutines as go test does: none of the
// tool's (the goroutine that runs the run, the watchdog, goroutines of
// runs that are over), and a leaked goroutine with its own function on
// top of its stack.
func TestWrappedGoleak(t *testing.T) {
	r := introspection(t)
	if r.native["TestGoleakClean"] != "pass" || r.native["TestGoleakFinds"] != "fail" {
		t.Fatalf("natively: TestGoleakClean %s, TestGoleakFinds %s", r.native["TestGoleakClean"], r.native["TestGoleakFinds"])
	}
	if r.rewritten["TestGoleakClean"] != "pass" {
		t.Errorf("wrapped, TestGoleakClean: %s, want a pass\n%s", r.rewritten["TestGoleakClean"], r.rwOut["TestGoleakClean"])
	}
	want := "in state chan receive, with example.com/m.stuck on top of the stack"
	if r.rewritten["TestGoleakFinds"] != "fail" || !strings.Contains(r.rwOut["TestGoleakFinds"], want) {
		t.Errorf("wrapped, TestGoleakFinds: %s, want a failure saying %q\n%s", r.rewritten["TestGoleakFinds"], want, r.rwOut["TestGoleakFinds"])
	}
}

// TestWrappedUnrewrittenSend: a dependency that is not rewritten (a mock
// clock) wakes a goroutine of the run with a send on a channel the run has
// adopted: the run cannot see the send, and instead of a deadlock
// ("nothing can wake them") it reports a misuse naming the channel, where
// the test first used it, the dependency and the flag that rewrites it.
// With that flag the test passes, as under go test.
func TestWrappedUnrewrittenSend(t *testing.T) {
	r := introspection(t)
	if r.native["TestMockClock"] != "pass" {
		t.Fatalf("natively, TestMockClock: %s\n%s", r.native["TestMockClock"], r.nativeOut["TestMockClock"])
	}
	out := r.wrappedOut["TestMockClock"]
	for _, want := range []string{"sched: misuse in schedule 1",
		"a value sent on a chan time.Time that the run adopted at clock_test.go:15",
		"code that dstreplay test did not rewrite",
		"dstreplay test -rewrite=example.com/clock/..."} {
		if r.wrapped["TestMockClock"] != "fail" || !strings.Contains(out, want) {
			t.Errorf("wrapped, TestMockClock: %s, want a failure saying %q\n%s", r.wrapped["TestMockClock"], want, out)
		}
	}
	if strings.Contains(out, "github.com/dstgo/dst/...") {
		t.Errorf("the advice names the tool's own module:\n%s", out)
	}
	if r.rewritten["TestMockClock"] != "pass" {
		t.Errorf("with example.com/clock rewritten, TestMockClock: %s, want a pass\n%s", r.rewritten["TestMockClock"], r.rwOut["TestMockClock"])
	}
}
