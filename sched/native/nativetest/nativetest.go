package nativetest

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/gotest"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
)

// T is what a wrapped test's *testing.T becomes: the test's own function,
// its subtests and its helpers receive a *T. It embeds the enclosing
// *testing.T, so it passes wherever a testing.TB goes, and the methods it
// does not override (TempDir, Setenv, Chdir, Deadline, Attr, ArtifactDir)
// act on the enclosing test.
//
// Inside the run, Error, Fatal and their friends fail the run, which the
// harness reports with its schedule; Log output is kept and shown with the
// failing run's report. FailNow (and Fatal) stops the whole run, not only
// the subtest that called it: the schedule has failed. Skip ends the test
// or subtest that called it; a top-level test that skips is skipped once
// its exploration ends.
type T struct {
	*testing.T

	run     *schedtest.T
	parent  *T
	name    string
	helpers *helperSites // the run's, shared with its subtests

	// Guarded by the scheduler: one goroutine of the run runs at a time
	// (see the norace accessors).
	failed, skipped, parallel bool
	exiting                   bool // SkipNow's unwinding is under way
	done                      bool // the function, its subtests and its cleanups have returned
	skipMsg                   string
	subNames                  map[string]int
	cleanups                  []func()
	ctx                       context.Context
	cancel                    context.CancelFunc

	started sched.WaitGroup // Run waits for it: the subtest ended or called Parallel
	body    sched.WaitGroup // parallel subtests wait for the function to return
	subs    sched.WaitGroup // the parallel subtests still running
}

// Wrap runs body, a test function's body, under the scheduler as the body of
// schedtest.Test: it explores its schedules (1000 by default, -dst.* flags
// apply), reports and saves a failing one, and replays the saved failures
// first. dstreplay test -wrap rewrites
//
//	func TestX(t *testing.T) { ... }
//
// into
//
//	func TestX(t *testing.T) { nativetest.Wrap(t, func(t *nativetest.T) { ... }) }
func Wrap(t *testing.T, body func(t *T)) {
	t.Helper()
	var skip atomic.Pointer[string]
	schedtest.TestWith(t, schedtest.Options{Timeout: testTimeout()}, func(rt *schedtest.T) {
		w := &T{T: t, run: rt, name: t.Name(), helpers: newHelperSites()}
		w.main(body)
		if w.isSkipped() {
			msg := w.skipMsg
			skip.Store(&msg)
		}
	})
	if msg := skip.Load(); msg != nil && !t.Failed() {
		t.Skip(*msg)
	}
}

// testTimeout is go test's -timeout (10m by default, 0 for none): a
// wrapped test is written for real time, and one whose virtual clock gets
// that far would have been stopped there.
func testTimeout() time.Duration {
	d, _ := gotest.Timeout() // in a child the harness started, its parent's
	return d
}

// skipSignal unwinds a test's goroutine for SkipNow; main recovers it.
type skipSignal struct{ name string }

func (s skipSignal) String() string {
	return "nativetest: SkipNow of " + s.name + " called from a goroutine other than the test's"
}

// main runs f as t's function, then what ends a test in go test: the
// parallel subtests it started, its cleanups, and the signal to Run.
func (t *T) main(f func(*T)) {
	t.body.Add(1)
	returned := false
	defer func() {
		if !returned {
			if !t.isExiting() {
				return // a panic, or FailNow: the run is ending
			}
			recover() // SkipNow's signal
		}
		t.finish()
	}()
	f(t)
	returned = true
}

func (t *T) finish() {
	t.body.Done()
	t.subs.Wait()
	if cancel := t.getCancel(); cancel != nil {
		cancel()
	}
	for f := t.popCleanup(); f != nil; f = t.popCleanup() {
		f()
	}
	t.setDone()
	switch {
	case t.parent == nil:
	case t.isParallel():
		t.parent.subs.Done()
	default:
		t.started.Done()
	}
}

