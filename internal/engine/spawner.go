package engine

import "unsafe"

// The goroutines that timers start (Timer.Go: AfterFunc, a context's
// AfterFunc on its deadline) come, in Go, from no goroutine of the program:
// nothing the program did orders before them but what it synchronized with.
// Under the scheduler a timer fires in whichever goroutine advanced the
// clock, and without -race it starts them there, which orders nothing the
// race detector sees. Under -race, goroutines are started with go
// statements, and a go statement orders everything its caller did before
// the new goroutine: "x = 1" in the goroutine that moved the clock would
// hide its race with the read of x in an AfterFunc. So under -race a
// spawner goroutine, made by the run's home when the run starts, runs those
// go statements; requests reach it through the runtime's semaphores, which
// order nothing either (see sema.go). The only edge left is the one Go has:
// from where the timer was armed (Timer.sync) to the goroutine it starts.

// spawner starts the goroutines of a run's timers under -race.
type spawner struct {
	sema, done uint32 // a request is ready; it was served
	quit       bool
	g          *G
	f          func()
	sync       unsafe.Pointer
}

// startSpawner starts r's spawner; the home calls it as the run starts.
//
//go:norace
func (r *Run) startSpawner() {
	sp := &spawner{}
	r.spawner = sp
	r.extra.Add(1) // not an escape
	go r.serveSpawns(sp)
}

//go:norace
func (r *Run) serveSpawns(sp *spawner) {
	for {
		semacquire(&sp.sema)
		if sp.quit {
			return
		}
		go r.startTimerG(sp.g, sp.f, sp.sync)
		semrelease(&sp.done, false, 0)
	}
}

// startTimerG is the body of a goroutine a timer starts, under -race.
//
//go:norace
func (r *Run) startTimerG(g *G, f func(), sync unsafe.Pointer) {
	r.start(g, func() {
		RaceAcquire(sync)
		f()
	})
}

// spawnFromTimer has the spawner start g, which runs f once sync is
// acquired.
//
//go:norace
func (r *Run) spawnFromTimer(g *G, f func(), sync unsafe.Pointer) {
	sp := r.spawner
	sp.g, sp.f, sp.sync = g, f, sync
	semrelease(&sp.sema, false, 0)
	semacquire(&sp.done)
	sp.g, sp.f, sp.sync = nil, nil, nil
}

// stopSpawner ends r's spawner, if it has one.
//
//go:norace
func (r *Run) stopSpawner() {
	if sp := r.spawner; sp != nil {
		r.spawner = nil
		sp.quit = true
		semrelease(&sp.sema, false, 0)
	}
}
