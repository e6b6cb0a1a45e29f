package engine

import (
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/event"
)

// Time passing while a goroutine sits in native work. A managed goroutine
// that blocks outside the scheduler (a system call, a child process, a
// native channel or lock in code that is not rewritten) keeps the turn, and
// the virtual clock stood still however long it sat there: a timeout that
// another goroutine waited on never fired. Now the watchdog, which looks at
// every run in progress every watchPeriod, measures the real time during
// which the running goroutine has reached no scheduling point while the
// runtime says it is blocked (watchNative), and the clock advances by that
// much at the next scheduling point, where the timers it makes due fire.
//
// Only blocked time counts: a goroutine that computes, or whose thread the
// machine is too loaded to run, is "running" or "runnable" to the runtime,
// and counting that would make a seed's run depend on the machine's load.
//
// Replay. Real durations vary from one execution to the next, so a fresh
// run records each advance in its entropy as two Given values: the step at
// which it happened (keyNativeStep) and its length (keyNativeTime). A
// replay measures nothing: it reads the first step back when the run
// starts, and at that step it reads the length and the next step, and so
// on; once the recording has no step left, a Source that goes on fresh
// (ReplayThen) measures again and records what it measures, and one that
// replays only stays put.
type nativeState struct {
	nativeAt   atomic.Int64 // the step from which Point calls nativePoint: 0 at the start, MaxInt64 when nothing is due
	nativeNs   atomic.Int64 // measured time not yet on the clock
	nativeLive atomic.Bool  // the watchdog measures (a fresh Source, after the replayed advances)
	nativeInit bool         // nativePoint has started
	nativeNext bool         // nativeAt is a replayed advance's step

	// The watchdog's own.
	ntProgress uint64    // the run's progress at its last look
	ntLast     time.Time // when it last looked
	ntStalled  int       // looks in a row without progress
	ntBlocked  bool      // whether the running goroutine was blocked natively at the last check
}

var (
	keyNativeStep = entropy.KeyOf("sched.clock.native.step")
	keyNativeTime = entropy.KeyOf("sched.clock.native.time")
)

// nativeMax bounds an advance read from a recording (a mutated one may hold
// any value).
const nativeMax = 24 * time.Hour

// nativePoint is called by Point from step nativeAt on: the first point
// starts the bookkeeping; later, a replayed advance is due or the watchdog
// measured native time.
//
//go:norace
func (r *Run) nativePoint() {
	if !r.nativeInit {
		r.nativeInit = true
		r.nativeNextStep()
		return
	}
	if r.nativeNext {
		d, _ := r.src.At(keyNativeTime).Recorded()
		r.nativeAdvance(time.Duration(min(d, uint64(nativeMax))))
		r.nativeNextStep()
		return
	}
	r.nativeAt.Store(math.MaxInt64) // before the swap: a measure added after it stores 0 again
	d := r.nativeNs.Swap(0)
	if d <= 0 || r.stopping {
		return
	}
	r.src.At(keyNativeStep).Given(uint64(r.steps))
	r.src.At(keyNativeTime).Given(uint64(d))
	r.nativeAdvance(time.Duration(d))
}

// nativeNextStep reads the step of the next recorded advance, or, when
// there is none, lets the watchdog measure if the Source is fresh.
//
//go:norace
func (r *Run) nativeNextStep() {
	if s, ok := r.src.At(keyNativeStep).Recorded(); ok {
		r.nativeNext = true
		r.nativeAt.Store(int64(min(s, math.MaxInt64)))
		return
	}
	r.nativeNext = false
	r.nativeAt.Store(math.MaxInt64)
	if r.src.Fresh() && r.cfg.Watchdog > 0 {
		r.nativeLive.Store(true)
	}
}

//go:norace
func (r *Run) nativeAdvance(d time.Duration) {
	if d <= 0 {
		return
	}
	r.now = addClamped(r.now, d)
	if r.tr != nil {
		r.tr.AddArgs(event.KindClock, int64(r.steps), 0, int64(r.now), 0, 0)
	}
}

// watchNative is the watchdog's look at r: when the running goroutine has
// reached no scheduling point since the last look and is blocked outside
// the scheduler, the time since the last look is native time for the
// clock. It reads the goroutine's state from its stack, which costs a dump
// of every goroutine's: after the fourth look in a row, only every
// power-of-two look checks again.
//
//go:norace
func (r *Run) watchNative(now time.Time) {
	if !r.nativeLive.Load() || r.abandoned.Load() || r.unwinding.Load() || coroutines && r.rescuing.Load() {
		r.ntLast = time.Time{}
		return
	}
	p, last := r.progress, r.ntLast
	r.ntLast = now
	if p != r.ntProgress || last.IsZero() {
		r.ntProgress, r.ntStalled, r.ntBlocked = p, 0, false
		return
	}
	r.ntStalled++
	if n := r.ntStalled; n <= 4 || n&(n-1) == 0 {
		g := r.cur
		r.ntBlocked = g != nil && g != &r.home && nativeBlocked(goroutineStack(g.goid))
		if r.progress != p || r.cur != g {
			r.ntBlocked = false // it moved on while we looked
		}
	}
	if r.ntBlocked {
		r.nativeNs.Add(int64(now.Sub(last)))
		r.nativeAt.Store(0)
	}
}

// nativeBlocked reports whether the goroutine whose stack this is (as
// runtime.Stack writes it) is blocked outside the scheduler: in a system
// call, waiting for I/O or a child process, asleep, or waiting on a native
// channel or lock, and not parked by the scheduler itself.
func nativeBlocked(stack string) bool {
	header, frames := splitFrames(stack)
	i, j := strings.IndexByte(header, '['), strings.LastIndexByte(header, ']')
	if i < 0 || j < i {
		return false
	}
	state, _, _ := strings.Cut(header[i+1:j], ",") // "[syscall, 2 minutes]"
	switch state {
	case "syscall", "IO wait", "sleep", "chan receive", "chan send", "select", "select (no cases)",
		"chan receive (nil chan)", "chan send (nil chan)", "semacquire", "sync.Mutex.Lock",
		"sync.RWMutex.Lock", "sync.RWMutex.RLock", "sync.WaitGroup.Wait", "sync.Cond.Wait":
	default:
		return false // running, runnable, preempted, waiting for the GC, or in a coroutine switch
	}
	// The innermost frame outside the runtime and package sync says whose
	// wait it is: the scheduler parks goroutines on semaphores too.
	for _, fr := range frames {
		fn, _, _, ok := parseFrame(fr)
		if !ok {
			continue
		}
		switch funcPackage(fn) {
		case "runtime", "sync", "internal/sync", "sync/atomic":
			continue
		}
		return !strings.HasPrefix(fn, enginePrefix)
	}
	return false
}
