// Package chanlink lets packages vtime and sched/context make and feed
// channels with behaviour of their own, through operations package chans
// lends them at init, without making those operations part of the public
// API of chans: the channels of timers, which behave as Go 1.23's do (no
// buffer visible to the user; at most one pending value; Stop and Reset
// discard it), and the Done channels of contexts, which a deadline closes
// from between two scheduling decisions.
//
// chanlink cannot name chans' types (chans imports it), so the operations
// are generic in the channel type C, and each table is handed over as an
// any that its user asserts once, at its own init.
package chanlink

import "time"

// TimerOps are the operations on timer channels; C is
// *chans.Chan[time.Time].
type TimerOps[C any] struct {
	// New returns a timer channel of the calling goroutine's run.
	New func() C
	// Wrap returns a channel over a native timer's channel, for timers
	// made outside a run.
	Wrap func(c <-chan time.Time) C
	// Deliver offers a tick to a channel made by New: a waiting receiver
	// gets it, else it is kept unless one is already kept.
	Deliver func(c C, now time.Time)
	// Drain discards the value a timer channel keeps, and reports whether
	// there was one.
	Drain func(c C) bool
	// Idle reports that a timer channel keeps an unreceived value and no
	// goroutine waits on it: another tick would change nothing.
	Idle func(c C) bool
}

// DoneOps are the operations on contexts' Done channels; C is
// *chans.Chan[struct{}].
type DoneOps[C any] struct {
	// New returns a Done channel of the calling goroutine's run, named for
	// reports as a context's.
	New func() C
	// Close closes a channel made by New without a scheduling point (a
	// deadline timer cancels from between two decisions); closing it again
	// does nothing.
	Close func(c C)
}

// Timers holds chans' *TimerOps[*chans.Chan[time.Time]] and Dones its
// *DoneOps[*chans.Chan[struct{}]], from chans' init on.
var Timers, Dones any
