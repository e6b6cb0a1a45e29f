package engine

import (
	"runtime"
	"unsafe"
	_ "unsafe"
) // for go:linkname

// The handoff between managed goroutines goes through the runtime's
// semaphores rather than channels: a channel operation tells the race
// detector about a happens-before edge, which would hide every data race
// between the goroutines being serialized. The semaphores create no such
// edge, so shims report the edges Go really creates (see race.go).

//go:linkname semacquire sync.runtime_Semacquire
func semacquire(s *uint32)

//go:linkname semrelease sync.runtime_Semrelease
func semrelease(s *uint32, handoff bool, skipframes int)

// awaitEnd waits for a run whose goroutines hand over through semaphores
// to end, and tears it down.
func (r *Run) awaitEnd() {
	if stuck := r.wait(); stuck != nil {
		// The goroutine that stopped reaching scheduling points may resume
		// at any moment and touch the run's state: the rest is torn down
		// only once it has left (at its next scheduling point, which sees
		// the run abandoned). Until then the run stays findable, so that
		// goroutine is still recognized as managed.
		r.markClosed()
		go func() {
			<-r.gone
			r.teardown()
			r.stopSpawner()
			removeActive(r)
		}()
		return
	}
	r.teardown()
	r.stopSpawner()
	RaceAcquire(unsafe.Pointer(&r.exitSync))
	if r.failure == nil {
		r.failure = r.external.Load()
	}
	r.markClosed()
	removeActive(r)
}

// park waits on g's semaphore until g is scheduled, or torn down.
//
//go:norace
func (r *Run) park(g *G) {
	if coroutines {
		r.handoff(g)
		return
	}
	for {
		semacquire(&g.sema)
		switch g.tear {
		case tearNone:
			return
		case tearSync:
			RaceReleaseMerge(unsafe.Pointer(&r.endSync))
			r.ack <- g
		default:
			RaceAcquire(unsafe.Pointer(&r.endSync))
			runtime.Goexit()
		}
	}
}

//go:norace
func (r *Run) switchTo(from, to *G) {
	r.beginSwitch(from, to)
	semrelease(&to.sema, false, 1)
	r.park(from)
}
