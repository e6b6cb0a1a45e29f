package trace

import "unsafe"

// StreamTo makes b write every event to w as its own frame as soon as it is
// added, instead of collecting the run in memory: when a fatal error kills
// the process mid-run (a stack overflow, a throw in the runtime), the file
// under w already holds every event up to the last, and reads as a trace
// cut short. Frames of one event cost about 30 bytes each, so this is for
// re-running one crashing schedule, not for exploring. b.Len still counts
// the events; the Buffer itself stays empty. Close the Writer after the run
// if the process survives it.
func (b *Buffer) StreamTo(w *Writer) { b.stream = w }

// streamOut hands the current frame to the stream's Writer. The engine
// calls Buffer's methods from whichever managed goroutine runs; those
// handoffs give the race detector no happens-before edge, so the Writer's
// state is acquired and released around its use explicitly.
//
//go:norace
func (b *Buffer) streamOut() {
	raceAcquire(unsafe.Pointer(b))
	w, f := b.stream, b.cur
	b.cur, b.frames = nil, b.frames[:0]
	f.first = w.events
	w.cur = f
	w.events += int64(f.n)
	w.flush()
	raceRelease(unsafe.Pointer(b))
}
