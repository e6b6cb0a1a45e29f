package sched

import (
	"sync"
	"unsafe"

	"github.com/dstgo/dst/internal/engine"
)

// Pool is a set of temporary objects with the method set and the contract of
// sync.Pool: Get may return any item Put earlier, or none. Outside a run it
// is a sync.Pool. Inside a run its items are the run's own, kept in the run:
// Get returns the item the run put most recently, unless the run's entropy
// decides that a garbage collection emptied the pool (one Get in eight that
// would find an item), and calls New when there is none. Items put by an
// earlier run or outside any run are never handed to a run: they may hold
// that run's channels and locks, and whether a collection kept them is
// chance, which would make a schedule depend on the garbage collector. As
// with sync.Pool, a Put happens before the Get that returns the item.
type Pool struct {
	// New, when not nil, makes a value for Get when the pool has none.
	New func() any

	native sync.Pool
}

// keyPoolEmptied is the entropy key of the decisions that a garbage
// collection emptied a pool.
var keyPoolEmptied = engine.KeyPoolEmptied

// poolEmptied is the probability that a Get which would find items finds
// the pool emptied instead.
const poolEmptied = 1.0 / 8

// Get takes an item from the pool and returns it, or, if there is none,
// returns what New returns (nil without New).
func (p *Pool) Get() any {
	g := engine.Current()
	if g == nil {
		if x := p.native.Get(); x != nil {
			return x
		}
		if p.New != nil {
			return p.New()
		}
		return nil
	}
	items := g.PoolItems(p)
	if poolLen(items) > 0 {
		if g.Source().At(keyPoolEmptied).Bool(poolEmptied) {
			poolEmpty(items)
		} else {
			x := poolPop(items)
			engine.RaceAcquire(poolRaceAddr(x))
			return x
		}
	}
	if p.New != nil {
		return p.New()
	}
	return nil
}

// Put adds x to the pool; a nil x is ignored.
func (p *Pool) Put(x any) {
	if x == nil {
		return
	}
	g := engine.Current()
	if g == nil {
		p.native.Put(x)
		return
	}
	engine.RaceReleaseMerge(poolRaceAddr(x))
	poolPush(g.PoolItems(p), x)
}

// The run's items of a pool are used by its goroutines one after another,
// with no happens-before edge the race detector sees (a Put's edge is made
// on the item, poolRaceAddr): the slice is read and written only here,
// uninstrumented, and grown and cleared element by element, since the
// runtime's growslice and clear report to the race detector themselves.

//go:norace
func poolLen(items *[]any) int { return len(*items) }

//go:norace
func poolPop(items *[]any) any {
	s := *items
	x := s[len(s)-1]
	s[len(s)-1] = nil
	*items = s[:len(s)-1]
	return x
}

//go:norace
func poolPush(items *[]any, x any) {
	s := *items
	if len(s) == cap(s) {
		t := make([]any, len(s), 2*len(s)+4)
		for i := range s {
			t[i] = s[i]
		}
		s = t
	}
	s = s[:len(s)+1]
	s[len(s)-1] = x
	*items = s
}

//go:norace
func poolEmpty(items *[]any) {
	s := *items
	for i := range s {
		s[i] = nil
	}
	*items = s[:0]
}

// poolRace is the memory the race detector's edges from a Put to the Get of
// the same item are made on: a slot picked by the item's address, so that
// items share slots (an edge between two items' users too many, not one
// too few).
var poolRace [64]uint64

func poolRaceAddr(x any) unsafe.Pointer {
	data := uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&x))[1])
	return unsafe.Pointer(&poolRace[(data>>4)%uintptr(len(poolRace))])
}
