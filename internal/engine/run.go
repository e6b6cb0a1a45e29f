package engine

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/event"
	"github.com/petermattis/goid"
)

// Config shapes one run. The harness fills in defaults and validates it.
type Config struct {
	Name     string          // what is being run, for messages (a test name)
	Source   *entropy.Source // every decision is drawn from here
	Strategy Strategy
	Depth    int // PCT: bug depth d; d-1 priority change points
	PCTSteps int // PCT: change points are drawn in [1, PCTSteps]
	MaxSteps int // livelock bound: scheduling points per run
	// Watchdog is how long a managed goroutine may run without reaching a
	// scheduling point before the run is abandoned; 0 disables it.
	Watchdog time.Duration
	// Detail records source locations at every scheduling point. It costs
	// about a goroutine switch per point, so exploration runs without it and
	// a failing run is re-executed with it.
	Detail           bool
	Faults           map[string]float64 // probability per fault name
	FaultProbability float64            // for fault names not in Faults
	Start            time.Time          // the virtual clock's start; zero means DefaultStart
	ClockFaults      ClockFaults
	// Trace, when not nil, receives every event of the run.
	Trace *event.Buffer
	// Transcribe records every decision of the strategy as the choice a
	// random walk would draw to make it (Outcome.Transcript), so that any
	// run can be replayed, and shrunk, as a random walk.
	Transcribe bool
	// Cover, when not nil, is a map of CoverSize hit counters that the run
	// adds its interleaving coverage to (see CoverSize).
	Cover []byte
	// BreakStep, when positive, is the step at which Point calls
	// Breakpoint, for a debugger to stop there.
	BreakStep int
}

// Outcome is what a run did and how it ended.
type Outcome struct {
	Failure  *Failure // nil when the run passed
	Logs     []string // what the body logged, in order
	Steps    int      // scheduling points
	Switches int      // times the running goroutine changed
	// Preemptions counts switches away from a goroutine that could have
	// continued.
	Preemptions int
	Goroutines  int // managed goroutines, the body included
	Faults      []FaultEvent
	// Transcript is the run's decisions as random-walk choices, with
	// Config.Transcribe; with TranscriptUID it forms the scheduler's part
	// of an equivalent random-walk recording.
	Transcript []uint64
	// Stall, when not empty, says that a goroutine ran for a while without
	// reaching a scheduling point (blocked outside the scheduler, or
	// computing), and where: not a failure, but worth a note.
	Stall string
}

// TranscriptUID is the uid of a random walk's choices.
var TranscriptUID = entropy.MakeUID(entropy.KindChoice, keyPick)

// FaultEvent is a fault that fired.
type FaultEvent struct {
	Name string
	Step int
	G    int
}

type gstate uint8

const (
	gRunnable gstate = iota
	gBlocked
	gExited
)

// Teardown modes, set by the harness on parked goroutines of an ended run.
const (
	tearNone uint8 = iota
	tearSync       // race builds: publish this goroutine's history, then park again
	tearExit       // leave with runtime.Goexit, running deferred calls
)

// G is a managed goroutine.
type G struct {
	ID      int // 1 is the body; the rest in order of creation
	run     *Run
	goid    int64
	sema    uint32
	state   gstate
	parent  int
	tear    uint8
	fatal   bool // failNow recorded the failure; the Goexit that follows is ours
	op      Op   // the current operation, or what it is blocked in
	obj     *Obj
	at      *Location // detail mode: where the current operation was called
	spawnAt *Location // detail mode: where sched.Go was called
	prio    int64     // PCT and POS priority
	site    uint64    // coverage: the site of its current operation
	ri      int       // its index in Run.runnable while it is runnable
	scratch any       // kept for the shims between operations (see Scratch)

	// Coroutine handoff (coro.go): its own coroutine, and the one it is
	// parked in while it is not running.
	own  coro
	slot *coro
}

