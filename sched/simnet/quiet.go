package simnet

import (
	"sync"

	"github.com/dstgo/dst/internal/engine"
)

// quietMutex is the network's lock: inside a run, a sched.Mutex's
// scheduling points and waits, without its edge for the race detector.
// Go's network orders nothing between two goroutines that use different
// connections, so the race detector finds what they race on; a lock
// every read and write of every connection took, ordering each after the
// one before, hid those races. The edges the network does make are its
// messages' (a send before the read that gets its bytes, a dial before
// the accept of its connection), which the pipes and listeners make
// themselves. What the lock guards is read and written in norace
// functions, for the same reason. Outside a run it is a sync.Mutex.
type quietMutex struct {
	obj     engine.Obj
	locked  bool
	waiters engine.WaitQ
	native  sync.Mutex
}

//go:norace
func (m *quietMutex) Lock() {
	g := engine.Current()
	if g == nil {
		m.obj.CheckNative(engine.OpLock)
		m.native.Lock()
		return
	}
	if m.obj.Bind(g, engine.KindMutex) {
		m.locked = false
		m.waiters.Reset()
	}
	g.Point(engine.OpLock, &m.obj)
	for m.locked {
		m.waiters.Wait(g, engine.OpLock, &m.obj)
	}
	m.locked = true
	m.obj.Hold(g)
}

//go:norace
func (m *quietMutex) Unlock() {
	g := engine.Current()
	if g == nil {
		m.obj.CheckNative(engine.OpUnlock)
		m.native.Unlock()
		return
	}
	g.Point(engine.OpUnlock, &m.obj)
	if !m.locked {
		g.Fatal("simnet: unlock of the network's unlocked lock")
	}
	m.locked = false
	m.obj.Release()
	m.waiters.WakeAll()
}
