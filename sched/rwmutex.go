package sched

import (
	"sync"
	"unsafe"

	"github.com/dstgo/dst/internal/engine"
)

// RWMutex is a reader/writer mutual exclusion lock with the method set and
// semantics of sync.RWMutex, including writer preference: once a goroutine
// waits in Lock, new RLock calls block until it has had the lock, so a
// goroutine that read-locks recursively while a writer waits deadlocks, as in
// Go. When a writer unlocks, the readers that were waiting get the lock
// before the next writer. The zero value is unlocked. Inside a run every
// method is a scheduling point; outside a run it is a sync.RWMutex.
type RWMutex struct {
	native  sync.RWMutex
	obj     engine.Obj
	writer  bool // a writer got past other writers: it holds, or waits for readers
	held    bool // the writer holds the lock
	readers int  // goroutines holding a read lock
	readerQ engine.WaitQ
	writerQ engine.WaitQ
	drainQ  engine.WaitQ
}

// Lock locks rw for writing.
func (rw *RWMutex) Lock() {
	if g := engine.Current(); g != nil {
		rw.lock(g)
		return
	}
	rw.obj.CheckNative(engine.OpLock)
	rw.native.Lock()
}

// Unlock unlocks rw for writing. It is a fatal error if rw is not locked for
// writing.
func (rw *RWMutex) Unlock() {
	if g := engine.Current(); g != nil {
		rw.unlock(g)
		return
	}
	rw.obj.CheckNative(engine.OpUnlock)
	rw.native.Unlock()
}

// RLock locks rw for reading. It must not be used for recursive read locking.
func (rw *RWMutex) RLock() {
	if g := engine.Current(); g != nil {
		rw.rlock(g)
		return
	}
	rw.obj.CheckNative(engine.OpRLock)
	rw.native.RLock()
}

// RUnlock undoes a single RLock call. It is a fatal error if rw is not
// locked for reading.
func (rw *RWMutex) RUnlock() {
	if g := engine.Current(); g != nil {
		rw.runlock(g)
		return
	}
	rw.obj.CheckNative(engine.OpRUnlock)
	rw.native.RUnlock()
}

// TryLock tries to lock rw for writing and reports whether it succeeded.
func (rw *RWMutex) TryLock() bool {
	if g := engine.Current(); g != nil {
		return rw.tryLock(g)
	}
	rw.obj.CheckNative(engine.OpTryLock)
	return rw.native.TryLock()
}

// TryRLock tries to lock rw for reading and reports whether it succeeded.
func (rw *RWMutex) TryRLock() bool {
	if g := engine.Current(); g != nil {
		return rw.tryRLock(g)
	}
	rw.obj.CheckNative(engine.OpTryRLock)
	return rw.native.TryRLock()
}

// RLocker returns a Locker whose Lock and Unlock call rw.RLock and
// rw.RUnlock.
func (rw *RWMutex) RLocker() sync.Locker { return (*rlocker)(rw) }

type rlocker RWMutex

func (r *rlocker) Lock()   { (*RWMutex)(r).RLock() }
func (r *rlocker) Unlock() { (*RWMutex)(r).RUnlock() }

// Race-detector edges, as sync.RWMutex creates them: read lockers acquire
// what the last writer released; a writer acquires what every reader
// released.
//
//go:norace
func (rw *RWMutex) readerSync() unsafe.Pointer { return unsafe.Pointer(&rw.readers) }

//go:norace
func (rw *RWMutex) writerSync() unsafe.Pointer { return unsafe.Pointer(&rw.held) }

//go:norace
func (rw *RWMutex) bind(g *engine.G) {
	if rw.obj.Bind(g, engine.KindRWMutex) {
		rw.writer, rw.held, rw.readers = false, false, 0
		rw.readerQ.Reset()
		rw.writerQ.Reset()
		rw.drainQ.Reset()
		if !rw.native.TryLock() {
			g.Misuse(rw.obj.String() + " was locked or read-locked outside the run and is used inside it; a run's objects start unlocked in the run")
		}
		rw.native.Unlock()
	}
}

//go:norace
func (rw *RWMutex) lock(g *engine.G) {
	rw.bind(g)
	g.Point(engine.OpLock, &rw.obj)
	for rw.writer {
		rw.writerQ.Wait(g, engine.OpLock, &rw.obj)
	}
	rw.writer = true // from here on, new readers wait
	for rw.readers > 0 {
		rw.drainQ.Wait(g, engine.OpLock, &rw.obj)
	}
	rw.held = true
	rw.obj.Hold(g)
	engine.RaceAcquire(rw.readerSync())
	engine.RaceAcquire(rw.writerSync())
}

//go:norace
func (rw *RWMutex) tryLock(g *engine.G) bool {
	rw.bind(g)
	g.Point(engine.OpTryLock, &rw.obj)
	if rw.writer || rw.readers > 0 {
		g.Polled() // for the clock: it polled and found nothing
		return false
	}
	rw.writer, rw.held = true, true
	rw.obj.Hold(g)
	engine.RaceAcquire(rw.readerSync())
	engine.RaceAcquire(rw.writerSync())
	return true
}

//go:norace
func (rw *RWMutex) unlock(g *engine.G) {
	rw.bind(g)
	g.Point(engine.OpUnlock, &rw.obj)
	switch {
	case !rw.held && rw.writer:
		// Go throws only when no writer has announced itself; here one
		// waits for the readers to leave, and Go's Unlock would release
		// that writer's internal lock and leave the readers' count
		// corrupted, with no error. Reported for what it is.
		g.Misuse("sync: Unlock of " + rw.obj.String() + ", which is not write-locked (a writer is on its way to taking it); " +
			"Go does not detect this, and the RWMutex would be corrupted: the waiting writer may never wake")
	case !rw.held:
		g.Fatal("sync: Unlock of unlocked RWMutex")
	}
	engine.RaceRelease(rw.readerSync())
	rw.held = false
	rw.obj.Release()
	// The readers that waited get the lock now, before any other writer.
	rw.readers += rw.readerQ.Len()
	rw.readerQ.WakeAll()
	rw.writer = false
	rw.writerQ.WakeAll()
}

//go:norace
func (rw *RWMutex) rlock(g *engine.G) {
	rw.bind(g)
	g.Point(engine.OpRLock, &rw.obj)
	if rw.writer {
		// Unlock counts this goroutine as a reader when it wakes it.
		rw.readerQ.Wait(g, engine.OpRLock, &rw.obj)
	} else {
		rw.readers++
	}
	engine.RaceAcquire(rw.readerSync())
}

//go:norace
func (rw *RWMutex) tryRLock(g *engine.G) bool {
	rw.bind(g)
	g.Point(engine.OpTryRLock, &rw.obj)
	if rw.writer {
		g.Polled() // for the clock: it polled and found nothing
		return false
	}
	rw.readers++
	engine.RaceAcquire(rw.readerSync())
	return true
}

//go:norace
func (rw *RWMutex) runlock(g *engine.G) {
	rw.bind(g)
	g.Point(engine.OpRUnlock, &rw.obj)
	if rw.readers <= 0 {
		g.Fatal("sync: RUnlock of unlocked RWMutex")
	}
	engine.RaceReleaseMerge(rw.writerSync())
	rw.readers--
	if rw.readers == 0 && rw.writer {
		rw.drainQ.WakeOne()
	}
}