// Run is one execution of a body under the scheduler.
type Run struct {
	cfg      Config
	src      *entropy.Source
	gs       []*G
	runnable []*G // sorted by ID, so that a choice index means the same goroutine in every run
	cur      *G
	root     *G
	live     int
	steps    int
	switches int
	preempts int
	progress uint64 // read by the watchdog
	nobj     int32

	pending  *Failure // recorded by failNow, reported when its goroutine has exited
	stopping bool     // a failure is pending: no more switches
	failure  *Failure
	errors   []string
	logs     []string
	faults   []FaultEvent
	faultOff bool

	ended     atomic.Int32 // finish (endedByRun) or the watchdog (endedByWatchdog) claimed the end
	abandoned atomic.Bool  // the watchdog gave up on the running goroutine
	closed    atomic.Bool  // the run is over; its objects may be rebound
	external  atomic.Pointer[Failure]
	done      chan struct{}
	ack       chan *G // teardown: each goroutine says it is done
	drain     int     // scheduling points reached after the run's end was decided

	// Virtual time.
	now          time.Duration // since cfg.Start
	timers       []*Timer      // pending, as a heap
	timerSeq     uint64
	idleAdvances int // clock advances since a goroutine last woke

	// Watchdog state, owned by the watchdog goroutine.
	wdProgress uint64
	wdSince    time.Time
	spawner    *spawner               // under -race: starts the goroutines of timers
	stallNote  atomic.Pointer[string] // what noteStall noted
	stuck      *G                     // the goroutine the watchdog gave up on
	gone       chan struct{}          // closed when the running goroutine of an abandoned run exits
	goneOnce   sync.Once

	// Tracing.
	tr      *event.Buffer
	choice  int64 // the last pick: index among the runnable goroutines
	ntimers int64
	firing  bool // timers are firing: events belong to the scheduler

	// Coverage state: the last point's site and goroutine.
	lastSite   uint64
	lastG      int32
	transcript []uint64

	// PCT state.
	changes    []int
	nextChange int
	minPrio    int64
	streak     int

	// self is the list of active runs when this run is the only one.
	self     [1]*Run
	selfList []*Run

	// The first goroutines' room, allocated with the run.
	gsBuf, runnableBuf [8]*G

	// Addresses for race-detector edges the run itself creates.
	exitSync, endSync uint64

	// Coroutine handoff (coro.go).
	home          G             // Execute's goroutine, or the watchdog's stand-in for it
	exiting       *G            // a goroutine leaving with Goexit, waiting for its stand-in
	extra         atomic.Int32  // goroutines started for the run besides managed ones
	unwound       int           // r.gs before this index are unwound
	unwinding     atomic.Bool   // the home is unwinding parked goroutines
	homeState     atomic.Int32  // see the home states in coro.go
	homeSwitching bool          // the home's switch gave the turn
	rescuing      atomic.Bool   // the watchdog's stand-in has taken the home's place
	rescued       chan struct{} // closed once the stand-in has the home's place
}

// Who claimed the end of a run (Run.ended).
const (
	endedByRun int32 = iota + 1
	endedByWatchdog
)

// Execute runs body as goroutine 1 of a new run and returns when the run has
// ended and every goroutine it left behind has been torn down.
func Execute(cfg Config, body func()) *Outcome {
	r := &Run{cfg: cfg, src: cfg.Source, tr: cfg.Trace}
	r.selfList = r.self[:]
	r.gs, r.runnable = r.gsBuf[:0], r.runnableBuf[:0]
	if !coroutines {
		r.done = make(chan struct{})
	}
	if r.src == nil {
		r.src = entropy.New(0)
	}
	if r.cfg.MaxSteps <= 0 {
		r.cfg.MaxSteps = DefaultMaxSteps
	}
	if r.cfg.Depth <= 0 {
		r.cfg.Depth = 3
	}
	if r.cfg.PCTSteps <= 0 {
		r.cfg.PCTSteps = 100
	}
	if r.cfg.Start.IsZero() {
		r.cfg.Start = DefaultStart
	}
	watch(r) // before counting goroutines: the watchdog's own start is not an escape
	created := goroutinesCreated()
	r.startStrategy()
	r.root = r.newG(nil)
	r.cur = r.root
	addActive(r)
	if coroutines {
		r.spawn(r.root, body)
		rescued := r.homeRun()
		if r.failure == nil {
			r.failure = r.external.Load()
		}
		r.closed.Store(true)
		if !rescued {
			removeActive(r)
		}
		// Otherwise the watchdog's stand-in unwinds the rest, and removes
		// the run, if the goroutine that blocked ever returns.
	} else {
		r.startSpawner()
		go r.start(r.root, body)
		semrelease(&r.root.sema, false, 0)
		r.awaitEnd()
	}
	if r.failure == nil && goroutinesCreated()-created > uint64(len(r.gs))+uint64(r.extra.Load()) {
		r.failure = r.findEscapes()
	}
	return &Outcome{
		Failure:     r.failure,
		Logs:        r.logs,
		Steps:       r.steps,
		Switches:    r.switches,
		Preemptions: r.preempts,
		Goroutines:  len(r.gs),
		Faults:      r.faults,
		Transcript:  r.transcript,
		Stall:       r.stallText(),
	}
}

