package engine

import (
	"math"
	"time"
	"unsafe"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/event"
)

// clockState is the virtual clock and its timers.
type clockState struct {
	now          time.Duration // since cfg.Start
	timers       []*Timer      // pending, as a heap
	timerSeq     uint64
	idleAdvances int           // clock advances since a goroutine last woke
	readings     uint64        // the generator of the gaps between readings (Reading); 0 until the first
	lastReading  time.Duration // now at the last reading
	spinState                  // spin.go: time passing while goroutines poll
	nativeState                // nativetime.go: time passing while a goroutine sits in native work
	processState               // process.go: processes the run started, which pace the clock
}

// Virtual time. A run's clock starts at Config.Start and moves forward only,
// in these ways, every one of them drawn from the run's entropy or read
// back from its recording, so that a run replays exactly:
//
//   - When no managed goroutine is runnable and a timer is pending, it jumps
//     to the earliest deadline, and every timer due at that instant fires, in
//     an order drawn from the entropy.
//   - Each reading (G.Reading, time.Now in rewritten code) is a little later
//     than the one before, and a little later than the instant the clock
//     jumped to if it moved since: in Go some time always passes between two
//     calls of time.Now, and a goroutine wakes some microseconds after its
//     timer's deadline, and code written for real time relies on it (a
//     deadline computed as now+d has passed once a sleep of d is over).
//   - While every runnable goroutine only polls (spin.go), time passes in
//     growing steps, up to the next deadline, as it does in Go while code
//     spins.
//   - When a goroutine comes back from native work (a system call, a child
//     process, code that is not rewritten) in which it sat for a real time
//     T, the clock advances by T (nativetime.go): the watchdog measures T, a
//     fresh run records it in its entropy, and a replay takes it from there.
//   - Clock faults (ClockFaults) make timers late and the clock jump.
//
// While a process the run started runs, the clock's advances to timers
// also wait as long in real time (process.go), without changing what the
// clock reads.
//
// A Timer's fire function runs in the goroutine that found the timer due,
// between two scheduling decisions: it may wake goroutines (Unblock) or
// start new ones (Timer.Go), but never blocks.

// DefaultStart is where a run's virtual clock starts unless configured: an
// ordinary instant, as a test run on a real machine starts at one. A round
// one (midnight on the first of a year, a Saturday, a leap year, a whole
// second) is special to code that computes with calendars: a cron schedule
// "at 00:00:01 on January 1" came one second after the start, before the
// jobs a test expected first. So it is a Wednesday afternoon in June, in no
// month's first or last days and in no zone's daylight saving change, with
// seconds and nanoseconds; after 2020, so that certificates and TTLs
// computed from it are of our time, and far from 2038.
var DefaultStart = time.Date(2025, time.June, 18, 14, 23, 47, 318204719, time.UTC)

// ClockFaults, when set, make the virtual clock misbehave within bounds, as
// real clocks and schedulers do: timers fire late, and the clock jumps.
type ClockFaults struct {
	LateProbability float64       // a timer fires late
	MaxLate         time.Duration // by up to this much
	JumpProbability float64       // when the clock advances, it jumps further
	MaxJump         time.Duration // by up to this much
	BusyProbability float64       // at a scheduling point, the clock advances to the next timer though goroutines could run
}

var (
	keyTimerOrder = entropy.KeyOf("sched.timer.order")
	keyLate       = entropy.KeyOf("sched.clock.late")
	keyBusy       = entropy.KeyOf("sched.clock.busy")
	keyJump       = entropy.KeyOf("sched.clock.jump")
	keyReadings   = entropy.KeyOf("sched.clock.readings")
)

// idleAdvanceLimit bounds clock advances that fire only tickers and wake
// nobody: a run whose only pending timers are tickers that no goroutine
// receives from, and that are not idle (a ticker whose channel a select
// without a way out keeps polling), would otherwise tick forever.
const idleAdvanceLimit = 10_000

