// Package sched holds the shims that code under test calls: [Go] and
// [Yield], the sync primitives ([Mutex], [RWMutex], [WaitGroup], [Cond],
// [Once]), fault points ([Fault], [StopFaults]) and coverage marks
// ([Reach]). Inside a run of the deterministic scheduler they are its
// scheduling points; outside one they are their sync counterparts, so the
// same code ships to production. Tests drive runs with package
// sched/schedtest, which explores many interleavings, finds the ones that
// break the code, and reproduces any of them exactly.
//
// This package links neither testing nor the trace writer: a program that
// uses it gets no -dst flags and no harness.
//
// # Terms
//
// A run is one execution of a test body under the scheduler. Inside a run,
// goroutines started with [Go] (or [WaitGroup.Go]) are managed: exactly one
// of them runs at a time, and it runs until it reaches a scheduling point.
// There the scheduler's strategy picks which runnable goroutine continues,
// possibly the same one. Every choice it makes is drawn from the run's
// entropy source (package entropy), so the seed, or the recording of the
// values drawn, determines the schedule: the same seed gives the same
// decisions, byte for byte, at any GOMAXPROCS and under -race.
//
// The scheduling points are exactly: [Go]; [Yield]; [Fault] when its fault
// may fire (a probability above zero, before [StopFaults]); every method of
// [Mutex], [RWMutex], [WaitGroup], [Cond] and [Once]; every operation of the
// types in sched/atomic; every channel operation and Select of package
// chans; Sleep and the Stop and Reset methods of package vtime; and a
// cancel function, Err, and receiving from Done of package sched/context. A
// goroutine is blocked when it waits in one of them (Lock on a locked Mutex,
// Wait, Recv on an empty channel, Sleep, ...); a blocked goroutine runs
// again only after another goroutine, or a timer, wakes it. Code between two
// scheduling points runs without interruption, as if atomic.
//
// Time is virtual inside a run (package vtime): the clock moves only when
// every goroutine is blocked and a timer is pending, to the earliest
// deadline.
//
// # Determinism
//
// The scheduler controls interleavings, faults and the body's draws from
// schedtest.T.Entropy. It cannot control map iteration order, time.Now,
// the global math/rand, goroutines started with a plain go statement, or
// blocking outside its shims; a test that depends on them may not reproduce. When a
// failing schedule fails differently on re-execution, the report says so.
// Package-level state persists from one schedule to the next.
package sched