// Run runs f as a subtest of t called name, in a goroutine of the run of
// its own, and waits for it to end or to call Parallel. It reports whether
// f succeeded (or had not failed before calling Parallel). Subtests that
// go test's -run or -skip leave out are not run.
func (t *T) Run(name string, f func(t *T)) bool {
	full := t.subName(name)
	if !selected(full) {
		return true
	}
	sub := &T{T: t.T, run: t.run, parent: t, name: full, helpers: t.helpers}
	sub.started.Add(1)
	sched.Go(func() { sub.main(f) })
	sub.started.Wait()
	return !sub.Failed()
}

// Parallel, in a subtest, returns its parent's Run and waits for the
// parent's function to return; the parallel subtests then run together,
// interleaved by the scheduler, and the parent ends after them. In a
// top-level test it does nothing: schedules run one after another.
func (t *T) Parallel() {
	if t.parent == nil {
		return
	}
	if !t.setParallel() {
		panic("testing: t.Parallel called multiple times")
	}
	t.parent.subs.Add(1)
	t.started.Done()
	t.parent.body.Wait()
}

// Name returns the test's name, with its subtests' as go test writes them.
func (t *T) Name() string { return t.name }

// Helper marks the calling function as a test helper, as testing.T's does:
// a failure it reports is placed at its caller's line.
//
// The run marks the function of the first frame outside the tool, which it
// finds by symbolizing the stack: some microseconds, where testify calls
// Helper twice an assertion (ristretto's TestTreeBasic spent half its time
// there, checking a million entries). A call site of the user's marks its
// own function, the same at every call: once the run has marked it, a call
// from that site again is a no-op, as go test's own Helper keeps the sites
// it has seen.
func (t *T) Helper() {
	h := t.helpers
	var pc [1]uintptr
	if h == nil || runtime.Callers(2, pc[:]) == 0 {
		t.run.Helper()
		return
	}
	h.mu.Lock()
	marked := h.sites[pc[0]]
	h.mu.Unlock()
	if marked {
		return
	}
	t.run.Helper()
	if usersFrame(pc[0]) {
		h.mu.Lock()
		h.sites[pc[0]] = true
		h.mu.Unlock()
	}
}

// helperSites are the call sites of Helper whose function a run has
// marked. The goroutines of a run take turns with no happens-before edge
// between them; the lock gives them the edge that the run's own list of
// helpers, locked at each call, gave them before.
type helperSites struct {
	mu    sync.Mutex
	sites map[uintptr]bool
}

func newHelperSites() *helperSites { return &helperSites{sites: make(map[uintptr]bool)} }

// usersFrame reports whether the frame at pc is surely the user's, so that
// the run marks that frame's own function when it is Helper's caller; a
// frame that might be the tool's (its function or its file is this
// module's, or the runtime's, and it is not in a _test.go file) would have
// the run look further up a stack that can differ from call to call.
func usersFrame(pc uintptr) bool {
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	if f.Function == "" || f.File == "" {
		return false
	}
	for _, tool := range []string{"runtime.", "runtime/", "iter."} {
		if strings.HasPrefix(f.Function, tool) {
			return false
		}
	}
	if strings.HasSuffix(f.File, "_test.go") {
		return true // a test's, even of the tool's packages, as the run says
	}
	if strings.HasPrefix(f.Function, toolModule+"/") || strings.HasPrefix(f.Function, toolModule+".") {
		return false
	}
	return toolRoot == "" || !strings.HasPrefix(f.File, toolRoot)
}

// toolModule is the tool's module path, and toolRoot the directory of its
// source ("" if unknown), with a trailing slash.
var (
	toolModule = strings.TrimSuffix(reflect.TypeFor[T]().PkgPath(), "/sched/native/nativetest")
	toolRoot   = func() string {
		_, file, _, ok := runtime.Caller(0)
		if !ok {
			return ""
		}
		// file is <root>/sched/native/nativetest/nativetest.go
		return path.Dir(path.Dir(path.Dir(path.Dir(file)))) + "/"
	}()
)