//go:norace
func (r *Run) stallText() string {
	if p := r.stallNote.Load(); p != nil {
		return *p
	}
	return ""
}

// awaitEnd waits for a run whose goroutines hand over through semaphores
// to end, and tears it down.
func (r *Run) awaitEnd() {
	if stuck := r.wait(); stuck != nil {
		// The goroutine that stopped reaching scheduling points may resume
		// at any moment and touch the run's state: the rest is torn down
		// only once it has left (at its next scheduling point, which sees
		// the run abandoned). Until then the run stays findable, so that
		// goroutine is still recognized as managed.
		r.closed.Store(true)
		go func() {
			<-r.gone
			r.teardown()
			r.stopSpawner()
			removeActive(r)
		}()
		return
	}
	r.teardown()
	r.stopSpawner()
	RaceAcquire(unsafe.Pointer(&r.exitSync))
	if r.failure == nil {
		r.failure = r.external.Load()
	}
	r.closed.Store(true)
	removeActive(r)
}

// DefaultMaxSteps is the livelock bound when Config.MaxSteps is 0.
const DefaultMaxSteps = 100_000

//go:norace
func (r *Run) newG(parent *G) *G {
	g := &G{ID: len(r.gs) + 1, run: r}
	if parent != nil {
		g.parent = parent.ID
	}
	r.idleAdvances = 0
	r.gs = append(r.gs, g)
	r.live++
	g.ri = len(r.runnable)
	r.runnable = append(r.runnable, g) // the highest ID so far: order kept
	r.spawned(g)
	if r.tr != nil {
		r.tr.AddArgs(event.KindSpawn, int64(r.steps), gid(parent), int64(r.now), int64(g.ID), 0)
	}
	return g
}

// start is the body of every managed goroutine.
func (r *Run) start(g *G, f func()) {
	g.goid = goid.Get()
	returned := false
	defer func() {
		p := recover()
		var stack []byte
		if p != nil {
			stack = debug.Stack()
		}
		r.exitG(g, p, stack, returned)
		if coroutines && !returned {
			// A Goexit, or a panic: recovering one raised during a Goexit
			// resumes the Goexit.
			r.leave(g)
		}
	}()
	if !coroutines {
		r.park(g)
	} else if g.tear != tearNone {
		runtime.Goexit() // torn down before its first turn
	}
	f()
	returned = true
}

// park waits on g's semaphore until g is scheduled, or torn down.
//
//go:norace
func (r *Run) park(g *G) {
	if coroutines {
		r.handoff(g)
		return
	}
	for {
		semacquire(&g.sema)
		switch g.tear {
		case tearNone:
			return
		case tearSync:
			RaceReleaseMerge(unsafe.Pointer(&r.endSync))
			r.ack <- g
		default:
			RaceAcquire(unsafe.Pointer(&r.endSync))
			runtime.Goexit()
		}
	}
}

//go:norace
func (r *Run) switchTo(from, to *G) {
	r.beginSwitch(from, to)
	semrelease(&to.sema, false, 1)
	r.park(from)
}

// beginSwitch records a switch from goroutine from to goroutine to, which
// becomes the current one. With coroutines, the caller then calls handoff
// itself: a function in between would cost a mispredicted return at every
// switch (see handoff).
//
//go:norace
func (r *Run) beginSwitch(from, to *G) {
	if r.tr != nil {
		r.recordSwitch(from, to)
	}
	r.cur = to
	r.switches++
}

// interrupted reports whether g must not be scheduled as usual: the run is
// tearing it down, or the watchdog abandoned the run.
//
//go:norace
func (g *G) interrupted() bool {
	return g.tear != tearNone || g.run.abandoned.Load()
}

// drainLimit bounds the scheduling points that deferred calls may reach
// once the end of the run is decided (after a fatal failure, or during
// teardown), when no other goroutine will run again: a deferred call that
// spins waiting for another goroutine is cut short with runtime.Goexit.
const drainLimit = 10_000

