// Package atomic provides the types of sync/atomic with the same method
// sets, whose operations are scheduling points inside a run: replace the
// import of "sync/atomic" with this package and the scheduler can interleave
// other goroutines between any two atomic operations, as real hardware can.
//
// The operations are the real atomic operations, so they create the same
// happens-before edges as sync/atomic (visible to the race detector). Outside
// a run every method is its sync/atomic counterpart plus one check of whether
// the caller is managed.
package atomic

import (
	"sync/atomic"

	"github.com/dstgo/dst/internal/engine"
)

// point is the scheduling point before every operation, op.
func point(o *engine.Obj, op engine.Op) {
	if g := engine.Current(); g != nil {
		touch(g, o, op)
	}
}

// polled is a CompareAndSwap's result, told to the run when it failed: a
// failed swap changed nothing, so goroutines that spin on one (a spin
// lock whose holder sleeps) poll, and time passes while they do
// (engine.G.Polled); the swap that succeeds after it is progress.
func polled(swapped bool) bool {
	if !swapped {
		if g := engine.Current(); g != nil {
			g.Polled()
		}
	}
	return swapped
}

//go:norace
func touch(g *engine.G, o *engine.Obj, op engine.Op) {
	o.Bind(g, engine.KindAtomic)
	g.Point(op, o)
}

// Bool is an atomic boolean value.
type Bool struct {
	v   atomic.Bool
	obj engine.Obj
}

func (x *Bool) Load() bool               { point(&x.obj, engine.OpAtomicLoad); return x.v.Load() }
func (x *Bool) Store(val bool)           { point(&x.obj, engine.OpAtomicStore); x.v.Store(val) }
func (x *Bool) Swap(new bool) (old bool) { point(&x.obj, engine.OpAtomicSwap); return x.v.Swap(new) }
func (x *Bool) CompareAndSwap(old, new bool) (swapped bool) {
	point(&x.obj, engine.OpAtomicCompareAndSwap)
	return polled(x.v.CompareAndSwap(old, new))
}

// Int32 is an atomic int32.
type Int32 struct {
	v   atomic.Int32
	obj engine.Obj
}

func (x *Int32) Load() int32                { point(&x.obj, engine.OpAtomicLoad); return x.v.Load() }
func (x *Int32) Store(val int32)            { point(&x.obj, engine.OpAtomicStore); x.v.Store(val) }
func (x *Int32) Swap(new int32) (old int32) { point(&x.obj, engine.OpAtomicSwap); return x.v.Swap(new) }
func (x *Int32) Add(delta int32) (new int32) {
	point(&x.obj, engine.OpAtomicAdd)
	return x.v.Add(delta)
}
func (x *Int32) And(mask int32) (old int32) { point(&x.obj, engine.OpAtomicAnd); return x.v.And(mask) }
func (x *Int32) Or(mask int32) (old int32)  { point(&x.obj, engine.OpAtomicOr); return x.v.Or(mask) }
func (x *Int32) CompareAndSwap(old, new int32) (swapped bool) {
	point(&x.obj, engine.OpAtomicCompareAndSwap)
	return polled(x.v.CompareAndSwap(old, new))
}

// Int64 is an atomic int64.
type Int64 struct {
	v   atomic.Int64
	obj engine.Obj
}

func (x *Int64) Load() int64                { point(&x.obj, engine.OpAtomicLoad); return x.v.Load() }
func (x *Int64) Store(val int64)            { point(&x.obj, engine.OpAtomicStore); x.v.Store(val) }
func (x *Int64) Swap(new int64) (old int64) { point(&x.obj, engine.OpAtomicSwap); return x.v.Swap(new) }
func (x *Int64) Add(delta int64) (new int64) {
	point(&x.obj, engine.OpAtomicAdd)
	return x.v.Add(delta)
}
func (x *Int64) And(mask int64) (old int64) { point(&x.obj, engine.OpAtomicAnd); return x.v.And(mask) }
func (x *Int64) Or(mask int64) (old int64)  { point(&x.obj, engine.OpAtomicOr); return x.v.Or(mask) }
func (x *Int64) CompareAndSwap(old, new int64) (swapped bool) {
	point(&x.obj, engine.OpAtomicCompareAndSwap)
	return polled(x.v.CompareAndSwap(old, new))
}

// Uint32 is an atomic uint32.
type Uint32 struct {
	v   atomic.Uint32
	obj engine.Obj
}

