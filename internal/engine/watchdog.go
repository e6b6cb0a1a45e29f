package engine

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// watchState is the watchdog's: owned by the watchdog goroutine, except
// what it shares atomically.
type watchState struct {
	wdProgress     uint64
	wdSince        time.Time
	wdStalled      time.Duration          // how long the goroutine the watchdog gave up on had run
	wdNextLook     time.Time              // when to look at a stalled goroutine's stack again
	wdBlockedLooks int                    // looks in a row that found it blocked outside the scheduler
	spawner        *spawner               // under -race: starts the goroutines of timers
	stallNote      atomic.Pointer[string] // what noteStall noted
	stuck          *G                     // the goroutine the watchdog gave up on
	gone           chan struct{}          // closed when the running goroutine of an abandoned run exits
	goneOnce       sync.Once
	reporting      atomic.Bool // the engine reads every goroutine's stack for a report: not the goroutine's time
}

// One watchdog goroutine per process watches every run in progress, and
// only while there is one: it exits after a tick with no run. A run does not
// arm a timer of its own because a pending runtime timer makes every
// goroutine switch on its P read the clock, which costs about a sixth of a
// scheduling decision. On Linux the watchdog waits on a timerfd through the
// netpoller, so no runtime timer is pending at all (see ticker_linux.go).

// watchPeriod is the watchdog's resolution: a run is abandoned between
// Config.Watchdog and Config.Watchdog+watchPeriod after its last progress.
const watchPeriod = 25 * time.Millisecond

var watchdog struct {
	mu      sync.Mutex
	running bool
	busy    bool // a run started since the last tick
}

// watch makes sure the watchdog runs while r does.
func watch(r *Run) {
	if r.cfg.Watchdog <= 0 {
		return
	}
	startWatchdog()
}

// unwindLimit is how long a deferred call may block an unwinding outside the
// scheduler when the run has no watchdog (a variable for tests).
var unwindLimit = 10 * time.Second

// startWatchdog makes sure the watchdog goroutine runs (for a run without a
// watchdog of its own, to watch its unwinding).
func startWatchdog() {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	watchdog.busy = true
	if !watchdog.running {
		watchdog.running = true
		go watchLoop()
	}
}

func watchLoop() {
	tick := newTicker(watchPeriod)
	defer tick.stop()
	for {
		tick.wait()
		p := active.Load()
		watchdog.mu.Lock()
		if p == nil && !watchdog.busy {
			watchdog.running = false
			watchdog.mu.Unlock()
			return
		}
		watchdog.busy = false
		watchdog.mu.Unlock()
		if p == nil {
			continue
		}
		now := time.Now()
		for _, r := range *p {
			r.checkProgress(now)
		}
	}
}

// checkProgress fires the watchdog for r when its running goroutine has not
// reached a scheduling point for r.cfg.Watchdog.
//
//go:norace
func (r *Run) checkProgress(now time.Time) {
	r.watchNative(now) // time spent in native work (nativetime.go)
	limit := r.cfg.Watchdog
	if coroutines && limit <= 0 && r.unwinding.Load() {
		limit = unwindLimit
	}
	if limit <= 0 || coroutines && r.rescuing.Load() {
		return
	}
	if p := r.progress; p != r.wdProgress || r.wdSince.IsZero() || r.reporting.Load() {
		r.wdProgress, r.wdSince = p, now
		r.wdNextLook, r.wdBlockedLooks = time.Time{}, 0
		return
	}
	stalled := now.Sub(r.wdSince)
	if stalled >= limit {
		if now.Before(r.wdNextLook) {
			return // found computing a moment ago: a look reads every goroutine's stack
		}
		longer := stalled < computeLimit*limit
		switch where := r.stallPlace(); {
		case where == inScheduler && !watchScheduler && longer:
			// The turn is in the scheduler's hands (a handoff or an
			// unwinding under way, slow with the runtime's work for tens
			// of thousands of goroutines), not in the code under test.
			r.wdNextLook, r.wdBlockedLooks = now.Add(lookAgain(limit)), 0
			return
		case where == computing && longer:
			// It runs, or waits for a CPU or the garbage collector:
			// computing, slowly on a loaded machine, or spinning.
			// Computing gets longer than a wait outside the scheduler,
			// which no amount of time ends.
			r.wdNextLook, r.wdBlockedLooks = now.Add(lookAgain(limit)), 0
			return
		case where == inUserCode && longer && r.wdBlockedLooks == 0:
			// Blocked at one look: computing code passes through short
			// waits too (a system call, a lock of the runtime's). The next
			// look decides.
			r.wdBlockedLooks++
			return
		}
		r.wdStalled = stalled
		r.fireWatchdog()
		return
	}
	if stalled >= stallNotice && r.stallNote.Load() == nil && !r.unwinding.Load() {
		r.noteStall(stalled)
	}
}

// computeLimit is how many times the watchdog's limit a goroutine that
// runs, or is runnable, gets before the watchdog gives up on it (12: a
// minute at the default 5 seconds). Code that computes for seconds (a cache
// allocating its shards, a test filling a million entries) is not blocked,
// and on a loaded machine, or under -race, it takes several times as long
// as alone; a goroutine that is blocked outside the scheduler shows it in
// its state at once.
const computeLimit = 12

// lookAgain is how long after finding a stalled goroutine computing (or
// the scheduler at work) the watchdog looks at its stack again.
func lookAgain(limit time.Duration) time.Duration { return max(watchPeriod, min(time.Second, limit/5)) }

