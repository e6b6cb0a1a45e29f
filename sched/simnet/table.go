package simnet

import (
	"unsafe"
)

// table is a map that the race detector does not see: the network's
// state is shared by the run's goroutines, which it orders with no edge
// the detector knows of (see quietMutex), and the runtime checks a Go
// map's accesses for races even in a norace function. Its entries keep
// the order they were added in, so that ranging over them is the same in
// every run. The network's tables are small: listeners, nodes, cuts.
type table[K comparable, V any] struct {
	keys []K
	vals []V
}

// get returns the value at k, and whether there is one.
//
//go:norace
func (t *table[K, V]) get(k K) (V, bool) {
	for i, x := range t.keys {
		if x == k {
			return t.vals[i], true
		}
	}
	var zero V
	return zero, false
}

// at returns the value at k, or the zero value.
//
//go:norace
func (t *table[K, V]) at(k K) V {
	v, _ := t.get(k)
	return v
}

// set makes v the value at k.
//
//go:norace
func (t *table[K, V]) set(k K, v V) {
	for i, x := range t.keys {
		if x == k {
			t.vals[i] = v
			return
		}
	}
	t.keys = push(t.keys, k)
	t.vals = push(t.vals, v)
}

// del removes the value at k, if there is one.
//
//go:norace
func (t *table[K, V]) del(k K) {
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

// len is how many entries t has.
//
//go:norace
func (t *table[K, V]) len() int { return len(t.keys) }

// push appends v to s as append does, but growing it element by element
// in a norace function: the append and copy builtins report their
// accesses to the race detector wherever they are called from.
//
//go:norace
func push[T any](s []T, v T) []T {
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

// appendBytes appends b to s as append does, with copies the race
// detector does not see (the append and copy builtins' copies it sees,
// wherever they are called from): the network's buffers are written and
// read by goroutines it orders with no edge the detector knows of.
//
//go:norace
func appendBytes(s, b []byte) []byte {
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