// Timer is a virtual timer of a run.
type Timer struct {
	id int64
	// Data is for the fire function: it is a plain function of the timer,
	// not a closure, because it runs in whichever goroutine advanced the
	// clock, and a closure's captured variables read there would be
	// reported by the race detector against the goroutine that made them.
	Data any

	run     *Run
	when    time.Duration // deadline, since the run's start
	seq     uint64        // arming order, for a stable heap
	index   int           // position in the run's heap; -1 when not pending
	fire    func(t *Timer, now time.Time)
	period  time.Duration // > 0: re-armed by the engine every period
	idle    func(t *Timer) bool
	spawnAt *Location // where it was created (detail mode), for goroutines it starts
	sync    byte      // race edge from the timer's creator to goroutines it starts
}

// NewTimer returns an unarmed timer of g's run that calls fire(t, now)
// when due; data is available to fire as t.Data.
//
//go:norace
func (g *G) NewTimer(fire func(t *Timer, now time.Time), data any) *Timer {
	g.run.ntimers++
	t := &Timer{run: g.run, index: -1, fire: fire, Data: data, id: g.run.ntimers}
	if g.run.cfg.Detail {
		t.spawnAt = callerLoc()
	}
	RaceReleaseMerge(unsafe.Pointer(&t.sync))
	return t
}

// SetPeriod makes t re-arm itself every d after it fires, as a ticker does
// (d <= 0: one-shot). idle, when not nil, reports that firing t now would
// change nothing (a ticker whose tick is still unreceived): when every
// goroutine is blocked the clock then skips such ticks instead of
// delivering them one by one.
//
//go:norace
func (t *Timer) SetPeriod(d time.Duration, idle func(t *Timer) bool) {
	t.period, t.idle = d, idle
}

// Now is the run's virtual time: the clock itself, which the scheduler's
// own computations read (a context's deadline from its timeout).
//
//go:norace
func (g *G) Now() time.Time { return g.run.cfg.Start.Add(g.run.now) }

// Reading is the run's virtual time read as time.Now reads the real clock
// (time.Now in rewritten code): later than the previous reading by
// readingGap, 20 to 100 ns, what two calls of time.Now take in Go (49ns
// at least and 60ns in the median on a 2-core VM, some less on a fast
// machine, never a nanosecond: code that gives an item a TTL of 1ns finds
// it expired at the next reading); and, when the clock moved since the
// previous reading (a timer's deadline came, goroutines spun, native work
// took time), later than where it moved by a wake latency of 1 to 20 µs
// more, as a goroutine that a timer wakes in Go reads the clock some
// microseconds after the deadline. So a reading
// taken after waiting for d is at least d after a reading taken before,
// whatever readings came between them, unless they are thousands. The time
// passes on the clock, so that timers due meanwhile fire at the next
// scheduling point. The gaps come from a generator seeded by one draw, at
// the run's first reading: a run that reads the clock a million times
// records one value.
//
//go:norace
func (g *G) Reading() time.Time {
	r := g.run
	if g.tear == tearNone && !r.stopping {
		r.now = addClamped(r.now, r.readingGap(r.now != r.lastReading))
		r.lastReading = r.now
	}
	return r.cfg.Start.Add(r.now)
}

// The time between two readings, and the wake latency (see Reading).
const (
	readingGapMin  = 20 * time.Nanosecond
	readingGapMax  = 100 * time.Nanosecond
	readingWakeMin = time.Microsecond
	readingWakeMax = 20 * time.Microsecond
)

// readingGap is the time between two readings of the clock, with a wake
// latency when the clock moved since the previous one.
//
//go:norace
func (r *Run) readingGap(moved bool) time.Duration {
	x := r.readings
	if x == 0 {
		x = r.src.At(keyReadings).Uint64() | 1 // xorshift's state is never 0
	}
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	r.readings = x
	d := readingGapMin + time.Duration(x>>32)%(readingGapMax-readingGapMin+1)
	if moved {
		d += readingWakeMin + time.Duration(uint32(x))%(readingWakeMax-readingWakeMin+1)
	}
	return d
}

