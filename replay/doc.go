// Package replay plays a trace back: a Cursor steps through a trace file
// (see package trace), forward and back, event by event or goroutine by
// goroutine, and gives the state of every goroutine at any event (running,
// runnable, blocked and in what, exited; where in the source), for tools
// that show a run to a person, such as dstreplay's stepper.
//
// It reads traces only; re-executing a test body from a trace, and checking
// that a body is deterministic, are the harness's (schedtest.Replay and
// schedtest.Check).
package replay
