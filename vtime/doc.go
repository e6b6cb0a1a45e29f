// Package vtime is the time package for code that runs under the scheduler
// (package sched): Now, Since, Until, Sleep, After, Tick, NewTimer,
// NewTicker and AfterFunc, with the semantics of the time package since Go
// 1.23. A Timer's or Ticker's C is a *chans.Chan, so it can be a case of
// chans.Select; it is unbuffered (Len and Cap are 0), and after Stop or
// Reset returns no stale value is received from it.
//
// Inside a run, time is virtual. The clock starts at a fixed instant, an
// ordinary weekday afternoon, 2025-06-18T14:23:47.318204719Z, unless
// schedtest.Options.Start says otherwise; but when code under the
// scheduler has read a later real time outside any run (Now in a package's
// init or a TestMain), a millisecond after the latest such reading, so that
// time never runs backwards for the program. It moves when every managed
// goroutine is blocked and a timer is pending: it then jumps to the
// earliest deadline, so a test that sleeps for hours runs in microseconds. Timers due at the same instant fire in an order drawn
// from the run's entropy. With schedtest.Options.ClockFaults, timers fire late
// and the clock jumps forward, within bounds, as drawn from the entropy.
//
// Time also passes as it does in Go while goroutines do not block:
//
//   - While every runnable goroutine only polls (a select that takes its
//     default case, a failed TryLock, sched.Yield, an atomic load of the
//     value it just loaded), the clock advances in steps that start at a few
//     microseconds and double, never past the next deadline: a goroutine that
//     polls while another sleeps sees the sleeper wake. Work by any goroutine
//     (a lock taken, a value sent) stops it, so work never makes a deadline
//     come early. (A goroutine that polls by taking a lock to read a flag
//     works, as far as the scheduler can tell: block or poll instead.)
//   - While a goroutine sits in native work (a system call, a child process,
//     code that is not rewritten), the clock advances by the real time it
//     sat there, as the watchdog measures it (so not with the watchdog
//     off), when it next reaches a scheduling point. The advance is
//     recorded in the run's entropy, and a replay takes it from there.
//   - time.Now in code that dstreplay test rewrites reads the clock as Go's
//     reads the real one: each reading is 20 to 100 ns after the one before,
//     and 1 to 20 µs after the instant the clock jumped to if it moved since
//     (a goroutine wakes some microseconds after its timer's deadline). Now
//     here is the clock's own instant.
//
// Every advance is drawn from the run's entropy or recorded in it: a
// recording replays exactly, and so does a seed, unless native work made
// time pass (its length, measured in real time, is in the recording).
//
// Outside a run every function is the time package's: the same code runs in
// production with real time.
package vtime
