// Package vtime is the time package for code that runs under the scheduler
// (package sched): Now, Since, Until, Sleep, After, Tick, NewTimer,
// NewTicker and AfterFunc, with the semantics of the time package since Go
// 1.23. A Timer's or Ticker's C is a *chans.Chan, so it can be a case of
// chans.Select; it is unbuffered (Len and Cap are 0), and after Stop or
// Reset returns no stale value is received from it.
//
// Inside a run, time is virtual. The clock starts at a fixed instant,
// 2000-01-01T00:00:00Z unless schedtest.Options.Start says otherwise, and moves
// only when every managed goroutine is blocked and a timer is pending: it
// then jumps to the earliest deadline, so a test that sleeps for hours runs
// in microseconds. Timers due at the same instant fire in an order drawn
// from the run's entropy. With schedtest.Options.ClockFaults, timers fire late
// and the clock jumps forward, within bounds, as drawn from the entropy.
//
// Because the clock advances only when every goroutine is blocked, a
// goroutine that polls (with sched.Yield, or a select with a default case)
// waiting for a deadline never lets it come; the run then reaches its step
// bound and is reported as a livelock. Block instead: receive from the
// timer's channel, or Sleep.
//
// Outside a run every function is the time package's: the same code runs in
// production with real time.
package vtime