func (x *Uint32) Load() uint32     { point(&x.obj, engine.OpAtomicLoad); return x.v.Load() }
func (x *Uint32) Store(val uint32) { point(&x.obj, engine.OpAtomicStore); x.v.Store(val) }
func (x *Uint32) Swap(new uint32) (old uint32) {
	point(&x.obj, engine.OpAtomicSwap)
	return x.v.Swap(new)
}
func (x *Uint32) Add(delta uint32) (new uint32) {
	point(&x.obj, engine.OpAtomicAdd)
	return x.v.Add(delta)
}
func (x *Uint32) And(mask uint32) (old uint32) {
	point(&x.obj, engine.OpAtomicAnd)
	return x.v.And(mask)
}
func (x *Uint32) Or(mask uint32) (old uint32) { point(&x.obj, engine.OpAtomicOr); return x.v.Or(mask) }
func (x *Uint32) CompareAndSwap(old, new uint32) (swapped bool) {
	point(&x.obj, engine.OpAtomicCompareAndSwap)
	return polled(x.v.CompareAndSwap(old, new))
}

// Uint64 is an atomic uint64.
type Uint64 struct {
	v   atomic.Uint64
	obj engine.Obj
}

func (x *Uint64) Load() uint64     { point(&x.obj, engine.OpAtomicLoad); return x.v.Load() }
func (x *Uint64) Store(val uint64) { point(&x.obj, engine.OpAtomicStore); x.v.Store(val) }
func (x *Uint64) Swap(new uint64) (old uint64) {
	point(&x.obj, engine.OpAtomicSwap)
	return x.v.Swap(new)
}
func (x *Uint64) Add(delta uint64) (new uint64) {
	point(&x.obj, engine.OpAtomicAdd)
	return x.v.Add(delta)
}
func (x *Uint64) And(mask uint64) (old uint64) {
	point(&x.obj, engine.OpAtomicAnd)
	return x.v.And(mask)
}
func (x *Uint64) Or(mask uint64) (old uint64) { point(&x.obj, engine.OpAtomicOr); return x.v.Or(mask) }
func (x *Uint64) CompareAndSwap(old, new uint64) (swapped bool) {
	point(&x.obj, engine.OpAtomicCompareAndSwap)
	return polled(x.v.CompareAndSwap(old, new))
}

// Uintptr is an atomic uintptr.
type Uintptr struct {
	v   atomic.Uintptr
	obj engine.Obj
}

func (x *Uintptr) Load() uintptr     { point(&x.obj, engine.OpAtomicLoad); return x.v.Load() }
func (x *Uintptr) Store(val uintptr) { point(&x.obj, engine.OpAtomicStore); x.v.Store(val) }
func (x *Uintptr) Swap(new uintptr) (old uintptr) {
	point(&x.obj, engine.OpAtomicSwap)
	return x.v.Swap(new)
}
func (x *Uintptr) Add(delta uintptr) (new uintptr) {
	point(&x.obj, engine.OpAtomicAdd)
	return x.v.Add(delta)
}
func (x *Uintptr) And(mask uintptr) (old uintptr) {
	point(&x.obj, engine.OpAtomicAnd)
	return x.v.And(mask)
}
func (x *Uintptr) Or(mask uintptr) (old uintptr) {
	point(&x.obj, engine.OpAtomicOr)
	return x.v.Or(mask)
}
func (x *Uintptr) CompareAndSwap(old, new uintptr) (swapped bool) {
	point(&x.obj, engine.OpAtomicCompareAndSwap)
	return polled(x.v.CompareAndSwap(old, new))
}

// Pointer is an atomic pointer of type *T.
type Pointer[T any] struct {
	v   atomic.Pointer[T]
	obj engine.Obj
}

func (x *Pointer[T]) Load() *T             { point(&x.obj, engine.OpAtomicLoad); return x.v.Load() }
func (x *Pointer[T]) Store(val *T)         { point(&x.obj, engine.OpAtomicStore); x.v.Store(val) }
func (x *Pointer[T]) Swap(new *T) (old *T) { point(&x.obj, engine.OpAtomicSwap); return x.v.Swap(new) }
func (x *Pointer[T]) CompareAndSwap(old, new *T) (swapped bool) {
	point(&x.obj, engine.OpAtomicCompareAndSwap)
	return polled(x.v.CompareAndSwap(old, new))
}

// Value provides an atomic load and store of a consistently typed value,
// with sync/atomic.Value's panics for inconsistent types and nil.
type Value struct {
	v   atomic.Value
	obj engine.Obj
}

func (x *Value) Load() (val any)        { point(&x.obj, engine.OpAtomicLoad); return x.v.Load() }
func (x *Value) Store(val any)          { point(&x.obj, engine.OpAtomicStore); x.v.Store(val) }
func (x *Value) Swap(new any) (old any) { point(&x.obj, engine.OpAtomicSwap); return x.v.Swap(new) }
func (x *Value) CompareAndSwap(old, new any) (swapped bool) {
	point(&x.obj, engine.OpAtomicCompareAndSwap)
	return polled(x.v.CompareAndSwap(old, new))
}
