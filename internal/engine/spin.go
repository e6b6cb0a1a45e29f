package engine

import (
	"time"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/event"
)

// Time passing while goroutines spin. In Go the clock runs while code runs:
// a goroutine that polls in a loop (a select with a default case, TryLock,
// runtime.Gosched) while another sleeps sees the sleeper wake once the
// sleep's duration has passed. A clock that moved only when every goroutine
// blocked left such a run spinning until its step bound.
//
// Each goroutine's operation is classified when the goroutine reaches its
// next scheduling point, its outcome known by then:
//
//   - idle: it polled and found nothing: a select that took its default
//     case, a TryLock or TryRLock that failed, a CompareAndSwap that
//     failed (the shims call G.Polled; a CompareAndSwap whose shim does
//     not is work), runtime.Gosched (Yield), a Sleep of no time, an atomic
//     load or a Len of the object its previous such operation read;
//   - read: an atomic load or a Len of another object, which changes
//     nothing but may be work (reading a table of counters);
//   - work: anything else (a lock taken, a value sent or received, a
//     store, a goroutine started, a select or a Sleep that blocked, a
//     CompareAndSwap that swapped).
//
// A CompareAndSwap that swaps after the goroutine's last one failed, with
// no work in between, ends a spin: a spin lock taken, a lock-free update
// that got through. That is progress for the livelock oracle (livelock.go),
// as a Lock that blocked and was woken is: goroutines that take turns at a
// spin lock, backing off with runtime.Gosched, are not a livelock however
// long they take. (A failed CompareAndSwap is not futile for that oracle,
// as a Yield is: a loop of them that never yields busy-waits on memory.)
//
// While nothing but polling happens, time passes. Once a stretch of
// scheduling points with no work in it is spinMin long, or as long as there
// are runnable goroutines if they are more, and every runnable goroutine
// is polling (its last operation was idle and the one it announced is not
// work), the clock advances by a quantum, never past the next deadline
// (whose timers fire then, as they would have), and the next stretch
// starts. The first quantum of an unbroken run of stretches is drawn in
// [spinFirstMin, spinFirstMax]; it doubles, up to spinQuantumMax, once
// every runnable goroutine has polled since it last doubled, which a
// strategy that lets one goroutine spin while the others wait (PCT) delays:
// time then passes slowly, so that a goroutine kept from running while it
// has work to do does not see a deadline come early. Work by any goroutine
// ends the run of stretches.
//
// The amounts. A poll costs Go some tens of nanoseconds: spinMin polls are
// about a microsecond of real spinning, so a first quantum of 1 to 64 µs
// is at most a hundred times faster than Go and well below any deadline a
// test sets. Doubling reaches a deadline d after about log2(d/q) stretches
// (about 20 for a second), so a poller waits for a sleeper in a few hundred
// scheduling points, and a loop that reads the clock until some time has
// passed overshoots by less than the last quantum. The clock never jumps
// past a timer, and time passes only while nothing but polling happens: a
// goroutine that works while others poll breaks the stretch, and one that
// is about to work keeps it from counting, so work never makes a timeout
// fire early.
const (
	spinMin        = 16
	spinFirstMin   = time.Microsecond
	spinFirstMax   = 64 * time.Microsecond
	spinQuantumMax = time.Second
)

// The classes of operations (G.poll, pollOps).
const (
	pollWork  uint8 = iota
	pollIdle        // it polled and found nothing
	pollMaybe       // a select, a TryLock or a Sleep: idle if the shim calls Polled, else work
	pollRead        // an atomic load or a Len: idle if it repeats the goroutine's previous one
	pollSwap        // a CompareAndSwap: idle if the shim calls Polled (it failed), else work
)

// pollOps is the class of each operation as it is announced at a
// scheduling point.
var pollOps = [256]uint8{
	OpYield:      pollIdle,
	OpSelect:     pollMaybe,
	OpTryLock:    pollMaybe,
	OpTryRLock:   pollMaybe,
	OpSleep:      pollMaybe,
	OpAtomicLoad: pollRead,
	OpLen:        pollRead,

	OpAtomicCompareAndSwap: pollSwap,
}

var keySpin = entropy.KeyOf("sched.clock.spin")

