package engine

import (
	"iter"
	"time"
)

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
// The one thing iter.Pull does not let go of is a goroutine's end. When a
// managed goroutine returns, the runtime resumes whichever goroutine sits in
// its own object, which then passes the turn on to the run's current
// goroutine (resume loops until it is the current one itself). When it ends
// with runtime.Goexit (t.FailNow, a teardown), iter.Pull would raise the
// Goexit again in the goroutine it resumes if that one called next. So such
// a goroutine first puts a short-lived stand-in goroutine in its place
// (leave), and the stand-in takes the Goexit.
//
// A plain goroutine, the run's home, starts the root and gets the turn back
// when the run ends: it unwinds the goroutines left parked, one at a time,
// and then tells Execute the run is over.
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

// spawnCoro makes g a coroutine that runs f on its first turn.
//
//go:norace
func (r *Run) spawnCoro(g *G, f func()) {
	c := &coro{}
	g.own, g.slot = c, c
	c.next, _ = iter.Pull(func(yield func(struct{}) bool) {
		c.yield = yield
		r.start(g, f)
	})
}

// resume parks from, which is running, until it is the run's current
// goroutine again, handing the turn to the current one.
//
//go:norace
func (r *Run) resume(from *G) {
	for {
		c := r.cur.slot
		from.slot = c
		c.switchThrough()
		if e := r.exiting; e != nil {
			// A goroutine ending with Goexit has its stand-in in place.
			r.exiting = nil
			semrelease(&e.sema, false, 0)
		}
		if r.cur == from {
			return
		}
	}
}

// leave ends the calling goroutine g, whose Goexit is under way, without
// letting iter.Pull raise that Goexit in another managed goroutine: a
// stand-in parks in g's coroutine (resuming the goroutine that sat there,
// which passes the turn on and lets g go), and g's end resumes the stand-in,
// which exits too.
//
//go:norace
func (r *Run) leave(g *G) {
	r.extra.Add(1)
	r.exiting = g
	go g.stand()
	semacquire(&g.sema)
}

//go:norace
func (g *G) stand() { g.own.switchThrough() }

// launch starts the run's home goroutine, which gives the root its first
// turn.
//
//go:norace
func (r *Run) launch() {
	r.home = &G{run: r}
	r.tearing = make(chan struct{})
	r.extra.Add(1)
	go r.homeLoop()
}

// homeLoop is the home goroutine: it starts the run, and gets the turn back
// when the run has ended (finish, or the goroutine the watchdog gave up on
// leaving), to unwind the goroutines left parked.
//
//go:norace
func (r *Run) homeLoop() {
	h := r.home
	r.resume(h)
	abandoned := r.abandoned.Load()
	var gs []*G
	for _, g := range r.gs {
		if g.state != gExited {
			gs = append(gs, g)
		}
	}
	if len(gs) > 0 && !abandoned {
		r.ack = make(chan *G, len(gs))
		close(r.tearing)
	}
	for _, g := range gs {
		g.tear = tearExit
		r.cur = g // its deferred calls run as a managed goroutine of the run
		r.resume(h)
		if !abandoned {
			r.ack <- g
		}
	}
	r.cur = nil
	if abandoned {
		removeActive(r)
		return
	}
	close(r.done)
}

// awaitHome waits for the home goroutine to finish unwinding the run's
// parked goroutines. A deferred call that blocks outside the scheduler
// stops it: after the watchdog period (10s without one) with no goroutine
// done, the rest is left behind.
//
//go:norace
func (r *Run) awaitHome() {
	select {
	case <-r.done:
		return
	case <-r.tearing:
	}
	timeout := r.cfg.Watchdog
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-r.ack:
			t.Reset(timeout)
		case <-t.C:
			return
		}
	}
}

// spawn makes g, just created by newG, a goroutine that runs f on its first
// turn.
//
//go:norace
func (r *Run) spawn(g *G, f func()) {
	if coroutines {
		r.spawnCoro(g, f)
		return
	}
	go r.start(g, f)
}
