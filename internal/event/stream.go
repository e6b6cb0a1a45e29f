package event

import "unsafe"

// StreamTo makes b hand every event to sink as a frame of its own as soon
// as it is added, instead of collecting the run in memory: when a fatal
// error kills the process mid-run (a stack overflow, a throw in the
// runtime), the file sink writes to already holds every event up to the
// last, and reads as a trace cut short. Frames of one event cost about 30
// bytes each, so this is for re-running one crashing schedule, not for
// exploring. b.Len still counts the events; the Buffer itself stays empty.
// Package trace's Writer.Stream is the usual sink.
func (b *Buffer) StreamTo(sink func(*Frame)) { b.stream = sink }

// streamOut hands the current frame to the sink. The engine calls Buffer's
// methods from whichever managed goroutine runs; those handoffs give the
// race detector no happens-before edge, so the sink's state is acquired and
// released around its use explicitly.
//
//go:norace
func (b *Buffer) streamOut() {
	raceAcquire(unsafe.Pointer(b))
	f := b.cur
	b.cur, b.frames = nil, b.frames[:0]
	b.stream(f)
	raceRelease(unsafe.Pointer(b))
}
