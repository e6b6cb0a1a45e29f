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
	shadowKeys []uintptr
	shadowVals []shadowEntry
	shadowN    int
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
	r := g.run
	if r.shadowN == 0 || key == nil {
		return nil
	}
	mask := uintptr(len(r.shadowKeys) - 1)
	for i := shadowHash(uintptr(key)) & mask; ; i = (i + 1) & mask {
		switch r.shadowKeys[i] {
		case uintptr(key):
			return r.shadowVals[i].shadow
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
	if 4*(r.shadowN+1) > 3*len(r.shadowKeys) {
		r.growShadows()
	}
	mask := uintptr(len(r.shadowKeys) - 1)
	for i := shadowHash(uintptr(key)) & mask; ; i = (i + 1) & mask {
		switch r.shadowKeys[i] {
		case uintptr(key):
			r.shadowVals[i] = shadowEntry{native, shadow}
			return
		case 0:
			r.shadowKeys[i] = uintptr(key)
			r.shadowVals[i] = shadowEntry{native, shadow}
			r.shadowN++
			return
		}
	}
}

//go:norace
func (r *Run) growShadows() {
	keys, vals := r.shadowKeys, r.shadowVals
	n := max(16, 2*len(keys))
	r.shadowKeys, r.shadowVals, r.shadowN = make([]uintptr, n), make([]shadowEntry, n), 0
	mask := uintptr(n - 1)
	for j, k := range keys {
		if k == 0 {
			continue
		}
		i := shadowHash(k) & mask
		for r.shadowKeys[i] != 0 {
			i = (i + 1) & mask
		}
		r.shadowKeys[i], r.shadowVals[i] = k, vals[j]
		r.shadowN++
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
