package engine

import (
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"time"

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
	// MaxSteps is the step bound: the most scheduling points a run may
	// take, the last resort against a run that never ends (see
	// livelock.go); 0 means DefaultMaxSteps.
	MaxSteps int
	// Timeout, when positive, is how far the virtual clock may advance in
	// a run: a test written for real time whose clock reaches it would
	// have run that long in Go, and go test's -timeout would have stopped
	// it (a goroutine blocked for ever beside a ticker that keeps the run
	// alive: a hang Go does not report as a deadlock either). The run
	// fails with Timeout.
	Timeout time.Duration
	// Watchdog is how long a managed goroutine may run without reaching a
	// scheduling point before the run is abandoned; 0 disables it.
	Watchdog time.Duration
	// Detail records source locations at every scheduling point. It costs
	// about a goroutine switch per point, so exploration runs without it and
	// a failing run is re-executed with it.
	Detail           bool
	Faults           map[string]float64 // probability per fault name
	FaultProbability float64            // for fault names not in Faults
	// FaultBounds bounds how long a named fault that lasts (a network
	// delay, a partition) may last; a fault point given none uses its own
	// default (G.FaultBound).
	FaultBounds map[string]time.Duration
	Start       time.Time // the virtual clock's start; zero means DefaultStart
	ClockFaults ClockFaults
	// Trace, when not nil, receives every event of the run.
	Trace *event.Buffer
	// Transcribe records every decision of the strategy as the choice a
	// random walk would draw to make it (Outcome.Transcript), so that any
	// run can be replayed, and shrunk, as a random walk.
	Transcribe bool
	// Scripted makes a random walk take its choices from Script, then
	// each decision's default, and report them (Outcome.Branches): see
	// script.go.
	Scripted bool
	Script   []int
	// Profile is, for SURW, the events of the goroutines of an earlier run
	// of the body (Outcome.Profile), from which it estimates how many each
	// has left.
	Profile Profile
	// Cover, when not nil, is a map of CoverSize hit counters that the run
	// adds its interleaving coverage to (see CoverSize).
	Cover []byte
	// BreakStep, when positive, is the step at which Point calls
	// Breakpoint, for a debugger to stop there.
	BreakStep int
	// IgnoreTop and IgnoreAny name goroutines that the leak oracle does not
	// report when the body has returned, as goleak's IgnoreTopFunction and
	// IgnoreAnyFunction do: a goroutine whose top function (the first
	// frame above the tool's) is one of IgnoreTop, or that has one of
	// IgnoreAny anywhere on its stack. Fully qualified function names:
	// "example.com/cache.(*janitor).run".
	IgnoreTop, IgnoreAny []string
}

// Outcome is what a run did and how it ended.
type Outcome struct {
	Failure  *Failure // nil when the run passed
	Logs     []string // what the body logged, in order
	Draws    []string // the values the body drew, in order, when the harness observed them (G.Drew)
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
	// PastBound is the step at which the run outgrew the step bound while
	// working and went on unexplored (livelock.go); 0 if it never did.
	PastBound int
	// Natives are the functions the run called that start work outside
	// the scheduler (a listener, a server, a child process), each once.
	Natives []Native
	// Branches are a scripted run's decisions (Config.Scripted).
	Branches []Branch
	// Profile is, under SURW, the events of each goroutine per bucket of
	// objects (surw.go), for Config.Profile of a later run.
	Profile Profile
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
	fatal   bool  // failNow recorded the failure; the Goexit that follows is ours
	killed  bool  // Crash ended it: it is blocked for ever, and not live
	poll    uint8 // spin.go: the class of the operation it announced at its last point
	op      Op    // the current operation, or what it is blocked in
	obj     *Obj
	at      *Location // detail mode: where the current operation was called
	spawnAt *Location // detail mode: where sched.Go was called
	prio    int64     // PCT and POS priority
	site    uint64    // coverage: the site of its current operation
	ri      int       // its index in Run.runnable while it is runnable
	hi      int       // PCT and POS: its index in Run.prios while it is runnable
	scratch any       // kept for the shims between operations (see Scratch)

	// Coroutine handoff (coro.go): its own coroutine, and the one it is
	// parked in while it is not running.
	own  coro
	slot *coro

	entry string // detail mode: the function of the user's it runs (its outermost frame of the user's); last, off the switch's fields
}