// Arm makes t fire d from now (at once, at the next scheduling point, if d
// <= 0) and reports whether it was pending before.
//
//go:norace
func (t *Timer) Arm(d time.Duration) bool {
	r := t.run
	was := t.Disarm()
	d = max(d, 0)
	if f := r.cfg.ClockFaults; f.LateProbability > 0 && f.MaxLate > 0 && r.src.At(keyLate).Bool(f.LateProbability) {
		d = addClamped(d, time.Duration(r.src.At(keyLate).IntRange(1, int(f.MaxLate))))
	}
	r.timerSeq++
	t.when, t.seq = addClamped(r.now, d), r.timerSeq
	r.pushTimer(t)
	if r.tr != nil {
		r.tr.AddArgs(event.KindTimerSet, int64(r.steps), gid(r.waker()), int64(r.now), t.id, int64(d))
	}
	return was
}

// addClamped is a+b for b >= 0, or the latest time there is if the sum
// overflows: a timer of math.MaxInt64 (a loop's "never" when it has nothing
// to wait for) is due at the end of time, as Go's runtime clamps it, not in
// the past.
func addClamped(a, b time.Duration) time.Duration {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxInt64
}

// Disarm stops t and reports whether it was pending.
//
//go:norace
func (t *Timer) Disarm() bool {
	if t.index < 0 {
		return false
	}
	t.run.removeTimer(t.index)
	return true
}

// Pending reports whether t is armed and has not fired.
//
//go:norace
func (t *Timer) Pending() bool { return t.index >= 0 }

// Go starts f as a new managed goroutine on behalf of the timer (as
// time.AfterFunc does); it must be called from the timer's fire function.
// What the timer's creator did before making it happens before f runs.
//
//go:norace
func (t *Timer) Go(f func()) {
	r := t.run
	if r.stopping {
		return
	}
	c := r.newG(nil)
	c.spawnAt = t.spawnAt
	sync := unsafe.Pointer(&t.sync)
	if r.spawner != nil {
		r.spawnFromTimer(c, f, sync) // under -race: see spawner.go
		return
	}
	r.spawn(c, func() {
		RaceAcquire(sync)
		f()
	})
}

// Sleep blocks g for d of virtual time; d <= 0 is a scheduling point.
//
//go:norace
func (g *G) Sleep(d time.Duration) {
	if d <= 0 {
		g.Point(OpSleep, nil)
		g.Polled() // a goroutine that sleeps for nothing in a loop polls
		return
	}
	g.Point(OpSleep, nil)
	t := g.NewTimer(wakeSleeper, g)
	t.Arm(d)
	g.block(OpSleep, nil)
	t.Disarm() // never leave it pending
}

//go:norace
func wakeSleeper(t *Timer, _ time.Time) {
	g := t.Data.(*G)
	g.run.wake(g)
}

// The timer heap: a binary heap on (when, seq), in norace functions because
// goroutines of the run touch it in turn without happens-before edges.

//go:norace
func (r *Run) timerLess(i, j int) bool {
	a, b := r.timers[i], r.timers[j]
	return a.when < b.when || a.when == b.when && a.seq < b.seq
}

//go:norace
func (r *Run) timerSwap(i, j int) {
	r.timers[i], r.timers[j] = r.timers[j], r.timers[i]
	r.timers[i].index, r.timers[j].index = i, j
}

//go:norace
func (r *Run) pushTimer(t *Timer) {
	t.index = len(r.timers)
	r.timers = append(r.timers, t)
	r.timerUp(t.index)
}

//go:norace
func (r *Run) removeTimer(i int) {
	last := len(r.timers) - 1
	t := r.timers[i]
	if i != last {
		r.timerSwap(i, last)
	}
	r.timers[last] = nil
	r.timers = r.timers[:last]
	t.index = -1
	if i != last {
		r.timerDown(i)
		r.timerUp(i)
	}
}

