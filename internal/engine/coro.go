package engine

import (
	"iter"
	"runtime"
	"sync/atomic"
)

// coroState is the coroutine handoff's (see below).
type coroState struct {
	home          G             // Execute's goroutine, or the watchdog's stand-in for it
	exiting       *G            // a goroutine leaving with Goexit, waiting for its stand-in
	extra         atomic.Int32  // goroutines started for the run besides managed ones
	unwound       int           // r.gs before this index are unwound
	unwinding     atomic.Bool   // the home is unwinding parked goroutines
	homeState     atomic.Int32  // see the home states
	homeSwitching bool          // the home's switch gave the turn
	rescuing      atomic.Bool   // the watchdog's stand-in has taken the home's place
	rescued       chan struct{} // closed once the stand-in has the home's place
}

// Without the race detector, managed goroutines are coroutines and the
// handoff between two of them is one runtime coroutine switch: about 50 ns,
// against 150-250 ns for a semaphore handoff, which has to go through the
// Go scheduler's run queues. Under -race the handoff stays on semaphores
// (sema.go): a coroutine switch through iter.Pull tells the race detector
// about a happens-before edge, which would hide every data race between the
// goroutines being serialized.
//
// The runtime's coroutine switch is reachable only through iter.Pull, whose
// next and yield functions both switch through one coroutine object: the
// caller parks in it and the goroutine parked there runs. Such an object is
// a one-place exchanger, whoever calls. So every managed goroutine owns one
// (its iter.Pull, started on its first turn), every parked goroutine sits in
// one of them (G.slot), and a handoff to goroutine T calls through T's slot,
// which parks the caller there in T's place. iter.Pull checks that next and
// yield alternate on each object; coro.inNext tracks which one is due.
//
// The goroutine that calls Execute is the run's home: it gives the root its
// first turn, and gets the turn back when the run has ended, to unwind the
// goroutines left parked (one at a time, with runtime.Goexit, so that their
// deferred calls run). The run costs no goroutine wakeup through the Go
// scheduler from start to end.
//
// Ends. When a managed goroutine returns, the runtime resumes whichever
// goroutine sits in its own object, which passes the turn on to the run's
// current goroutine (handoff, and the home's resume, loop until the
// goroutine that gets the turn is the current one). If that is the home, the
// goroutine claims the home's slot before it returns, as any switch into
// the home's place does (claimHome). When
// it ends with runtime.Goexit (t.FailNow, an unwinding), iter.Pull would
// raise the Goexit again in the goroutine it resumes if that one called
// next. So such a goroutine first puts a short-lived stand-in goroutine in
// its place (leave), and the stand-in takes the Goexit.
//
// The watchdog. A goroutine that blocks outside the scheduler holds the turn
// and nothing else can run. The watchdog then rescues the home: a stand-in
// goroutine switches through the home's slot, which resumes the home (it
// returns from Execute with the failure) and leaves the stand-in as the
// run's new home, which unwinds the rest if the turn ever comes back. Only
// one goroutine may switch through the home's slot, and only once the home
// is parked there: Run.homeState says which (see the home states).
const coroutines = !RaceEnabled

// coro is one managed goroutine's coroutine, used as a one-place exchanger.
type coro struct {
	next   func() (struct{}, bool)
	yield  func(struct{}) bool
	inNext bool // the last switch through it was a next: a yield is due
}

// switchThrough parks the caller in c and runs the goroutine parked there.
//
//go:norace
func (c *coro) switchThrough() {
	if c.inNext {
		c.inNext = false
		c.yield(struct{}{})
		return
	}
	c.inNext = true
	c.next()
}

// spawn makes g, just created by newG, a goroutine that runs f on its first
// turn.
//
//go:norace
func (r *Run) spawn(g *G, f func()) {
	if !coroutines {
		go r.start(g, f)
		return
	}
	c := &g.own
	g.slot = c
	c.next, _ = iter.Pull(func(yield func(struct{}) bool) {
		c.yield = yield
		r.switched()
		r.start(g, f)
	})
}

// The home states. The home marks itself running when it resumes; the
// goroutine its switch resumes marks it parked (Run.homeSwitching tells that
// goroutine it was the home's switch). The world hands the turn home, and
// the watchdog's stand-in rescues it, only from parked, each claiming the
// state first; a world that finds the rescue under way waits for it.
const (
	homeRunning int32 = iota
	homeParked
	homeWorld  // a goroutine of the run is handing the turn home
	homeRescue // the watchdog's stand-in is taking the home's place
)

// resume parks the home, which is running, until it is the run's current
// goroutine again, handing the turn to the current one. It reports whether
// the watchdog rescued the home instead.
//
//go:norace
func (r *Run) resume() bool {
	h := &r.home
	for {
		c := r.cur.slot
		h.slot = c
		if homeHook != nil {
			homeHook(r, false)
		}
		r.homeSwitching = true
		c.switchThrough()
		if homeHook != nil {
			homeHook(r, true)
		}
		if r.homeResumed() {
			return true
		}
		if r.cur == h {
			return false
		}
	}
}