// spinState is the stretch in progress.
type spinState struct {
	spinPoints   int // idle points of the run of stretches; 0: work broke it
	spinCheck    int // spinPoints at which the stretch is long enough
	spinEpoch    uint32
	spinQuantum  time.Duration // the next advance; 0: to be drawn
	spinGs       []spinG       // by goroutine ID-1
	spinAdvances int           // clock advances made while goroutines spun
}

// spinG is a goroutine's part of the stretch.
type spinG struct {
	mark      uint32 // spinEpoch+1 when it polled since the quantum last doubled
	idle      bool   // its last operation was idle
	readEpoch uint32 // spinEpoch+1 when read is of this run of stretches
	read      *Obj   // the object of its last atomic load or Len
	failed    bool   // a CompareAndSwap of its failed, and it did no work since
}

// Polled tells the run that g's operation since its scheduling point found
// nothing to do and changed nothing: a select that took its default case,
// a TryLock or a CompareAndSwap that failed.
//
//go:norace
func (g *G) Polled() {
	if g.poll == pollSwap {
		g.run.spinOf(g).failed = true
	}
	g.poll = pollIdle
}

// spinPoint classifies g's previous operation, now done, and the one it
// announces (op on o), and advances the clock when the stretch says so.
// Point calls it unless both are work; then it breaks the stretch itself.
//
//go:norace
func (r *Run) spinPoint(g *G, op Op, o *Obj) {
	switch g.poll {
	case pollIdle:
		r.spinIdle(g)
	case pollWork, pollMaybe, pollSwap: // a select, TryLock or CompareAndSwap that did not poll: it found what it wanted, or blocked
		r.spinPoints = 0
		s := r.spinOf(g)
		if s.failed && g.poll == pollSwap { // a CompareAndSwap that swapped ends a spin
			r.progressed()
		}
		s.idle, s.failed = false, false
	}
	c := pollOps[op]
	switch c {
	case pollWork:
		r.spinPoints = 0
		r.spinOf(g).failed = false // it works: its next CompareAndSwap ends no spin
	case pollRead:
		s := r.spinOf(g)
		if o != nil && s.read == o && s.readEpoch == r.spinEpoch+1 {
			c = pollIdle
		}
		s.read, s.readEpoch = o, r.spinEpoch+1
	}
	g.poll = c
	if r.spinPoints >= r.spinCheck && r.spinPoints > 0 {
		r.spinStretch()
	}
}

// spinIdle counts g's poll.
//
//go:norace
func (r *Run) spinIdle(g *G) {
	if r.spinPoints == 0 { // a new run of stretches
		r.spinEpoch++
		r.spinQuantum = 0
		r.spinCheck = max(spinMin, len(r.runnable))
	}
	r.spinPoints++
	s := r.spinOf(g)
	s.idle, s.mark = true, r.spinEpoch+1
}

// spinStretch ends a stretch long enough: the clock advances if every
// runnable goroutine is polling, and the quantum doubles if every one
// polled since it last doubled.
//
//go:norace
func (r *Run) spinStretch() {
	r.spinCheck = r.spinPoints + max(spinMin, len(r.runnable))
	marked := true
	for _, x := range r.runnable {
		s := r.spinOf(x)
		if !s.idle || x.poll == pollWork {
			return
		}
		marked = marked && s.mark == r.spinEpoch+1
	}
	r.spinAdvance()
	if marked {
		r.spinQuantum = min(2*r.spinQuantum, spinQuantumMax)
		r.spinEpoch++
	}
}

// spinAdvance moves the clock by the quantum, or to the next deadline if
// that comes first.
//
//go:norace
func (r *Run) spinAdvance() {
	if r.spinQuantum == 0 {
		r.spinQuantum = time.Duration(r.src.At(keySpin).IntRange(int(spinFirstMin), int(spinFirstMax)))
	}
	to := addClamped(r.now, r.spinQuantum)
	if len(r.timers) > 0 && r.timers[0].when < to {
		to = r.timers[0].when
	}
	if to <= r.now {
		return // a timer is due: it fires at this point
	}
	r.now = to
	r.spinAdvances++
	if r.tr != nil {
		r.tr.AddArgs(event.KindClock, int64(r.steps), 0, int64(r.now), 0, 0)
	}
}

// spinOf is g's part of the stretch.
//
//go:norace
func (r *Run) spinOf(g *G) *spinG {
	for len(r.spinGs) < g.ID {
		r.spinGs = append(r.spinGs, spinG{})
	}
	return &r.spinGs[g.ID-1]
}