// Log and Logf keep their output for the failing run's report. As in go
// test, a test that has completed logs to its closest parent that has not,
// and a Log once the test and all its parents have completed panics: "Log
// in goroutine after TestX has completed: ...", which fails the run where
// it was called.
func (t *T) Log(args ...any)                 { t.log(sprintln(args...)) }
func (t *T) Logf(format string, args ...any) { t.log(fmt.Sprintf(format, args...)) }

// Error, Errorf and Fail mark the test and the run failed; the run goes on.
// As in go test, Fail (and Error, Fatal, FailNow, which call it) after the
// test has completed panics: "Fail in goroutine after TestX has completed".
func (t *T) Error(args ...any)                 { t.fail(sprintln(args...)) }
func (t *T) Errorf(format string, args ...any) { t.fail(fmt.Sprintf(format, args...)) }
func (t *T) Fail()                             { t.fail("") }

// FailNow, Fatal and Fatalf fail the run and stop it.
func (t *T) FailNow() {
	t.checkFail()
	t.markFailed()
	t.run.FailNow()
}
func (t *T) Fatal(args ...any) {
	t.Error(args...)
	t.FailNow()
}
func (t *T) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	t.FailNow()
}

// Failed reports whether the test, or one of its subtests, has failed.
func (t *T) Failed() bool { return t.isFailed() }

// Skip, Skipf and SkipNow end the test that calls them as skipped; they must
// be called from its goroutine, as in go test.
func (t *T) Skip(args ...any) {
	t.skipWith(sprintln(args...))
}
func (t *T) Skipf(format string, args ...any) { t.skipWith(fmt.Sprintf(format, args...)) }
func (t *T) SkipNow()                         { t.skipWith("") }

// Skipped reports whether the test was skipped.
func (t *T) Skipped() bool { return t.isSkipped() }

// Cleanup registers f to run when the test's function and its parallel
// subtests have returned, inside the run, last added first.
func (t *T) Cleanup(f func()) { t.addCleanup(f) }

// Context returns a context canceled just before the test's cleanups run;
// inside the run its cancellation is a scheduling point.
func (t *T) Context() context.Context {
	if ctx := t.getContext(); ctx != nil {
		return ctx
	}
	ctx, cancel := native.WithCancel(context.Background()) // so that a select on its Done sees the cancellation
	t.setContext(ctx, cancel)
	return ctx
}

// Output returns a writer whose lines go to the test's log. As in go test,
// Output, or a Write to its writer, once the test and all its parents have
// completed panics.
func (t *T) Output() io.Writer {
	if t.destination() == nil {
		panic("Output called after " + t.name + " has completed")
	}
	return logWriter{t}
}

type logWriter struct{ t *T }

