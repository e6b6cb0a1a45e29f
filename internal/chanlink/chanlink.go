// Package chanlink lets package vtime make and feed the channels of its
// timers, which behave as Go 1.23's timer channels do (no buffer visible to
// the user; at most one pending value; Stop and Reset discard it), through
// functions package chans registers at init, without making them part of
// the public API of chans.
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
	// Drain discards the value a timer channel keeps.
	Drain func(c any)
)
