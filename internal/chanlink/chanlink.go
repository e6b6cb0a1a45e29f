// Package chanlink lets packages vtime and sched/context make and feed
// channels with behaviour of their own, through functions package chans
// registers at init, without making them part of the public API of chans:
// the channels of timers, which behave as Go 1.23's do (no buffer visible
// to the user; at most one pending value; Stop and Reset discard it), and
// the Done channels of contexts, which a deadline closes from between two
// scheduling decisions.
package chanlink

import "time"

var (
	// NewTimerChan returns a *chans.Chan[time.Time] for a timer of the
	// calling goroutine's run.
	NewTimerChan func() any
	// WrapTimerChan returns a *chans.Chan[time.Time] over a native timer
	// channel, for timers made outside a run.
	WrapTimerChan func(c <-chan time.Time) any
	// Deliver offers a tick to a timer channel made by NewTimerChan: a
	// waiting receiver gets it, else it is kept unless one is already kept.
	Deliver func(c any, now time.Time)
	// Drain discards the value a timer channel keeps, and reports whether
	// there was one.
	Drain func(c any) bool
	// Idle reports that a timer channel keeps an unreceived value and no
	// goroutine waits on it: another tick would change nothing.
	Idle func(c any) bool

	// NewDoneChan returns a *chans.Chan[struct{}] of the calling
	// goroutine's run, named for reports as a context's Done channel.
	NewDoneChan func() any
	// CloseDone closes a channel made by NewDoneChan without a scheduling
	// point (a deadline timer cancels from between two decisions); closing
	// it again does nothing.
	CloseDone func(c any)
)