func (w logWriter) Write(p []byte) (int, error) {
	if w.t.destination() == nil {
		panic("Write called after " + w.t.name + " has completed")
	}
	w.t.log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func (t *T) prefix() string {
	if t.parent == nil {
		return ""
	}
	return t.name + ": "
}

// log keeps msg for the run's report, as testing.common.log writes it: to
// t's output, or its closest parent's that has not completed; a panic if
// none is left.
func (t *T) log(msg string) {
	if t.destination() == nil {
		panic("Log in goroutine after " + t.name + " has completed: " + msg)
	}
	t.run.Log(t.prefix() + msg)
}

// fail is Error's msg (Fail's if ""): it marks t and its parents failed
// and fails the run with msg, after go test's checks, as Error is Log then
// Fail there.
func (t *T) fail(msg string) {
	if msg != "" && t.destination() == nil {
		panic("Log in goroutine after " + t.name + " has completed: " + msg)
	}
	t.checkFail()
	if msg == "" {
		msg = "test marked failed"
	}
	t.markFailed()
	t.run.Error(t.prefix() + untrace(msg))
}

// checkFail panics as testing.common.Fail does when a test has completed:
// it fails the parents first, so the outermost test that has completed is
// the one named.
func (t *T) checkFail() {
	if t.parent != nil {
		t.parent.checkFail()
	}
	if t.isDone() {
		panic("Fail in goroutine after " + t.name + " has completed")
	}
}

func (t *T) skipWith(msg string) {
	if msg != "" {
		t.Log(msg)
	}
	t.setSkip(msg)
	panic(skipSignal{t.name})
}

// The accessors below touch T's state from whichever goroutine of the run
// calls them; the scheduler runs one at a time, so they are not races, and
// they are kept out of the race detector's sight as the harness's own
// bookkeeping is.

//go:norace
func (t *T) markFailed() {
	for p := t; p != nil; p = p.parent {
		p.failed = true
	}
}

//go:norace
func (t *T) isFailed() bool { return t.failed }

//go:norace
func (t *T) isDone() bool { return t.done }

//go:norace
func (t *T) setDone() { t.done = true }

// destination is the test a log of t's goes to, as go test's: t if it has
// not completed, else its closest parent that has not; nil if none.
//
//go:norace
func (t *T) destination() *T {
	for p := t; p != nil; p = p.parent {
		if !p.done {
			return p
		}
	}
	return nil
}

//go:norace
func (t *T) isSkipped() bool { return t.skipped }

//go:norace
func (t *T) isExiting() bool { return t.exiting }

//go:norace
func (t *T) isParallel() bool { return t.parallel }

//go:norace
func (t *T) setSkip(msg string) { t.skipped, t.exiting, t.skipMsg = true, true, msg }

//go:norace
func (t *T) setParallel() bool {
	was := t.parallel
	t.parallel = true
	return !was
}

//go:norace
func (t *T) addCleanup(f func()) { t.cleanups = append(t.cleanups, f) }

//go:norace
func (t *T) popCleanup() func() {
	n := len(t.cleanups)
	if n == 0 {
		return nil
	}
	f := t.cleanups[n-1]
	t.cleanups = t.cleanups[:n-1]
	return f
}

//go:norace
func (t *T) getContext() context.Context { return t.ctx }

//go:norace
func (t *T) getCancel() context.CancelFunc { return t.cancel }

//go:norace
func (t *T) setContext(ctx context.Context, cancel context.CancelFunc) { t.ctx, t.cancel = ctx, cancel }

// subName is the name of t's next subtest called name, made unique as go
// test does: spaces become underscores, and a repeated name gets #01, #02, ...
//
//go:norace
func (t *T) subName(name string) string {
	base := strings.Map(func(r rune) rune {
		if r == ' ' {
			return '_'
		}
		return r
	}, name)
	if t.subNames == nil {
		t.subNames = map[string]int{}
	}
	n, seen := t.subNames[base]
	t.subNames[base] = n + 1
	switch {
	case base == "":
		base = fmt.Sprintf("#%02d", n)
	case seen:
		base = fmt.Sprintf("%s#%02d", base, n)
	}
	return t.name + "/" + base
}

// selected reports whether go test's -run and -skip patterns let the
// subtest called name (its full, slash-separated name) run.
func selected(name string) bool {
	elems := strings.Split(name, "/")
	if pats := patterns("test.run"); pats != nil {
		for i := 1; i < len(elems) && i < len(pats); i++ {
			if !matches(pats[i], elems[i]) {
				return false
			}
		}
	}
	if pats := patterns("test.skip"); pats != nil && len(pats) <= len(elems) {
		all := true
		for i, p := range pats {
			all = all && matches(p, elems[i])
		}
		if all {
			return false
		}
	}
	return true
}

func patterns(name string) []string {
	f := flag.Lookup(name)
	if f == nil || f.Value.String() == "" {
		return nil
	}
	return strings.Split(f.Value.String(), "/")
}

var regexps sync.Map // pattern -> *regexp.Regexp, nil if it does not compile

func matches(pattern, s string) bool {
	re, ok := regexps.Load(pattern)
	if !ok {
		c, err := regexp.Compile(pattern)
		if err != nil {
			c = nil
		}
		re, _ = regexps.LoadOrStore(pattern, c)
	}
	c := re.(*regexp.Regexp)
	return c == nil || c.MatchString(s)
}

func sprintln(args ...any) string {
	s := fmt.Sprintln(args...)
	return s[:len(s)-1]
}
