package sched

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/dstgo/dst/internal/engine"
)

// Cond is a condition variable with the fields, method set and semantics of
// sync.Cond: L is held while observing or changing the condition; Wait
// atomically unlocks L and suspends the goroutine, and locks L again before
// returning; Signal wakes the goroutine that has waited longest, Broadcast
// wakes all. A Cond must not be copied after first use ("sync.Cond is
// copied"). Inside a run, with L a sched Mutex or RWMutex, every method is a
// scheduling point and a goroutine blocked in Wait is reported by deadlock
// and leak checks. Outside a run it is a sync.Cond.
type Cond struct {
	// L is held while observing or changing the condition.
	L sync.Locker

	checker uintptr
	obj     engine.Obj
	waiters []*condWaiter
	spare   *condWaiter // a waiter to reuse: no allocation per Wait

	nativeInit sync.Once
	native     sync.Cond
}

type condWaiter struct {
	g        *engine.G
	notified bool
	sleeping bool // blocked in the Cond itself, not in L.Unlock
}

// NewCond returns a new Cond with Locker l.
func NewCond(l sync.Locker) *Cond { return &Cond{L: l} }

// Wait atomically unlocks c.L and suspends the calling goroutine until
// Signal or Broadcast wakes it, then locks c.L before returning. As with
// sync.Cond, the caller should re-check its condition in a loop.
func (c *Cond) Wait() {
	c.check()
	if g := engine.Current(); g != nil {
		w := c.enqueue(g)
		c.L.Unlock()
		c.sleep(g, w)
		c.L.Lock()
		return
	}
	c.obj.CheckNative(engine.OpCondWait)
	c.nativeCond().Wait()
}

// Signal wakes the goroutine that has waited longest on c, if any.
func (c *Cond) Signal() {
	c.check()
	if g := engine.Current(); g != nil {
		c.notify(g, engine.OpCondSignal, false)
		return
	}
	c.obj.CheckNative(engine.OpCondSignal)
	c.nativeCond().Signal()
}

// Broadcast wakes all goroutines waiting on c.
func (c *Cond) Broadcast() {
	c.check()
	if g := engine.Current(); g != nil {
		c.notify(g, engine.OpCondBroadcast, true)
		return
	}
	c.obj.CheckNative(engine.OpCondBroadcast)
	c.nativeCond().Broadcast()
}

func (c *Cond) nativeCond() *sync.Cond {
	c.nativeInit.Do(func() { c.native.L = c.L })
	return &c.native
}

// check panics if c was copied after first use, as sync.Cond does. Like
// sync's copy checker it reads the field plainly: an atomic load would give
// the race detector a happens-before edge from the first user of c to every
// later one, and hide their races.
//
//go:norace
func (c *Cond) check() {
	self := uintptr(unsafe.Pointer(&c.checker))
	if c.checker != self && !atomic.CompareAndSwapUintptr(&c.checker, 0, self) && c.checker != self {
		panic("sync.Cond is copied")
	}
}

//go:norace
func (c *Cond) bind(g *engine.G) {
	if c.obj.Bind(g, engine.KindCond) {
		c.waiters, c.spare = nil, nil
	}
}

// enqueue registers g as a waiter before it unlocks L, so that a Signal
// between the Unlock and the sleep is not lost.
//
//go:norace
func (c *Cond) enqueue(g *engine.G) *condWaiter {
	c.bind(g)
	g.Point(engine.OpCondWait, &c.obj)
	w := c.spare
	if w == nil {
		w = &condWaiter{g: g}
	} else {
		c.spare, w.g = nil, g
	}
	c.waiters = append(c.waiters, w)
	return w
}

//go:norace
func (c *Cond) sleep(g *engine.G, w *condWaiter) {
	if !w.notified {
		w.sleeping = true
		g.Block(engine.OpCondWait, &c.obj)
		w.sleeping = false
	}
	// Notified, w is no longer in c.waiters, and nothing else holds it.
	*w = condWaiter{}
	c.spare = w
}

//go:norace
func (c *Cond) notify(g *engine.G, op engine.Op, all bool) {
	c.bind(g)
	g.Point(op, &c.obj)
	n := min(len(c.waiters), 1)
	if all {
		n = len(c.waiters)
	}
	for _, w := range c.waiters[:n] {
		w.notified = true
		if w.sleeping {
			// Otherwise it is still between enqueue and sleep, possibly
			// blocked in L.Unlock: it will see notified and not sleep.
			w.g.Unblock()
		}
	}
	// The rest shifted down, not resliced: the array is kept for the next
	// waiters (no copy or clear builtin, which the race detector sees).
	k := 0
	for _, w := range c.waiters[n:] {
		c.waiters[k] = w
		k++
	}
	for i := k; i < len(c.waiters); i++ {
		c.waiters[i] = nil
	}
	c.waiters = c.waiters[:k]
}