// Point is a scheduling point: the strategy picks which runnable goroutine
// continues, possibly another one. g must be the calling goroutine.
//
//go:norace
func (g *G) Point(op Op, o *Obj) {
	r := g.run
	if r.abandoned.Load() {
		runtime.Goexit()
	}
	if g.tear != tearNone || r.stopping {
		r.progress++
		if r.drain++; r.drain > drainLimit {
			runtime.Goexit()
		}
		return
	}
	r.progress++
	r.steps++
	g.op, g.obj = op, o
	if r.cfg.Detail {
		g.at = callerLoc()
		if g.at == nil {
			// Nothing of the user's on the stack: a point the tool makes
			// for the goroutine, such as WaitGroup.Go's Done once its
			// function returns. It belongs to where the goroutine started.
			g.at = g.spawnAt
		}
	}
	if r.tr != nil {
		r.recordOp(event.KindOp, g, op, o)
	}
	if r.steps == r.cfg.BreakStep {
		Breakpoint(r.steps, g.ID)
	}
	if r.cfg.Cover != nil {
		r.coverPoint(g, op, o)
	}
	if r.steps > r.cfg.MaxSteps {
		g.failNow(&Failure{Kind: Livelock, G: g.ID, Message: fmt.Sprintf(
			"livelock: the run reached the step bound of %d scheduling points without finishing "+
				"(goroutines keep running but none completes; raise the bound with -dst.maxsteps if the test needs more)",
			r.cfg.MaxSteps)})
	}
	r.changePoints(g)
	if len(r.timers) > 0 && r.timers[0].when <= r.now {
		r.fireDue()
	}
	if len(r.runnable) == 1 {
		return
	}
	if next := r.pick(g, op == OpYield); next != g {
		r.preempts++
		if coroutines {
			r.beginSwitch(g, next)
			r.handoff(g)
		} else {
			r.switchTo(g, next)
		}
	}
}

// block parks g until another goroutine wakes it and the scheduler picks it.
//
//go:norace
func (g *G) block(op Op, o *Obj) {
	r := g.run
	if g.interrupted() || r.stopping {
		// Deferred calls of a goroutine being torn down, or of one whose
		// failure ends the run: nobody will ever wake it.
		runtime.Goexit()
	}
	r.progress++
	g.state = gBlocked
	g.op, g.obj = op, o
	if r.tr != nil {
		r.recordOp(event.KindBlock, g, op, o)
	}
	if r.cfg.Cover != nil {
		g.site = siteOf(op, o)
		r.coverBlock(g)
	}
	r.removeRunnable(g)
	for len(r.runnable) == 0 && r.advance() {
	}
	if len(r.runnable) == 0 {
		r.stall(g)
		return
	}
	if next := r.pick(nil, false); next != g { // a timer may have woken g itself
		if coroutines {
			r.beginSwitch(g, next)
			r.handoff(g)
		} else {
			r.switchTo(g, next)
		}
	}
}

//go:norace
func (r *Run) wake(g *G) {
	if g.state != gBlocked {
		return
	}
	g.state = gRunnable
	r.idleAdvances = 0
	if r.tr != nil {
		r.tr.AddArgs(event.KindWake, int64(r.steps), gid(r.waker()), int64(r.now), int64(g.ID), 0)
	}
	i := len(r.runnable)
	r.runnable = append(r.runnable, g)
	for i > 0 && r.runnable[i-1].ID > g.ID {
		r.runnable[i] = r.runnable[i-1]
		r.runnable[i].ri = i
		i--
	}
	r.runnable[i] = g
	g.ri = i
}

//go:norace
func (r *Run) removeRunnable(g *G) {
	s := r.runnable
	i := r.indexOf(g)
	if i >= len(s) || s[i] != g {
		return
	}
	for j := i + 1; j < len(s); j++ {
		s[j-1] = s[j]
		s[j-1].ri = j - 1
	}
	s[len(s)-1] = nil
	r.runnable = s[:len(s)-1]
}

// event returns an event of kind k by goroutine g (nil: the scheduler
// itself, as when a timer fires) at the current step and time.
//
//go:norace
func (r *Run) event(k event.Kind, g *G) event.Event {
	return event.Event{Kind: k, Step: int64(r.steps), Time: int64(r.now), G: gid(g)}
}

//go:norace
func (r *Run) record(e event.Event) { r.tr.Add(&e) }

