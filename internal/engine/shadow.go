package engine

import "unsafe"

// shadowState is the run's table from objects of native Go (a built-in
// channel, a *time.Timer) to the objects of the tool that stand for them
// inside the run (a *chans.Chan, a *vtime.Timer): code rewritten by
// dstreplay test keeps Go's types, and package native looks up, at each
// operation, what the scheduler knows of the value operated on.
//
// It is an open-addressing table of plain slices, not a Go map: the
// goroutines of a run use it in turn with no happens-before edge the race
// detector sees (see entropy.Source), and the runtime checks map accesses
// for races even in norace functions. A key is the native object's address;
// the entry keeps the object itself, so that its address is not reused
// while the run lasts.
type shadowState struct {
	shadows *shadowTable // made at the first SetShadow: most runs have none
}

type shadowTable struct {
	keys []uintptr
	vals []shadowEntry
	n    int
}

type shadowEntry struct {
	native any
	shadow any
}

// Shadow returns what stands for the native object at key in g's run, or
// nil.
//
//go:norace
func (g *G) Shadow(key unsafe.Pointer) any {
	t := g.run.shadows
	if t == nil || key == nil {
		return nil
	}
	mask := uintptr(len(t.keys) - 1)
	for i := shadowHash(uintptr(key)) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case uintptr(key):
			return t.vals[i].shadow
		case 0:
			return nil
		}
	}
}

// SetShadow makes shadow stand for native, whose address is key, in g's run
// from now on.
//
//go:norace
func (g *G) SetShadow(key unsafe.Pointer, native, shadow any) {
	r := g.run
	if r.shadows == nil {
		r.shadows = &shadowTable{}
	}
	t := r.shadows
	if 4*(t.n+1) > 3*len(t.keys) {
		t.grow()
	}
	t.put(uintptr(key), shadowEntry{native, shadow})
}

// put sets k's entry, in a table with room for it.
//
//go:norace
func (t *shadowTable) put(k uintptr, e shadowEntry) {
	mask := uintptr(len(t.keys) - 1)
	i := shadowHash(k) & mask
	for t.keys[i] != 0 && t.keys[i] != k {
		i = (i + 1) & mask
	}
	if t.keys[i] == 0 {
		t.keys[i] = k
		t.n++
	}
	t.vals[i] = e
}

//go:norace
func (t *shadowTable) grow() {
	keys, vals := t.keys, t.vals
	n := max(16, 2*len(keys))
	t.keys, t.vals, t.n = make([]uintptr, n), make([]shadowEntry, n), 0
	for j, k := range keys {
		if k != 0 {
			t.put(k, vals[j])
		}
	}
}

// shadowHash spreads an address's bits (heap addresses share their low
// bits by size class).
func shadowHash(k uintptr) uintptr {
	x := uint64(k)
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return uintptr(x)
}
