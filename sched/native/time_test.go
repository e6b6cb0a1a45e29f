package native_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
)

// The virtual clock as code written for real time sees it, the bodies
// written as dstreplay test rewrites such code.

// run explores body for a few schedules of each strategy (of strategies,
// when given) and fails t on the first failure; then it checks that each
// schedule runs the same twice.
func run(t *testing.T, body func(*schedtest.T), strategies ...string) {
	t.Helper()
	if strategies == nil {
		strategies = []string{"random", "pct", "pos"}
	}
	for _, strategy := range strategies {
		opts := schedtest.Options{Seed: 1, Strategy: strategy, Iterations: 20}
		res, err := schedtest.Explore(opts, body)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil {
			t.Fatalf("%s, schedule %d: %v", strategy, res.Schedule, res.Failure)
		}
		opts.Iterations = 5
		if err := schedtest.Check(opts, body); err != nil {
			t.Fatalf("%s: %v", strategy, err)
		}
	}
}

// TestNowReadingsIncrease: two readings of time.Now are never equal, and a
// deadline computed from a reading has passed once a sleep of its length
// is over (a circuit breaker checks expiry.Before(now)), as in Go.
//
//	a, b := time.Now(), time.Now()
//	expiry := time.Now().Add(d); time.Sleep(d); expiry.Before(time.Now())
//	tick := time.NewTicker(5 * time.Millisecond); start := time.Now(); <-tick.C; <-tick.C; time.Since(start) >= 10*time.Millisecond
func TestNowReadingsIncrease(t *testing.T) {
	run(t, func(t *schedtest.T) {
		prev := native.Now()
		for range 100 {
			now := native.Now()
			if !now.After(prev) {
				t.Fatalf("time.Now() = %v after %v", now, prev)
			}
			if gap := now.Sub(prev); gap > time.Microsecond {
				t.Fatalf("%v passed between two readings, want at most 1µs", gap)
			}
			prev = now
		}
		if d := native.Since(prev); d <= 0 {
			t.Errorf("time.Since(the last reading) = %v", d)
		}
		const interval = 60 * time.Second
		expiry := native.Now().Add(interval)
		native.Sleep(interval)
		if now := native.Now(); !expiry.Before(now) {
			t.Errorf("after sleeping the interval, expiry %v is not before now %v", expiry, now)
		}
		if d := native.Until(expiry); d >= 0 {
			t.Errorf("time.Until(expiry) = %v after it", d)
		}
		// A reading after waiting for two ticks is at least two periods
		// after one taken once the ticker started (Go's timers wake late).
		tick := native.NewTicker(5 * time.Millisecond)
		start := native.Now()
		native.Recv(tick.C)
		native.Recv(tick.C)
		if d := native.Since(start); d < 10*time.Millisecond {
			t.Errorf("two ticks of 5ms took %v", d)
		}
		native.TickerStop(tick)
	})
}

// TestNowGapsAreReal: between two readings of time.Now as much time passes
// as in Go on a fast machine, tens of nanoseconds (49ns at least, 60ns in
// the median, on the 2-core AMD EPYC VM that measured it), so an item of
// jellydator/ttlcache with a TTL of 1ns has expired at the next check. The
// gaps were 1 to 100ns, and the check found the item unexpired when the
// gap was 1ns.
//
//	expiresAt := time.Now().Add(time.Nanosecond); expiresAt.Before(time.Now())
func TestNowGapsAreReal(t *testing.T) {
	run(t, func(t *schedtest.T) {
		for range 200 {
			a, b := native.Now(), native.Now()
			if gap := b.Sub(a); gap < 20*time.Nanosecond {
				t.Fatalf("%v passed between two readings, want at least 20ns, as on a fast machine", gap)
			}
			expiresAt := b.Add(time.Nanosecond)
			if now := native.Now(); !expiresAt.Before(now) {
				t.Fatalf("an expiry 1ns after a reading, %v, is not before the next reading, %v", expiresAt, now)
			}
		}
	})
}