//go:norace
func (r *Run) recordOp(k event.Kind, g *G, op Op, o *Obj) {
	var obj int32
	if o != nil {
		obj = o.id
	}
	r.tr.AddOp(k, int64(r.steps), int32(g.ID), int64(r.now), uint8(op), obj, (*event.Location)(g.at))
}

//go:norace
func (r *Run) recordSwitch(from, to *G) {
	r.tr.AddSwitch(int64(r.steps), gid(from), int64(r.now), int32(to.ID), r.choice, int64(len(r.runnable)))
}

// gid is g's id in events; 0 for the scheduler itself.
//
//go:norace
func gid(g *G) int32 {
	if g == nil {
		return 0
	}
	return int32(g.ID)
}

// waker is the goroutine on whose behalf a wake happens: the running one,
// or nil while timers fire between two decisions.
//
//go:norace
func (r *Run) waker() *G {
	if r.firing {
		return nil
	}
	return r.cur
}

// remove deletes x from s, keeping the order. It moves elements one by one:
// the copy builtin reports its accesses to the race detector even in a
// norace function, and run state is shared without happens-before edges.
//
//go:norace
func remove(s []*G, x *G) []*G {
	for i := range s {
		if s[i] != x {
			continue
		}
		for j := i + 1; j < len(s); j++ {
			s[j-1] = s[j]
		}
		s[len(s)-1] = nil
		return s[:len(s)-1]
	}
	return s
}

// stall is reached when no goroutine is runnable: the run passed, or it is
// deadlocked or leaking. g is the goroutine that just blocked, or nil.
//
//go:norace
func (r *Run) stall(g *G) {
	if r.live == 0 {
		var f *Failure
		if len(r.errors) > 0 {
			f = &Failure{Kind: TestFailed, Message: strings.Join(r.errors, "\n")}
		}
		r.finish(f)
		return
	}
	f := &Failure{Kind: Deadlock, Message: fmt.Sprintf(
		"deadlock: all goroutines are asleep: %d blocked and nothing can wake them", r.live)}
	if r.root.state == gExited {
		f = &Failure{Kind: Leak, Message: fmt.Sprintf(
			"leak: the test body returned but %d goroutine(s) are blocked forever", r.live)}
	}
	switch {
	case len(r.timers) > 0 && r.idleAdvances >= idleAdvanceLimit:
		f.Message += fmt.Sprintf(" (the virtual clock advanced %d times without waking any: the pending timers wake nobody)", idleAdvanceLimit)
	case len(r.timers) > 0:
		f.Message += " (the only pending timers are tickers whose ticks nobody receives)"
	}
	if len(r.errors) > 0 {
		f.Message += "\n" + strings.Join(r.errors, "\n")
	}
	r.finish(f)
	if g != nil {
		r.park(g) // until teardown, which never returns here
		panic("sched: internal error: a stalled goroutine was resumed")
	}
}

// failNow records f and ends g with runtime.Goexit; the run ends once g's
// deferred calls have run, without switching to any other goroutine.
//
//go:norace
func (g *G) failNow(f *Failure) {
	r := g.run
	if r.pending == nil && r.failure == nil {
		f.Step = r.steps
		f.Goroutines = r.snapshot()
		r.pending = f
	}
	r.stopping = true
	g.fatal = true
	runtime.Goexit()
}

// stoppedByTool reports whether the failure f ends its goroutine where Go
// would not (the step bound, a misuse, a fatal error, which ends the whole
// program in Go): the trace then shows the goroutine where it was, not
// exiting.
func stoppedByTool(f *Failure) bool {
	return f != nil && (f.Kind == Livelock || f.Kind == Misuse || f.Kind == Fatal)
}