//go:norace
func (r *Run) timerUp(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !r.timerLess(i, p) {
			return
		}
		r.timerSwap(i, p)
		i = p
	}
}

//go:norace
func (r *Run) timerDown(i int) {
	n := len(r.timers)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if rr := l + 1; rr < n && r.timerLess(rr, l) {
			m = rr
		}
		if !r.timerLess(m, i) {
			return
		}
		r.timerSwap(i, m)
		i = m
	}
}

// fireDue fires every timer due at the current time, in an order drawn from
// the entropy when there are several.
//
//go:norace
func (r *Run) fireDue() {
	for len(r.timers) > 0 && r.timers[0].when <= r.now {
		var due []*Timer
		for len(r.timers) > 0 && r.timers[0].when <= r.now {
			t := r.timers[0]
			r.removeTimer(0)
			due = append(due, t)
		}
		for len(due) > 0 {
			i := 0
			if len(due) > 1 {
				i = r.src.At(keyTimerOrder).Choice(len(due))
			}
			t := due[i]
			due[i] = due[len(due)-1]
			due = due[:len(due)-1]
			now := r.cfg.Start.Add(t.when)
			if r.tr != nil {
				r.tr.AddArgs(event.KindTimerFire, int64(r.steps), 0, int64(r.now), t.id, 0)
			}
			if t.period > 0 && t.when < math.MaxInt64 { // a ticker ticks no more at the end of time
				t.when = addClamped(t.when, t.period)
				r.timerSeq++
				t.seq = r.timerSeq
				r.pushTimer(t)
			}
			r.firing = true
			t.fire(t, now)
			r.firing = false
		}
	}
}

// advance moves the clock to the earliest pending deadline (or beyond it,
// when a clock fault makes it jump) and fires what is due. It reports false
// when no timer is pending, or when the clock has advanced too often
// without waking anybody.
//
//go:norace
func (r *Run) advance() bool {
	if len(r.timers) == 0 || r.idleAdvances >= idleAdvanceLimit {
		return false
	}
	if r.timers[0].when == math.MaxInt64 {
		return false // due at the end of time: never, as in Go
	}
	r.progress++
	next := r.timers[0].when
	if r.timers[0].period > 0 {
		// Ticks nobody will receive change nothing: skip them, so that a
		// ticker left running does not make the clock crawl to a distant
		// deadline one tick at a time.
		next = -1
		for _, t := range r.timers {
			if (t.period <= 0 || t.idle == nil || !t.idle(t)) && (next < 0 || t.when < next) {
				next = t.when
			}
		}
		if next < 0 || next == math.MaxInt64 {
			return false // only idle tickers, or timers due never: nothing can ever happen
		}
		// Only advances that fire tickers alone count towards the limit:
		// one-shot timers are finite, and firing one that wakes nobody (a
		// timer nobody receives from) brings the clock closer to the others.
		oneShot := false
		for _, t := range r.timers {
			if t.period <= 0 && t.when <= next {
				oneShot = true
			}
			if t.period > 0 && t.when < next && t.idle != nil && t.idle(t) {
				t.when = addClamped(t.when, (next-t.when+t.period-1)/t.period*t.period)
			}
		}
		if !oneShot {
			r.idleAdvances++
		}
		r.heapify()
	}
	if f := r.cfg.ClockFaults; f.JumpProbability > 0 && f.MaxJump > 0 && r.src.At(keyJump).Bool(f.JumpProbability) {
		next = addClamped(next, time.Duration(r.src.At(keyJump).IntRange(1, int(f.MaxJump))))
	}
	if next > r.now {
		r.pace(next)
		r.now = next
	}
	if r.tr != nil {
		r.tr.AddArgs(event.KindClock, int64(r.steps), 0, int64(r.now), 0, 0)
	}
	r.fireDue()
	return true
}

//go:norace
func (r *Run) heapify() {
	for i := len(r.timers)/2 - 1; i >= 0; i-- {
		r.timerDown(i)
	}
}