// Where a run's current goroutine is, for the watchdog.
const (
	inUserCode  = iota // blocked in the code under test (or the standard library it calls)
	inScheduler        // the run's home, not started or gone, or in the engine's own frames
	computing          // in the code under test, not blocked (running, runnable, waiting for the GC)
)

// stallPlace reads the stack of the run's current goroutine and says where
// it is: inScheduler when it is the run's home, it has not started, or it
// has left, or the innermost frame of its stack that is not the runtime's
// is the engine's (a switch, an exit under way); computing when it is in
// the user's code (or the standard library called from it) and not blocked
// outside the scheduler (nativeBlocked: running, runnable, preempted,
// waiting for the garbage collector); inUserCode otherwise.
//
//go:norace
func (r *Run) stallPlace() int {
	g := r.cur
	if g == nil || g == &r.home || g.goid == 0 {
		return inScheduler
	}
	stack := goroutineStack(g.goid)
	_, frames := splitFrames(stack)
	for _, fr := range frames {
		fn, file, _, ok := parseFrame(fr)
		if !ok {
			continue
		}
		if p := funcPackage(fn); p == "runtime" || p == "iter" {
			continue
		}
		if strings.HasPrefix(fn, enginePrefix) && !strings.HasSuffix(file, "_test.go") {
			return inScheduler
		}
		if !nativeBlocked(stack) {
			return computing // running, runnable, preempted, or waiting for the garbage collector
		}
		return inUserCode
	}
	return inScheduler // gone: it has left
}

// watchScheduler makes the watchdog give up on a run whose turn is in the
// scheduler's hands too, for tests of what happens then.
var watchScheduler = false

// stallNotice is how long a goroutine may run without reaching a
// scheduling point before its run notes it (Outcome.Stall), well before the
// watchdog gives up on it.
const stallNotice = 200 * time.Millisecond

// noteStall notes, once per run, that its running goroutine has not reached
// a scheduling point for d: what state the runtime says it is in, and
// where in the user's code.
//
//go:norace
func (r *Run) noteStall(d time.Duration) {
	g, p := r.cur, r.progress
	if g == nil || g == &r.home {
		return
	}
	header, frames := splitFrames(goroutineStack(g.goid))
	if r.progress != p || r.cur != g {
		return // it reached a scheduling point meanwhile: the stack is not the stall's
	}
	state := ""
	if i, j := strings.IndexByte(header, '['), strings.LastIndexByte(header, ']'); i >= 0 && j > i {
		state = header[i+1 : j]
	}
	where := ""
	if c := calledAt(frames); c != "" {
		where = ", in " + c
	} else if l := firstUser(frames); l != nil {
		where = ", at " + l.String()
	}
	note := fmt.Sprintf("goroutine %d ran for at least %v without reaching a scheduling point, in state %q%s: "+
		"blocking outside the scheduler (time.Sleep, I/O, a plain channel or sync lock) makes runs slow, and "+
		"nondeterministic when another goroutine ends the wait; use the shims for what blocks",
		g.ID, d.Round(time.Millisecond), state, where)
	r.stallNote.CompareAndSwap(nil, &note)
}

// userFrame parses a frame of a stack (its function line, its file line)
// and reports whether it is the user's: neither the tool's nor the standard
// library's.
func userFrame(fr []string) (Location, bool) {
	fn, file, line, ok := parseFrame(fr)
	if !ok || ours(file, fn) || inGOROOT(file) {
		return Location{}, false
	}
	return Location{Func: fn, File: file, Line: line}, true
}

// parseFrame reads a frame of a stack as splitFrames gives it: its
// function without the arguments, and its file and line. ok is false for a
// "created by" frame or one without its location.
func parseFrame(fr []string) (fn, file string, line int, ok bool) {
	if len(fr) < 2 || strings.HasPrefix(fr[0], "created by ") {
		return "", "", 0, false
	}
	fn = fr[0]
	if i := strings.LastIndexByte(fn, '('); i > 0 {
		fn = fn[:i]
	}
	file, at, _ := strings.Cut(strings.TrimSpace(fr[1]), " ")
	if i := strings.LastIndexByte(file, ':'); i > 0 {
		file, at = file[:i], file[i+1:]
	}
	line, err := strconv.Atoi(at)
	return fn, file, line, err == nil
}

// goroot is where the standard library's files are, as the stacks name
// them: the toolchain's GOROOT, or none when built with -trimpath.
var goroot = func() string {
	if r := runtime.GOROOT(); r != "" {
		return filepath.ToSlash(filepath.Clean(r)) + "/"
	}
	return ""
}()

// inGOROOT reports whether file is a file of the standard library. With
// -trimpath, file names are import paths, and a standard library's has no
// dot in its first element.
func inGOROOT(file string) bool {
	if goroot != "" && strings.HasPrefix(filepath.ToSlash(file), goroot) {
		return true
	}
	if filepath.IsAbs(file) {
		return false
	}
	first, _, _ := strings.Cut(filepath.ToSlash(file), "/")
	return !strings.Contains(first, ".")
}

// ticker wakes the watchdog every period.
type ticker interface {
	wait()
	stop()
}

type timeTicker struct{ t *time.Ticker }

func (t timeTicker) wait() { <-t.t.C }
func (t timeTicker) stop() { t.t.Stop() }