// handoff is resume for a managed goroutine, which is never the home, with
// the switch written out: every function between the goroutine's code and
// the runtime's switch costs a mispredicted return when the goroutine
// resumes, since the processor's return predictions belong to the goroutine
// that ran before. It ends the goroutine with runtime.Goexit when it was
// resumed to be unwound.
//
//go:norace
func (r *Run) handoff(from *G) {
	for {
		c := r.cur.slot
		from.slot = c
		if c.inNext {
			c.inNext = false
			c.yield(struct{}{})
		} else {
			c.inNext = true
			c.next()
		}
		r.switched()
		r.releaseExiting()
		if r.cur == from {
			break
		}
	}
	if from.tear != tearNone {
		runtime.Goexit()
	}
}

// homeHook, when set by a test, runs before each switch of the home
// (resumed false) and right after the home gets the turn back (true).
var homeHook func(r *Run, resumed bool)

// homeResumed is the first thing the home does when it gets the turn back.
// It reports whether the watchdog's stand-in gave it the turn, for it to
// leave the run.
//
//go:norace
func (r *Run) homeResumed() bool {
	if r.homeState.Swap(homeRunning) == homeRescue {
		// The stand-in is parked in the home's place.
		r.homeState.Store(homeParked)
		close(r.rescued)
		return true
	}
	r.releaseExiting()
	return false
}

// releaseExiting lets a goroutine ending with Goexit go once its stand-in
// is in place (see leave): the stand-in's switch gave the caller the turn.
//
//go:norace
func (r *Run) releaseExiting() {
	if e := r.exiting; e != nil {
		r.exiting = nil
		semrelease(&e.sema, false, 0)
	}
}

// switched is called by a goroutine that has just got the turn: if the
// home's switch gave it, the home is now parked.
//
//go:norace
func (r *Run) switched() {
	if r.homeSwitching {
		r.homeSwitching = false
		r.homeState.Store(homeParked)
	}
}

// leave ends the calling goroutine g, whose Goexit is under way (or whose
// panic was recovered, which may resume one), without letting iter.Pull
// raise a Goexit in another managed goroutine: a stand-in parks in g's
// coroutine (resuming the goroutine that sat there, which passes the turn
// on and lets g go), and g's end resumes the stand-in, which exits too.
//
//go:norace
func (r *Run) leave(g *G) {
	r.extra.Add(1)
	r.stoodIn = true
	r.exiting = g
	go g.stand()
	semacquire(&g.sema)
}

//go:norace
func (g *G) stand() { g.own.switchThrough() }

// homeRun is Execute's part in a run: it gives the root its first turn and,
// when the turn comes back, unwinds what the run left parked. It reports
// whether the watchdog rescued it before the end.
//
//go:norace
func (r *Run) homeRun() (rescued bool) {
	r.home.run = r
	r.progress++ // the watchdog measures from here
	if r.resume() {
		return true
	}
	return r.unwind()
}

// unwind ends every goroutine the run left parked, in order, each with
// runtime.Goexit so that its deferred calls run. It reports whether the
// watchdog rescued the home because a deferred call blocked outside the
// scheduler.
//
//go:norace
func (r *Run) unwind() (rescued bool) {
	for ; r.unwound < len(r.gs); r.unwound++ {
		g := r.gs[r.unwound]
		if g.state == gExited || g.tear != tearNone {
			continue
		}
		if !r.unwinding.Load() {
			r.unwinding.Store(true)
			if r.cfg.Watchdog <= 0 {
				startWatchdog()
			}
		}
		g.tear = tearExit
		r.cur = g // its deferred calls run as a managed goroutine of the run
		r.progress++
		if r.resume() {
			return true
		}
	}
	r.cur = nil
	return false
}

// handHome makes the home the current goroutine, for the calling goroutine
// to hand it the turn: not while the watchdog's stand-in takes the home's
// place.
//
//go:norace
func (r *Run) handHome() {
	r.claimHome()
	r.cur = &r.home
}

// claimHome claims the home's slot for a switch into it by a goroutine of
// the run, after a rescue under way if there is one.
//
//go:norace
func (r *Run) claimHome() {
	for !r.homeState.CompareAndSwap(homeParked, homeWorld) {
		<-r.rescued
	}
}

// tryRescue gives the home, parked while a goroutine of its run blocks
// outside the scheduler, back to Execute: a stand-in goroutine takes its
// place as the run's home. It does nothing unless the home is parked; the
// watchdog tries again at its next tick.
//
//go:norace
func (r *Run) tryRescue() {
	r.rescued = make(chan struct{}) // before the state says a rescue is under way
	if !r.homeState.CompareAndSwap(homeParked, homeRescue) {
		return
	}
	r.extra.Add(1)
	r.rescuing.Store(true)
	go func() {
		h := &r.home
		h.slot.switchThrough() // Execute's goroutine gets the turn, and leaves
		// The turn came home: the goroutine that blocked has left.
		if r.homeResumed() || r.cur != h && r.resume() {
			panic("sched: internal error: the home's stand-in was rescued")
		}
		r.unwind()
		removeActive(r)
	}()
}