// TestPollWhileSleeping: a worker busy-polls a stop channel while the test
// sleeps, then stops it. In Go time passes while the worker spins and the
// sleeper wakes; the run used to spin until its step bound (a livelock).
//
//	go func() { for { select { case <-stop: close(done); return; default: } } }()
//	time.Sleep(10 * time.Millisecond)
//	close(stop); <-done
func TestPollWhileSleeping(t *testing.T) {
	run(t, func(t *schedtest.T) {
		stop, done := native.Make[chan struct{}](0), native.Make[chan struct{}](0)
		native.Go(func() {
			for {
				if native.Select(native.CaseRecv(stop, nil, nil), native.Default()) == 0 {
					native.Close(done)
					return
				}
			}
		})
		start := native.Now()
		native.Sleep(10 * time.Millisecond)
		if d := native.Since(start); d < 10*time.Millisecond {
			t.Errorf("slept %v, want at least 10ms", d)
		}
		native.Close(stop)
		native.Recv(done)
	})
}

// TestPollUntilTimePassed: a loop that polls the clock until some time has
// passed ends, as in Go.
//
//	start := time.Now()
//	for time.Since(start) < 5*time.Millisecond { runtime.Gosched() }
func TestPollUntilTimePassed(t *testing.T) {
	run(t, func(t *schedtest.T) {
		start := native.Now()
		for native.Since(start) < 5*time.Millisecond {
			sched.Yield()
		}
		if d := native.Since(start); d > 20*time.Millisecond {
			t.Errorf("the loop ended %v after it started: time passed in steps too large", d)
		}
	})
}

// nativeWork is how long the goroutine of nativeTimeout sits in a child
// process; a variable so that TestNativeTimeReplays can replay without it.
var nativeWork = "0.3"

// nativeTimeout: the body waits for the child process with a timeout of
// 50ms, in a goroutine; the child process takes 300ms.
//
//	res := make(chan string, 1)
//	go func() { select { case <-done: res <- "done"; case <-time.After(50 * time.Millisecond): res <- "timeout" } }()
//	time.Sleep(time.Millisecond) // the waiter is in its select
//	exec.Command("sleep", "0.3").Run()
//	close(done)
func nativeTimeout(t *schedtest.T) {
	done, res := native.Make[chan struct{}](0), native.Make[chan string](1)
	native.Go(func() {
		if native.Select(native.CaseRecv(done, nil, nil), native.CaseRecv(native.After(50*time.Millisecond), nil, nil)) == 0 {
			native.To(res).Send("done")
		} else {
			native.To(res).Send("timeout")
		}
	})
	native.Sleep(time.Millisecond)
	if nativeWork != "" {
		if err := exec.Command("sleep", nativeWork).Run(); err != nil {
			t.Fatal(err)
		}
	}
	native.Close(done)
	if got := native.Recv(res); got != "timeout" {
		t.Errorf("the waiter got %q, want the timeout: the child process took longer", got)
	}
}

func needSleep(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command:", err)
	}
}

// TestNativeWorkLetsTimeoutFire: while a managed goroutine waits for a
// child process, time passes for the others: the timeout fires.
func TestNativeWorkLetsTimeoutFire(t *testing.T) {
	needSleep(t)
	for _, strategy := range []string{"random", "pct"} {
		res, err := schedtest.Run(schedtest.Options{Seed: 1, Strategy: strategy, Iterations: 2}, nativeTimeout)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil {
			t.Fatalf("%s: %v", strategy, res.Failure)
		}
	}
}