//go:norace
func (r *Run) exitG(g *G, p any, stack []byte, returned bool) {
	if g.tear != tearNone {
		// Publish what its deferred calls did before the next goroutine's
		// run, so the race detector does not report them against each other.
		RaceReleaseMerge(unsafe.Pointer(&r.endSync))
		g.state = gExited
		if coroutines {
			r.handHome()
			return
		}
		r.ack <- g
		return
	}
	if r.abandoned.Load() {
		// The running goroutine of an abandoned run has left: the harness
		// may tear down the others.
		g.state = gExited
		if coroutines {
			r.handHome()
			return
		}
		r.goneOnce.Do(func() { close(r.gone) })
		return
	}
	r.progress++
	g.state = gExited
	g.op, g.obj = OpExit, nil
	if r.tr != nil && !(g.fatal && p == nil && stoppedByTool(r.pending)) {
		r.recordExit(g, p)
	}
	r.removeRunnable(g)
	r.live--
	RaceReleaseMerge(unsafe.Pointer(&r.exitSync))
	if p != nil || g.fatal || !returned {
		r.exitFailed(g, p, stack)
		return
	}
	if r.stopping {
		r.finish(nil)
		return
	}
	for len(r.runnable) == 0 && r.advance() {
	}
	if len(r.runnable) == 0 {
		r.stall(nil)
		return
	}
	next := r.pick(nil, false)
	if r.tr != nil {
		r.recordSwitch(g, next)
	}
	r.cur = next
	r.switches++
	if !coroutines {
		semrelease(&next.sema, false, 1)
		return
	}
	if r.home.slot == &g.own {
		// g's end resumes the home, parked in g's coroutine, which passes
		// the turn on: a switch into the home's place like any other.
		r.claimHome()
	}
}

// recordExit records g's exit, and the panic it exits with, if any.
//
//go:norace
//go:noinline
func (r *Run) recordExit(g *G, p any) {
	if p != nil {
		e := r.event(event.KindPanic, g)
		e.Text = fmt.Sprint(p)
		r.record(e)
	}
	r.tr.AddArgs(event.KindExit, int64(r.steps), gid(g), int64(r.now), 0, 0)
}

// exitFailed ends the run for g, which exits with panic p (and its stack),
// after a fatal failure, or with runtime.Goexit. It is exitG's rare path, a
// function of its own so that exitG, which picks the next goroutine deep in
// the exiting one's stack, keeps a small stack frame.
//
//go:norace
//go:noinline
func (r *Run) exitFailed(g *G, p any, stack []byte) {
	switch {
	case p != nil:
		if rp, ok := p.(*Repanic); ok {
			p, stack = rp.Value, rp.Stack
		}
		// A panic outranks a pending test failure: in Go it would crash the
		// test binary.
		r.pending = nil
		r.finish(&Failure{Kind: Panic, G: g.ID, Message: fmt.Sprintf("panic in goroutine %d: %v", g.ID, p), Stack: userStack(string(stack), true)})
	case g.fatal:
		r.finish(nil)
	default:
		r.finish(&Failure{Kind: Goexit, G: g.ID, Message: fmt.Sprintf(
			"goroutine %d called runtime.Goexit (t.FailNow or t.Fatal on the outer *testing.T? use the *schedtest.T the body receives)", g.ID)})
	}
}

// Repanic carries a panic that a shim recovered and raises again, with the
// stack of the original panic, for the report.
type Repanic struct {
	Value any
	Stack []byte
}

func (p *Repanic) Error() string { return fmt.Sprint(p.Value) }

// finish ends the run with f, unless a failure was already recorded.
//
//go:norace
func (r *Run) finish(f *Failure) {
	if !r.ended.CompareAndSwap(0, endedByRun) {
		if coroutines {
			r.handHome() // the watchdog ended it: the home unwinds the rest
		}
		return
	}
	if r.pending != nil {
		f = r.pending
	}
	if f != nil && r.failure == nil {
		if f.Goroutines == nil {
			f.Step = r.steps
			f.Goroutines = r.snapshot()
		}
		r.failure = f
	}
	// What teardown does (deferred calls of goroutines that would never
	// run again in Go) is not part of the run: the trace ends here.
	r.tr = nil
	if coroutines {
		r.handHome() // it unwinds the parked goroutines
		return
	}
	close(r.done)
}

//go:norace
func (r *Run) snapshot() []GState {
	var out []GState
	for _, g := range r.gs {
		if g.state == gExited {
			continue
		}
		st := GState{ID: g.ID, Parent: g.parent, Op: g.op, Obj: g.obj.String(), At: loc(g.at), Spawned: loc(g.spawnAt)}
		if g.obj != nil {
			st.Holder, st.HeldAt = int(g.obj.holder), loc(g.obj.heldAt)
		}
		switch {
		case g.state == gBlocked:
			st.State = "blocked"
		case g == r.cur:
			st.State = "running"
		default:
			st.State = "runnable"
		}
		out = append(out, st)
	}
	return out
}

// externalFailure records a failure observed outside the run's goroutines.
func (r *Run) externalFailure(f *Failure) {
	r.external.CompareAndSwap(nil, f)
}
