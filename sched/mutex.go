package sched

import (
	"sync"
	"unsafe"

	"github.com/dstgo/dst/internal/engine"
)

// Mutex is a mutual exclusion lock with the method set and semantics of
// sync.Mutex. The zero value is an unlocked mutex; a Mutex must not be copied
// after first use. Inside a run, Lock, Unlock and TryLock are scheduling
// points and a goroutine blocked in Lock is reported by deadlock and leak
// checks. Any goroutine may unlock it, as in Go. Unlocking an unlocked Mutex
// fails the run with Go's fatal error "sync: unlock of unlocked mutex".
// Outside a run it is a sync.Mutex.
type Mutex struct {
	native  sync.Mutex
	obj     engine.Obj
	locked  bool
	waiters engine.WaitQ
}

var _ sync.Locker = (*Mutex)(nil)

// Lock locks m, blocking until it is available.
func (m *Mutex) Lock() {
	g := engine.Current()
	if g == nil {
		m.obj.CheckNative(engine.OpLock)
		m.native.Lock()
		return
	}
	m.lock(g)
}

// TryLock tries to lock m and reports whether it succeeded.
func (m *Mutex) TryLock() bool {
	g := engine.Current()
	if g == nil {
		m.obj.CheckNative(engine.OpTryLock)
		return m.native.TryLock()
	}
	return m.tryLock(g)
}

// Unlock unlocks m. It is a fatal error if m is not locked.
func (m *Mutex) Unlock() {
	g := engine.Current()
	if g == nil {
		m.obj.CheckNative(engine.OpUnlock)
		m.native.Unlock()
		return
	}
	m.unlock(g)
}

//go:norace
func (m *Mutex) bind(g *engine.G) {
	if m.obj.Bind(g, engine.KindMutex) {
		m.locked = false
		m.waiters.Reset()
		if !m.native.TryLock() {
			g.Misuse(m.obj.String() + " was locked outside the run and is used inside it; a run's objects start unlocked in the run")
		}
		m.native.Unlock()
	}
}

//go:norace
func (m *Mutex) lock(g *engine.G) {
	m.bind(g)
	g.Point(engine.OpLock, &m.obj)
	for m.locked {
		m.waiters.Wait(g, engine.OpLock, &m.obj)
	}
	m.locked = true
	m.obj.Hold(g)
	engine.RaceAcquire(unsafe.Pointer(m))
}

//go:norace
func (m *Mutex) tryLock(g *engine.G) bool {
	m.bind(g)
	g.Point(engine.OpTryLock, &m.obj)
	if m.locked {
		g.Polled() // for the clock: it polled and found nothing
		return false
	}
	m.locked = true
	m.obj.Hold(g)
	engine.RaceAcquire(unsafe.Pointer(m))
	return true
}

//go:norace
func (m *Mutex) unlock(g *engine.G) {
	m.bind(g)
	g.Point(engine.OpUnlock, &m.obj)
	if !m.locked {
		g.Fatal("sync: unlock of unlocked mutex")
	}
	engine.RaceRelease(unsafe.Pointer(m))
	m.locked = false
	m.obj.Release()
	// Every waiter retries: whichever the scheduler runs first takes the
	// lock, as a goroutine arriving at a free sync.Mutex may.
	m.waiters.WakeAll()
}