// TestNativeTimeReplays: the time a run measured in native work is in its
// recording, and a replay takes it from there: the replay makes the same
// trace byte for byte, and fails the same way, without sitting in the child
// process at all.
func TestNativeTimeReplays(t *testing.T) {
	needSleep(t)
	opts := schedtest.Options{Seed: 1, Record: true}
	res, err := schedtest.Run(opts, nativeTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatal(res.Failure)
	}
	want := traceBytes(t, res)

	defer func(w string) { nativeWork = w }(nativeWork)
	nativeWork = ""
	opts.Recording = res.Recording
	again, err := schedtest.Run(opts, nativeTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if again.Failure != nil {
		t.Fatalf("replayed without the child process: %v", again.Failure)
	}
	if got := traceBytes(t, again); !bytes.Equal(got, want) {
		t.Errorf("the replay's trace differs from the run's")
	}
	// A fresh run with the same seed and no native work: no time passes
	// and the waiter does not time out.
	opts.Recording = nil
	fresh, err := schedtest.Run(opts, nativeTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Failure == nil {
		t.Errorf("a fresh run without the child process timed out")
	}
}

func traceBytes(t *testing.T, res *schedtest.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := trace.Write(&b, &trace.Header{Test: "native"}, res.Trace, &trace.Outcome{Kind: "any"}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWorkKeepsTimeoutsAway: time passes while goroutines only poll, never
// while one works: a worker that takes a lock thousands of times (polling
// a quit channel each time) while another goroutine polls for its result
// finishes before a timeout of 2ms (Go takes some 100µs), in every schedule,
// the strategy starving the worker or not. (Not under POS, which lets a
// goroutine that polls without yielding starve the others for good.)
//
//	timeout := time.After(2 * time.Millisecond)
//	go func() {
//		for range 2000 {
//			select { case <-quit: return; default: }
//			mu.Lock(); n++; mu.Unlock()
//		}
//		close(done)
//	}()
//	go func() { for { select { case <-done: return; default: } } }()
//	select { case <-done: case <-timeout: t.Error(...) }
func TestWorkKeepsTimeoutsAway(t *testing.T) {
	run(t, func(t *schedtest.T) {
		timeout := native.After(2 * time.Millisecond)
		done := native.Make[chan struct{}](0)
		var mu sched.Mutex
		n := 0
		quit := native.Make[chan struct{}](0)
		native.Go(func() {
			for range 2000 {
				if native.Select(native.CaseRecv(quit, nil, nil), native.Default()) == 0 {
					return
				}
				mu.Lock()
				n++
				mu.Unlock()
			}
			native.Close(done)
		})
		native.Go(func() {
			for native.Select(native.CaseRecv(done, nil, nil), native.Default()) != 0 {
			}
		})
		if native.Select(native.CaseRecv(done, nil, nil), native.CaseRecv(timeout, nil, nil)) != 0 {
			t.Errorf("timed out after %d of 2000 locked increments", n)
		}
	}, "random", "pct")
}

// clockBody exercises every way the clock moves but native work: timers,
// a ticker and sleeps; goroutines polling in three ways while others sleep
// or work; readings.
func clockBody(t *schedtest.T) {
	stop, done := native.Make[chan struct{}](0), native.Make[chan struct{}](0)
	var mu sched.Mutex
	n := 0
	for i := range 3 {
		native.Go(func() {
			for native.Select(native.CaseRecv(stop, nil, nil), native.Default()) != 0 {
				switch i {
				case 1:
					sched.Yield()
				case 2:
					native.Sleep(0)
				}
			}
			native.To(done).Send(struct{}{})
		})
	}
	native.Go(func() {
		for range 100 {
			mu.Lock()
			n++
			mu.Unlock()
		}
	})
	tick := native.NewTicker(3 * time.Millisecond)
	deadline := native.After(20 * time.Millisecond)
	for native.Select(native.CaseRecv(deadline, nil, nil), native.CaseRecv(tick.C, nil, nil)) != 0 {
		native.Now()
		native.Sleep(time.Millisecond)
	}
	native.TickerStop(tick)
	native.Close(stop)
	for range 3 {
		native.Recv(done)
	}
	mu.Lock()
	t.Log(native.Now(), n)
	mu.Unlock()
}

// clockDigests runs clockBody for a few strategies and seeds and returns,
// per run, a digest of its recording, its trace and its outcome.
func clockDigests(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, strategy := range []string{"random", "pct", "pos"} {
		for _, seed := range []uint64{1, 2, 0xfeed} {
			res, err := schedtest.Run(schedtest.Options{Seed: seed, Strategy: strategy, Record: true}, clockBody)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure != nil {
				t.Fatalf("%s seed %#x: %v", strategy, seed, res.Failure)
			}
			rec, err := res.Recording.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(append(append(rec, traceBytes(t, res)...), fmt.Sprint(res.Steps, res.Logs)...))
			out = append(out, fmt.Sprintf("%s/%#x %x", strategy, seed, sum[:8]))
		}
	}
	return out
}

// TestChildClockDigests prints digests for TestClockDeterminism.
func TestChildClockDigests(t *testing.T) {
	if os.Getenv("DST_CHILD") != "clock" {
		t.Skip("run by TestClockDeterminism")
	}
	for _, d := range clockDigests(t) {
		fmt.Println("digest", d)
	}
}

// TestClockDeterminism: the same seed makes the same run, clock included,
// byte for byte: again and again, at GOMAXPROCS 1 and 4, and, when the
// tests run without -race, in a -race build at GOMAXPROCS 1 and 2.
func TestClockDeterminism(t *testing.T) {
	var want []string
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		for range 5 {
			got := clockDigests(t)
			if want == nil {
				want = got
			} else if !slices.Equal(got, want) {
				runtime.GOMAXPROCS(prev)
				t.Fatalf("GOMAXPROCS %d: the runs differ:\n got %q\nwant %q", procs, got, want)
			}
		}
		runtime.GOMAXPROCS(prev)
	}
	if engine.RaceEnabled || testing.Short() {
		return
	}
	for _, procs := range []string{"1", "2"} {
		cmd := exec.Command("go", "test", "-race", "-count=1", "-v", "-run=^TestChildClockDigests$", ".")
		cmd.Env = append(os.Environ(), "DST_CHILD=clock", "GOMAXPROCS="+procs)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("-race, GOMAXPROCS %s: %v\n%s", procs, err, out)
		}
		var got []string
		for _, line := range strings.Split(string(out), "\n") {
			if d, ok := strings.CutPrefix(line, "digest "); ok {
				got = append(got, d)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("-race, GOMAXPROCS %s: the runs differ from this build's:\n got %q\nwant %q", procs, got, want)
		}
	}
}

// timeHooked reports whether this test binary's package time hands Stop
// and Reset of a run's timers to package native
// (internal/rewrite/timesim.go). internal/rewrite's TestTimeHooks runs
// these tests with the hooks, and sets DST_TIME_HOOKED=1: then they must
// be there.
func timeHooked(t *testing.T) bool {
	_, ok := any((*time.Timer)(nil)).(interface{ DstreplayTimerHook(any) })
	if !ok && os.Getenv("DST_TIME_HOOKED") == "1" {
		t.Fatal("DST_TIME_HOOKED=1, but package time has no hooks")
	}
	return ok
}

// TestTimerThroughAnInterface: with the hooks, a run's timer or ticker
// stopped or reset through an interface (grpc-go keeps its streams'
// deadline timers as an interface with Stop) acts on the virtual timer it
// stands for. Regression: Go's own Stop panicked, "Stop called on
// uninitialized Timer". A timer no run made is still Go's.
func TestTimerThroughAnInterface(t *testing.T) {
	if !timeHooked(t) {
		t.Skip("package time has no hooks here: Go's Stop refuses a run's timer")
	}
	type stopper interface{ Stop() bool }
	type resetter interface{ Reset(time.Duration) bool }
	type ticker interface {
		Stop()
		Reset(time.Duration)
	}
	fired, ticks := 0, 0
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		var s stopper = native.AfterFunc(time.Hour, func() { fired++ })
		if !s.Stop() {
			st.Error("Stop of a pending AfterFunc through an interface returned false")
		}
		tm := native.NewTimer(time.Hour)
		var r resetter = tm
		if !r.Reset(time.Millisecond) {
			st.Error("Reset of a pending timer through an interface returned false")
		}
		start := native.Now()
		native.Recv(tm.C)
		if waited := native.Since(start); waited > time.Second {
			st.Errorf("the timer reset to 1ms fired after %v", waited)
		}
		tk := native.NewTicker(time.Hour)
		var k ticker = tk
		k.Reset(time.Millisecond)
		native.Recv(tk.C)
		ticks++
		k.Stop()
		native.Sleep(2 * time.Hour)
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if fired != 0 || ticks != 1 {
		t.Errorf("the stopped AfterFunc fired %d times; the ticker ticked %d times, want 1", fired, ticks)
	}
	var s stopper = time.NewTimer(time.Hour) // Go's own
	if !s.Stop() {
		t.Error("Go's own timer, stopped through an interface, was not pending")
	}
}
