// Package engine is the scheduler behind package sched: runs, managed
// goroutines, the handoff between them, the exploration strategies, the
// oracles and the failure reports. Package sched and its shims are its only
// users; its API may change at any time.
//
// A Run executes a body as goroutine 1 and serializes every goroutine it
// manages: exactly one is current, and it runs until it calls G.Point (a
// scheduling point), blocks (WaitQ.Wait, G.Block), or exits. The goroutine
// that stops picks the next one itself (the strategy draws from the run's
// entropy source) and hands over. Without -race managed goroutines are
// coroutines and the handoff is one runtime coroutine switch (coro.go).
// Under -race it goes through runtime semaphores (sema.go), which create no
// happens-before edge for the race detector; shims report the edges their
// operation really creates with RaceAcquire and RaceRelease. Because of
// that, every function here that touches run or object state is marked
// //go:norace and avoids what the runtime race-checks even then: map writes,
// the copy builtin and append of a slice.
//
// When no goroutine is runnable the run ends: it passed if every goroutine
// exited, it deadlocked if the body is blocked, and it leaks otherwise. The
// goroutines left blocked are then unwound with runtime.Goexit, one at a
// time, so their deferred calls run: by Execute's goroutine, which is the
// run's home (coroutines), or by the harness after the run (semaphores).
// One watchdog goroutine per process abandons a run whose current goroutine
// stops reaching scheduling points.
//
// A managed goroutine must not call runtime.LockOSThread without -race: the
// runtime's coroutine switch stops the program ("coro: OS thread locking
// must match locking at coroutine creation").
package engine