// Run is one execution of a body under the scheduler. Its state is grouped
// by concern, each group declared beside the code that owns it: the
// end of the run (endState, end.go), the virtual clock (clockState,
// clock.go), the watchdog (watchState, watchdog.go), coverage (coverState,
// cover.go), PCT (pctState, strategy.go) and the coroutine handoff
// (coroState, coro.go). The groups are embedded, so their fields read as
// the run's own.
type Run struct {
	cfg      Config
	src      *entropy.Source
	gs       []*G
	runnable []*G // the runnable goroutines, in no order (runnable.go)
	rank     rankTree
	prios    []*G // PCT and POS: the runnable goroutines by priority (runnable.go)
	cur      *G
	root     *G
	live     int
	// crashPoint runs at each crash point (G.CrashPoint), when package
	// cluster set it (G.OnCrashPoint).
	crashPoint func(*G)
	steps      int
	switches   int
	preempts   int
	progress   uint64 // read by the watchdog
	nobj       int32
	natives    []Native    // NativeBoundary's
	pools      []poolItems // the items of each sched.Pool the run used (G.PoolItems)

	endState
	clockState
	watchState

	// Tracing.
	tr      *event.Buffer
	choice  int64 // the last pick: index among the runnable goroutines
	ntimers int64
	firing  bool // timers are firing: events belong to the scheduler

	coverState
	pctState
	surwState
	scriptState
	progressState

	// self is the list of active runs when this run is the only one.
	self     [1]*Run
	selfList []*Run

	// The first goroutines' room, allocated with the run.
	gsBuf, runnableBuf, priosBuf [8]*G
	rankBuf                      [9]int32

	label   *runLabel // carried by every goroutine started during the run
	stoodIn bool      // a stand-in let a goroutine go (leave): it may still be on its way out

	// Addresses for race-detector edges the run itself creates.
	exitSync, endSync uint64

	coroState
	shadowState
}

// Execute runs body as goroutine 1 of a new run and returns when the run has
// ended and every goroutine it left behind has been torn down.
func Execute(cfg Config, body func()) *Outcome {
	r := &Run{cfg: cfg, src: cfg.Source, tr: cfg.Trace}
	r.selfList = r.self[:]
	r.gs, r.runnable = r.gsBuf[:0], r.runnableBuf[:0]
	r.rank.t, r.prios = r.rankBuf[:0], r.priosBuf[:0]
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
	r.checkAt = 1
	watch(r) // before counting goroutines: the watchdog's own start is not an escape
	r.label = newRunLabel()
	created := goroutinesCreated()
	races := raceErrors()
	r.racesSeen = races
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
		r.markClosed()
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
	switch n, own := goroutinesCreated()-created, uint64(len(r.gs))+uint64(r.extra.Load()); {
	case n > own && r.failure == nil:
		r.failure = r.findEscapes()
	case n == own && r.failure == nil && !r.stoodIn:
		runLabels.Put(r.label) // no goroutine but the run's own ever carried it, and they are gone
		r.recycleShadows()     // and none can look at the run's table again
	}
	if n := raceErrors() - races; n > 0 {
		r.failure = r.withRace(n, r.failure)
	}
	r.awaitKilled()
	return &Outcome{
		Failure:     r.failure,
		Logs:        r.logs,
		Draws:       r.draws,
		Steps:       r.steps,
		Switches:    r.switches,
		Preemptions: r.preempts,
		Goroutines:  len(r.gs),
		Faults:      r.faults,
		Transcript:  r.transcript,
		Stall:       r.stallText(),
		PastBound:   r.pastAt,
		Profile:     r.surwSeen,
		Branches:    r.branches,
		Natives:     r.natives,
	}
}

//go:norace
func (r *Run) stallText() string {
	if p := r.stallNote.Load(); p != nil {
		return *p
	}
	return ""
}

//go:norace
func (r *Run) newG(parent *G) *G {
	g := &G{ID: len(r.gs) + 1, run: r}
	if parent != nil {
		g.parent = parent.ID
	}
	r.idleAdvances = 0
	r.progressed()
	r.gs = append(r.gs, g)
	r.live++
	r.spawned(g)
	r.addRunnable(g)
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
	pprof.SetGoroutineLabels(r.label.ctx)
	f()
	returned = true
}
