package engine

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/petermattis/goid"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testdata/stacks.txt is a real runtime.Stack(all) dump of a program where
// main starts spawner, which starts worker.
func TestSplitStacks(t *testing.T) {
	dump, err := os.ReadFile("testdata/stacks.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := splitStacks(dump)
	if len(got) != 3 {
		t.Fatalf("parsed %d goroutines, want 3", len(got))
	}
	want := []stack{
		{id: 1, state: "running"},
		{id: 19, state: "select (no cases)", creator: "main.main", createdBy: 1},
		{id: 20, state: "chan receive", creator: "main.spawner", createdBy: 19},
	}
	for i, w := range want {
		g := got[i]
		if g.id != w.id || g.state != w.state || g.creator != w.creator || g.createdBy != w.createdBy {
			t.Errorf("goroutine %d: got %+v, want %+v", i, g, w)
		}
		if !strings.HasPrefix(g.text, "goroutine ") || strings.HasSuffix(g.text, "\n") {
			t.Errorf("goroutine %d text %q", i, g.text)
		}
	}
}

func TestGoroutineStackLive(t *testing.T) {
	ch := make(chan int64)
	release := make(chan struct{})
	go func() {
		ch <- goid.Get()
		<-release
	}()
	id := <-ch
	defer close(release)
	s := goroutineStack(id)
	if !strings.Contains(s, "engine.TestGoroutineStackLive.func1") || !strings.Contains(s, "created by github.com/dstgo/dst/internal/engine.TestGoroutineStackLive in goroutine") {
		t.Fatalf("stack of goroutine %d:\n%s", id, s)
	}
}

func TestOursSkipsToolFrames(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	cases := []struct {
		file, fn string
		want     bool
	}{
		{"/m/internal/engine/run.go", "github.com/dstgo/dst/internal/engine.(*G).Point", true},
		// The tool's code inlined into the user's function: named after it.
		{moduleRoot + "chans/chan.go", "github.com/dstgo/dst/chans_test.TestX.func1.(*Chan[...]).All.1", true},
		{moduleRoot + "mytry/cache.go", "github.com/dstgo/dst/mytry.(*Cache).Get", false},
		{moduleRoot + "nested/cache.go", "example.com/nested.(*Cache).Get", false},
		{"/m/sched/mutex.go", "github.com/dstgo/dst/sched.(*Mutex).Lock", true},
		{"/m/sched/context/context.go", "github.com/dstgo/dst/sched/context.WithCancel", true},
		{"/m/chans/chan.go", "github.com/dstgo/dst/chans.(*Chan[go.shape.int]).Send", true},
		{"/m/sched/mutex_test.go", "github.com/dstgo/dst/sched_test.TestX", false}, // tests are user code
		{"/m/sched/mutex_test.go", "github.com/dstgo/dst/sched.TestX", false},      // internal tests too
		{"/m/examples/bank/bank.go", "github.com/dstgo/dst/examples/bank.Transfer", false},
		// A package of the user's inside this module, or a module nested in its directory.
		{"/m/mytry/cache.go", "github.com/dstgo/dst/mytry.(*Cache).Get", false},
		{"/m/nested/cache.go", "example.com/nested.(*Cache).Get", false},
		{"/m/schedx/x.go", "github.com/dstgo/dst/schedx.F", false},
		{"/home/u/project/service.go", "example.com/service.Handle", false},
		{"/home/u/project/service.go", "example.com/service.Map[...]", false},
		{"/home/u/project/service.go", "example.com/service.F[github.com/dstgo/dst/sched.Mutex]", false},
		{"/usr/local/go/src/runtime/proc.go", "runtime.goexit", true},
		{"/usr/local/go/src/iter/iter.go", "iter.Pull[go.shape.struct {}].func1", true},
		{"/usr/local/go/src/net/http/server.go", "net/http.(*Server).Serve", false},
	}
	for _, c := range cases {
		if got := ours(c.file, c.fn); got != c.want {
			t.Errorf("ours(%q, %q) = %v, want %v", c.file, c.fn, got, c.want)
		}
	}
	if ours(self, "github.com/dstgo/dst/internal/engine.TestOursSkipsToolFrames") {
		t.Errorf("this test file counts as the tool's own code")
	}
	if enginePrefix != "github.com/dstgo/dst/internal/engine." {
		t.Errorf("enginePrefix %q", enginePrefix)
	}
}

func TestRemoveKeepsOrder(t *testing.T) {
	a, b, c := &G{ID: 1}, &G{ID: 2}, &G{ID: 3}
	s := remove([]*G{a, b, c}, b)
	if len(s) != 2 || s[0] != a || s[1] != c {
		t.Fatalf("remove middle: %v", s)
	}
	if s = remove(s, b); len(s) != 2 {
		t.Fatal("removing an absent element changed the slice")
	}
	if s = remove(s, c); len(s) != 1 || s[0] != a {
		t.Fatal("remove last")
	}
}

func TestWakeKeepsRunnableSorted(t *testing.T) {
	r := &Run{}
	var gs []*G
	for i := range 5 {
		g := &G{ID: i + 1, run: r, state: gBlocked}
		gs = append(gs, g)
	}
	r.gs = gs
	for _, i := range []int{3, 0, 4, 1, 2} {
		r.wake(gs[i])
	}
	r.wake(gs[2]) // already runnable: no duplicate
	if len(r.runnable) != 5 {
		t.Fatalf("runnable has %d entries", len(r.runnable))
	}
	for i := range r.runnable {
		if g := r.runnableAt(i); g.ID != i+1 {
			t.Fatalf("runnable not sorted by ID: rank %d holds %d", i, g.ID)
		}
	}
	checkIndexes(t, r)
	for _, i := range []int{2, 0, 4} {
		r.removeRunnable(gs[i])
		gs[i].state = gBlocked
		checkIndexes(t, r)
	}
	r.removeRunnable(gs[0]) // not runnable: nothing happens
	if len(r.runnable) != 2 || r.runnableAt(0) != gs[1] || r.runnableAt(1) != gs[3] {
		t.Fatalf("after removals: %v", r.runnable)
	}
	r.wake(gs[2])
	checkIndexes(t, r)
}

// checkIndexes checks that every runnable goroutine knows its index, and
// its rank in ID order.
func checkIndexes(t *testing.T, r *Run) {
	t.Helper()
	for i, g := range r.runnable {
		if g.ri != i {
			t.Fatalf("goroutine %d at index %d has ri %d", g.ID, i, g.ri)
		}
		if k := r.indexOf(g); r.runnableAt(k) != g {
			t.Fatalf("goroutine %d has rank %d, which holds %d", g.ID, k, r.runnableAt(k).ID)
		}
	}
}

func TestLocationString(t *testing.T) {
	l := Location{Func: "github.com/x/y.(*T).M", File: "/a/b/c.go", Line: 12}
	if got := l.String(); got != "c.go:12 (y.(*T).M)" {
		t.Errorf("got %q", got)
	}
	if got := (Location{}).String(); got != "?" {
		t.Errorf("empty location %q", got)
	}
}

func TestSignature(t *testing.T) {
	// A failure with a place is told by its kind and place alone.
	a := &Failure{Kind: TestFailed, Place: "x_test.go:144", Message: "goroutine 1: leaked reference: backup b1 is referenced by 2 rows"}
	b := &Failure{Kind: TestFailed, Place: "x_test.go:144", Message: "goroutine 3: returned 499ms after the shutdown at 1.001s"}
	c := &Failure{Kind: TestFailed, Place: "x_test.go:110", Message: a.Message}
	if a.Signature() != b.Signature() {
		t.Errorf("one place, two signatures: %q, %q", a.Signature(), b.Signature())
	}
	if a.Signature() == c.Signature() {
		t.Errorf("two places, one signature: %q", a.Signature())
	}
	if d := (&Failure{Kind: Deadlock, Place: c.Place}); d.Signature() == c.Signature() {
		t.Errorf("two kinds, one signature: %q", d.Signature())
	}
	// Without one, by its message with the numbers dropped.
	e1 := &Failure{Kind: Escape, Message: "escape: goroutine 7 started at x.go:12 outlived the run"}
	e2 := &Failure{Kind: Escape, Message: "escape: goroutine 9 started at x.go:12 outlived the run"}
	if e1.Signature() != e2.Signature() {
		t.Errorf("messages that differ in numbers: %q, %q", e1.Signature(), e2.Signature())
	}
}

// Where names the user's line a failure is read at: the failed check,
// else the user's frame of the failing stack, else the failing goroutine's
// place, one waiting for a held lock, any; never the tool's or GOROOT's.
func TestWhere(t *testing.T) {
	check := Location{Func: "p.TestX", File: "/x/p_test.go", Line: 32}
	user := func(line int) Location { return Location{Func: "p.f", File: "/x/p.go", Line: line} }
	tool := Location{Func: "github.com/dstgo/dst/sched.(*WaitGroup).Wait", File: "/m/dst/sched/waitgroup.go", Line: 9}
	stack := "goroutine 7 [running]:\nruntime/debug.Stack()\n\t" + goroot + "src/runtime/debug/stack.go:26 +0x5e\n" +
		"example.com/p.f(0x3)\n\t/x/p.go:9 +0x1\n"
	for _, c := range []struct {
		name string
		f    Failure
		want Location
		ok   bool
	}{
		{"check", Failure{Kind: TestFailed, Check: check, Stack: stack}, check, true},
		{"stack", Failure{Kind: Panic, Stack: stack}, Location{Func: "example.com/p.f", File: "/x/p.go", Line: 9}, true},
		{"failing goroutine", Failure{Kind: Leak, G: 2, Goroutines: []GState{{ID: 1, At: user(1)}, {ID: 2, At: user(2)}}}, user(2), true},
		{"held lock", Failure{Kind: Deadlock, Goroutines: []GState{{ID: 1, At: user(1)}, {ID: 2, At: user(2), Holder: 3}}}, user(2), true},
		{"any", Failure{Kind: Deadlock, Goroutines: []GState{{ID: 1, At: tool}, {ID: 2, At: user(5)}}}, user(5), true},
		{"none", Failure{Kind: Deadlock, Goroutines: []GState{{ID: 1, At: tool}, {ID: 2}}}, Location{}, false},
	} {
		if got, ok := c.f.Where(); got != c.want || ok != c.ok {
			t.Errorf("%s: Where = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// A panic is placed at the user's frame that raised it, past the frames of
// the deferred call that captured the stack and of the runtime.
func TestPanicPlace(t *testing.T) {
	stack := "goroutine 7 [running]:\nruntime/debug.Stack()\n\t" + goroot + "src/runtime/debug/stack.go:26 +0x5e\n" +
		"panic({0x1})\n\t" + goroot + "src/runtime/panic.go:860 +0x13a\nexample.com/p.f(0x3)\n\t/x/p.go:9 +0x1\n" +
		"example.com/p.g()\n\t/x/p.go:20 +0x1\n"
	if got, want := panicPlace(stack), "p.f p.go:9"; got != want {
		t.Errorf("panicPlace = %q, want %q", got, want)
	}
}

// TestUserStack checks what a report shows of a panicking goroutine's
// stack: from the panic to the goroutine's own function, without the
// deferred call that captured it, the scheduler's frames below, or the
// "created by iter.Pull" line; a watchdog's stack keeps its header.
func TestUserStack(t *testing.T) {
	const captured = `goroutine 14 [running]:
runtime/debug.Stack()
	/go/src/runtime/debug/stack.go:26 +0x5e
github.com/dstgo/dst/sched.(*WaitGroup).Go.func1.1()
	/m/sched/waitgroup.go:63 +0x51
panic({0x5a5820?, 0x75a0b0?})
	/go/src/runtime/panic.go:860 +0x13a
example.com/app.store(...)
	/app/store.go:17
example.com/app.TestX.func1.1()
	/app/store_test.go:30 +0x28
github.com/dstgo/dst/sched.(*WaitGroup).Go.func1()
	/m/sched/waitgroup.go:67 +0x4a
github.com/dstgo/dst/internal/engine.(*Run).start(0x27d67d672908, 0x27d67d7501b0, 0x27d67d682180)
	/m/internal/engine/run.go:338 +0xa2
github.com/dstgo/dst/internal/engine.(*Run).spawn.func1(0x0?)
	/m/internal/engine/coro.go:85 +0x65
iter.Pull[...].func1()
	/go/src/iter/iter.go:301 +0xe5
created by iter.Pull[...] in goroutine 13
	/go/src/iter/iter.go:271 +0x90
`
	// Without what changes from run to run: arguments, offsets.
	want := `panic(...)
	/go/src/runtime/panic.go:860
example.com/app.store(...)
	/app/store.go:17
example.com/app.TestX.func1.1()
	/app/store_test.go:30
`
	if got := userStack(captured, true); got != want {
		t.Errorf("userStack(panic) =\n%s\nwant\n%s", got, want)
	}
	stuck := "goroutine 9 [chan receive]:\nexample.com/app.wait()\n\t/app/w.go:5 +0x1\n" +
		"github.com/dstgo/dst/internal/engine.(*Run).start(0x1)\n\t/m/internal/engine/run.go:338 +0xa2\n" +
		"created by iter.Pull[...] in goroutine 3\n\t/go/src/iter/iter.go:271 +0x90\n"
	if got, want := userStack(stuck, false), "goroutine 9 [chan receive]:\nexample.com/app.wait()\n\t/app/w.go:5\n"; got != want {
		t.Errorf("userStack(watchdog) =\n%s\nwant\n%s", got, want)
	}
	// A shim that panics as a goroutine's own function stays in view.
	shim := "goroutine 5 [running]:\nruntime/debug.Stack()\n\t/go/stack.go:26\npanic({0x1})\n\t/go/panic.go:1\n" +
		"github.com/dstgo/dst/sched.(*Mutex).Unlock(0x1)\n\t/m/sched/mutex.go:50 +0x1\n" +
		"github.com/dstgo/dst/internal/engine.(*Run).start(0x1)\n\t/m/internal/engine/run.go:338 +0xa2\n"
	if got, want := userStack(shim, true), "panic(...)\n\t/go/panic.go:1\ngithub.com/dstgo/dst/sched.(*Mutex).Unlock(...)\n\t/m/sched/mutex.go:50\n"; got != want {
		t.Errorf("userStack(shim) =\n%s\nwant\n%s", got, want)
	}
	// A stack with nothing of the user's is shown whole.
	only := "goroutine 9 [running]:\ngithub.com/dstgo/dst/internal/engine.(*Run).start()\n\t/m/run.go:1\n"
	if got := userStack(only, false); got != only {
		t.Errorf("userStack(scheduler only) = %q, want it unchanged", got)
	}
	// The runtime's frames that raised a panic differ with the build
	// (-race): they go, and the function that made the fault stays.
	nilMap := "goroutine 7 [running]:\npanic({0x1})\n\t/go/panic.go:1 +0x1\n" +
		"runtime.mapassign_faststr(0x1, 0x2)\n\t/go/map.go:9 +0x3\nexample.com/app.put(0xc0001, {0x5, 0x1})\n\t/app/put.go:3 +0x2\n" +
		"created by example.com/app.Start in goroutine 12\n\t/app/start.go:8 +0x4\n"
	if got, want := userStack(nilMap, true), "panic(...)\n\t/go/panic.go:1\nexample.com/app.put(...)\n\t/app/put.go:3\n"+
		"created by example.com/app.Start\n\t/app/start.go:8\n"; got != want {
		t.Errorf("userStack(nil map) =\n%s\nwant\n%s", got, want)
	}
}

// TestObjRunning: an object bound to a run finds the run's running
// goroutine when that goroutine asks, and nothing for anyone else.
func TestObjRunning(t *testing.T) {
	var o Obj
	if o.Running() != nil {
		t.Error("an unbound object found a goroutine")
	}
	var found, current *G
	Execute(Config{}, func() {
		current = Current()
		o.Bind(current, KindMutex)
		found = o.Running()
	})
	if found == nil || found != current {
		t.Errorf("in the run, Running = %v, want the body %v", found, current)
	}
	if g := o.Running(); g != nil {
		t.Errorf("outside the run, Running = goroutine %d, want nil", g.ID)
	}
}

// A frame of the user's is neither the tool's nor the standard library's,
// whatever the user's module is called ("go mod init myapp" has no dot).
func TestUserFrame(t *testing.T) {
	std := filepath.Join(runtime.GOROOT(), "src", "time", "sleep.go")
	for _, c := range []struct {
		fn, file string
		want     bool
	}{
		{"time.Sleep(0x1)", std, false},
		{"myapp/store.(*S).Get(...)", "/home/u/myapp/store/s.go", true},
		{"main.main()", "/home/u/myapp/main.go", true},
		{"example.com/m.F()", "/src/m/f.go", true},
		{"github.com/dstgo/dst/sched.(*Mutex).Lock(...)", moduleRoot + "sched/mutex.go", false},
	} {
		_, got := userFrame([]string{c.fn, "\t" + c.file + ":12 +0x1"})
		if got != c.want {
			t.Errorf("userFrame(%s at %s) = %v, want %v", c.fn, c.file, got, c.want)
		}
	}
}
