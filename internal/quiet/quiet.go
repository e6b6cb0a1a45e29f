// Package quiet is state that a run's goroutines share with no edge the
// race detector sees: a lock with a sched.Mutex's scheduling points and
// waits but no happens-before edge, a map and appends the detector does
// not check.
//
// A simulated network or disk that ordered every goroutine using it after
// every other (a sync or sched mutex around its state) would hide the
// races between goroutines of the code under test that Go's own network
// or file system does not order: two handlers of different connections,
// two writers of different files. So their state is kept here, read and
// written in norace functions, and the only edges they make are the ones
// Go's would (a send before the read that gets its bytes), explicitly.
// The runtime checks a Go map's accesses, and the append and copy
// builtins' copies, for races even in a norace function: hence Table,
// Push and AppendBytes.
package quiet

import (
	"sync"
	"unsafe"

	"github.com/dstgo/dst/internal/engine"
)

// Mutex is, inside a run, a sched.Mutex's scheduling points and waits,
// without its edge for the race detector; outside one, a sync.Mutex.
type Mutex struct {
	obj     engine.Obj
	locked  bool
	waiters engine.WaitQ
	native  sync.Mutex
}

//go:norace
func (m *Mutex) Lock() {
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
func (m *Mutex) Unlock() {
	g := engine.Current()
	if g == nil {
		m.obj.CheckNative(engine.OpUnlock)
		m.native.Unlock()
		return
	}
	g.Point(engine.OpUnlock, &m.obj)
	if !m.locked {
		g.Fatal("quiet: unlock of an unlocked lock")
	}
	m.locked = false
	m.obj.Release()
	m.waiters.WakeAll()
}

// Table is a map the race detector does not see. Its entries keep the
// order they were added in, so that ranging over them is the same in
// every run. Its lookups are linear: for the few entries of a run's
// listeners, nodes, cuts or files.
type Table[K comparable, V any] struct {
	keys []K
	vals []V
}

// Get returns the value at k, and whether there is one.
//
//go:norace
func (t *Table[K, V]) Get(k K) (V, bool) {
	for i, x := range t.keys {
		if x == k {
			return t.vals[i], true
		}
	}
	var zero V
	return zero, false
}

// At returns the value at k, or the zero value.
//
//go:norace
func (t *Table[K, V]) At(k K) V {
	v, _ := t.Get(k)
	return v
}

// Set makes v the value at k.
//
//go:norace
func (t *Table[K, V]) Set(k K, v V) {
	for i, x := range t.keys {
		if x == k {
			t.vals[i] = v
			return
		}
	}
	t.keys = Push(t.keys, k)
	t.vals = Push(t.vals, v)
}

// Del removes the value at k, if there is one.
//
//go:norace
func (t *Table[K, V]) Del(k K) {
	for i, x := range t.keys {
		if x != k {
			continue
		}
		for j := i + 1; j < len(t.keys); j++ {
			t.keys[j-1], t.vals[j-1] = t.keys[j], t.vals[j]
		}
		var zk K
		var zv V
		t.keys[len(t.keys)-1], t.vals[len(t.vals)-1] = zk, zv
		t.keys, t.vals = t.keys[:len(t.keys)-1], t.vals[:len(t.vals)-1]
		return
	}
}

// Len is how many entries t has.
//
//go:norace
func (t *Table[K, V]) Len() int { return len(t.keys) }

// Keys are t's keys, in the order they were added; the caller reads them
// in a norace function and does not change them.
//
//go:norace
func (t *Table[K, V]) Keys() []K { return t.keys }

// Values are t's values, in the order their keys were added; the caller
// reads them in a norace function and does not change them.
//
//go:norace
func (t *Table[K, V]) Values() []V { return t.vals }

// Push appends v to s as append does, but growing it element by element
// in a norace function.
//
//go:norace
func Push[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		grown := make([]T, len(s), 2*cap(s)+4)
		for i, x := range s {
			grown[i] = x
		}
		s = grown
	}
	s = s[:len(s)+1]
	s[len(s)-1] = v
	return s
}

// AppendBytes appends b to s as append does, with copies the race
// detector does not see.
//
//go:norace
func AppendBytes(s, b []byte) []byte {
	n := len(s)
	if n+len(b) > cap(s) {
		grown := make([]byte, n, max(2*cap(s), n+len(b)))
		if n > 0 {
			memmove(unsafe.Pointer(&grown[0]), unsafe.Pointer(&s[0]), uintptr(n))
		}
		s = grown
	}
	s = s[:n+len(b)]
	if len(b) > 0 {
		memmove(unsafe.Pointer(&s[n]), unsafe.Pointer(&b[0]), uintptr(len(b)))
	}
	return s
}

//go:linkname memmove runtime.memmove
//go:noescape
func memmove(to, from unsafe.Pointer, n uintptr)
