package sched

import (
	"sync/atomic"

	"github.com/dstgo/dst/internal/engine"
)

// Once performs exactly one action, with the method set and semantics of
// sync.Once: no call to Do returns until the one call to f has returned, and
// a recursive Do deadlocks. Inside a run Do is a scheduling point and its
// lock is a sched Mutex. Note that a package-level Once stays done across the
// schedules of a test, as it would across the tests of a process.
type Once struct {
	done atomic.Uint32
	m    Mutex
}

// Do calls f if and only if Do is being called for the first time for this
// Once.
func (o *Once) Do(f func()) {
	if g := engine.Current(); g != nil {
		g.Point(engine.OpOnce, nil)
	}
	if o.done.Load() == 0 {
		o.doSlow(f)
	}
}

func (o *Once) doSlow(f func()) {
	o.m.Lock()
	defer o.m.Unlock()
	if o.done.Load() == 0 {
		defer o.markDone()
		f()
	}
}

// markDone records that f has returned, or panicked, or exited with Goexit,
// as sync.Once does; but not when the run's teardown unwinds an f that was
// blocked forever, which Go would never complete.
func (o *Once) markDone() {
	if g := engine.Current(); g != nil && g.TornDown() {
		return
	}
	o.done.Store(1)
}

// OnceFunc returns a function that calls f only once, as sync.OnceFunc: if
// f panics, the returned function panics with the same value on every call.
func OnceFunc(f func()) func() {
	var (
		once  Once
		ok    bool
		fault any
	)
	call := func() {
		defer func() {
			if !ok {
				fault = recover()
				panic(fault)
			}
		}()
		f()
		f = nil
		ok = true
	}
	return func() {
		once.Do(call)
		if !ok {
			panic(fault)
		}
	}
}

// OnceValue returns a function that calls f only once and returns its
// value, as sync.OnceValue.
func OnceValue[T any](f func() T) func() T {
	var v T
	g := OnceFunc(func() { v = f() })
	return func() T {
		g()
		return v
	}
}

// OnceValues returns a function that calls f only once and returns its
// values, as sync.OnceValues.
func OnceValues[T1, T2 any](f func() (T1, T2)) func() (T1, T2) {
	var (
		v1 T1
		v2 T2
	)
	g := OnceFunc(func() { v1, v2 = f() })
	return func() (T1, T2) {
		g()
		return v1, v2
	}
}
