// Package engine is the scheduler behind package sched: runs, managed
// goroutines, the handoff between them, the exploration strategies, the
// oracles and the failure reports. Package sched and its shims are its only
// users; its API may change at any time.
//
// A Run executes a body as goroutine 1 and serializes every goroutine it
// manages: exactly one is current, and it runs until it calls G.Point (a
// scheduling point), blocks (WaitQ.Wait, G.Block), or exits. The goroutine
// that stops picks the next one itself (the strategy draws from the run's
// entropy source) and hands over through runtime semaphores, which create no
// happens-before edge for the race detector; shims report the edges their
// operation really creates with RaceAcquire and RaceRelease. Because of
// that, every function here that touches run or object state is marked
// //go:norace and avoids what the runtime race-checks even then: map writes,
// the copy builtin and append of a slice.
//
// When no goroutine is runnable the run ends: it passed if every goroutine
// exited, it deadlocked if the body is blocked, and it leaks otherwise. The
// harness (Execute's caller) then unwinds the goroutines left blocked with
// runtime.Goexit, one at a time, so their deferred calls run. One watchdog
// goroutine per process abandons a run whose current goroutine stops
// reaching scheduling points.
package engine
