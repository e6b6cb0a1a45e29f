package atomic

import (
	"sync/atomic"
	"unsafe"

	"github.com/dstgo/dst/internal/engine"
)

// The functions of sync/atomic, each a scheduling point inside a run and
// then the atomic operation itself (code rewritten by dstreplay test calls
// them in place of sync/atomic's).

// AddInt32 is atomic.AddInt32.
func AddInt32(addr *int32, delta int32) (new int32) {
	pointFunc(engine.OpAtomicAdd)
	return atomic.AddInt32(addr, delta)
}

// AddInt64 is atomic.AddInt64.
func AddInt64(addr *int64, delta int64) (new int64) {
	pointFunc(engine.OpAtomicAdd)
	return atomic.AddInt64(addr, delta)
}

// AddUint32 is atomic.AddUint32.
func AddUint32(addr *uint32, delta uint32) (new uint32) {
	pointFunc(engine.OpAtomicAdd)
	return atomic.AddUint32(addr, delta)
}

// AddUint64 is atomic.AddUint64.
func AddUint64(addr *uint64, delta uint64) (new uint64) {
	pointFunc(engine.OpAtomicAdd)
	return atomic.AddUint64(addr, delta)
}

// AddUintptr is atomic.AddUintptr.
func AddUintptr(addr *uintptr, delta uintptr) (new uintptr) {
	pointFunc(engine.OpAtomicAdd)
	return atomic.AddUintptr(addr, delta)
}

// AndInt32 is atomic.AndInt32.
func AndInt32(addr *int32, mask int32) (old int32) {
	pointFunc(engine.OpAtomicAnd)
	return atomic.AndInt32(addr, mask)
}

// AndInt64 is atomic.AndInt64.
func AndInt64(addr *int64, mask int64) (old int64) {
	pointFunc(engine.OpAtomicAnd)
	return atomic.AndInt64(addr, mask)
}

// AndUint32 is atomic.AndUint32.
func AndUint32(addr *uint32, mask uint32) (old uint32) {
	pointFunc(engine.OpAtomicAnd)
	return atomic.AndUint32(addr, mask)
}

// AndUint64 is atomic.AndUint64.
func AndUint64(addr *uint64, mask uint64) (old uint64) {
	pointFunc(engine.OpAtomicAnd)
	return atomic.AndUint64(addr, mask)
}

// AndUintptr is atomic.AndUintptr.
func AndUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	pointFunc(engine.OpAtomicAnd)
	return atomic.AndUintptr(addr, mask)
}

// CompareAndSwapInt32 is atomic.CompareAndSwapInt32.
func CompareAndSwapInt32(addr *int32, old, new int32) (swapped bool) {
	pointFunc(engine.OpAtomicCompareAndSwap)
	return polled(atomic.CompareAndSwapInt32(addr, old, new))
}

// CompareAndSwapInt64 is atomic.CompareAndSwapInt64.
func CompareAndSwapInt64(addr *int64, old, new int64) (swapped bool) {
	pointFunc(engine.OpAtomicCompareAndSwap)
	return polled(atomic.CompareAndSwapInt64(addr, old, new))
}

// CompareAndSwapPointer is atomic.CompareAndSwapPointer.
func CompareAndSwapPointer(addr *unsafe.Pointer, old, new unsafe.Pointer) (swapped bool) {
	pointFunc(engine.OpAtomicCompareAndSwap)
	return polled(atomic.CompareAndSwapPointer(addr, old, new))
}

// CompareAndSwapUint32 is atomic.CompareAndSwapUint32.
func CompareAndSwapUint32(addr *uint32, old, new uint32) (swapped bool) {
	pointFunc(engine.OpAtomicCompareAndSwap)
	return polled(atomic.CompareAndSwapUint32(addr, old, new))
}

// CompareAndSwapUint64 is atomic.CompareAndSwapUint64.
func CompareAndSwapUint64(addr *uint64, old, new uint64) (swapped bool) {
	pointFunc(engine.OpAtomicCompareAndSwap)
	return polled(atomic.CompareAndSwapUint64(addr, old, new))
}

// CompareAndSwapUintptr is atomic.CompareAndSwapUintptr.
func CompareAndSwapUintptr(addr *uintptr, old, new uintptr) (swapped bool) {
	pointFunc(engine.OpAtomicCompareAndSwap)
	return polled(atomic.CompareAndSwapUintptr(addr, old, new))
}

// LoadInt32 is atomic.LoadInt32.
func LoadInt32(addr *int32) (val int32) {
	pointFunc(engine.OpAtomicLoad)
	return atomic.LoadInt32(addr)
}

// LoadInt64 is atomic.LoadInt64.
func LoadInt64(addr *int64) (val int64) {
	pointFunc(engine.OpAtomicLoad)
	return atomic.LoadInt64(addr)
}

// LoadPointer is atomic.LoadPointer.
func LoadPointer(addr *unsafe.Pointer) (val unsafe.Pointer) {
	pointFunc(engine.OpAtomicLoad)
	return atomic.LoadPointer(addr)
}

// LoadUint32 is atomic.LoadUint32.
func LoadUint32(addr *uint32) (val uint32) {
	pointFunc(engine.OpAtomicLoad)
	return atomic.LoadUint32(addr)
}

// LoadUint64 is atomic.LoadUint64.
func LoadUint64(addr *uint64) (val uint64) {
	pointFunc(engine.OpAtomicLoad)
	return atomic.LoadUint64(addr)
}

// LoadUintptr is atomic.LoadUintptr.
func LoadUintptr(addr *uintptr) (val uintptr) {
	pointFunc(engine.OpAtomicLoad)
	return atomic.LoadUintptr(addr)
}

// OrInt32 is atomic.OrInt32.
func OrInt32(addr *int32, mask int32) (old int32) {
	pointFunc(engine.OpAtomicOr)
	return atomic.OrInt32(addr, mask)
}

// OrInt64 is atomic.OrInt64.
func OrInt64(addr *int64, mask int64) (old int64) {
	pointFunc(engine.OpAtomicOr)
	return atomic.OrInt64(addr, mask)
}

// OrUint32 is atomic.OrUint32.
func OrUint32(addr *uint32, mask uint32) (old uint32) {
	pointFunc(engine.OpAtomicOr)
	return atomic.OrUint32(addr, mask)
}

// OrUint64 is atomic.OrUint64.
func OrUint64(addr *uint64, mask uint64) (old uint64) {
	pointFunc(engine.OpAtomicOr)
	return atomic.OrUint64(addr, mask)
}

// OrUintptr is atomic.OrUintptr.
func OrUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	pointFunc(engine.OpAtomicOr)
	return atomic.OrUintptr(addr, mask)
}

// StoreInt32 is atomic.StoreInt32.
func StoreInt32(addr *int32, val int32) {
	pointFunc(engine.OpAtomicStore)
	atomic.StoreInt32(addr, val)
}

// StoreInt64 is atomic.StoreInt64.
func StoreInt64(addr *int64, val int64) {
	pointFunc(engine.OpAtomicStore)
	atomic.StoreInt64(addr, val)
}

// StorePointer is atomic.StorePointer.
func StorePointer(addr *unsafe.Pointer, val unsafe.Pointer) {
	pointFunc(engine.OpAtomicStore)
	atomic.StorePointer(addr, val)
}

// StoreUint32 is atomic.StoreUint32.
func StoreUint32(addr *uint32, val uint32) {
	pointFunc(engine.OpAtomicStore)
	atomic.StoreUint32(addr, val)
}

// StoreUint64 is atomic.StoreUint64.
func StoreUint64(addr *uint64, val uint64) {
	pointFunc(engine.OpAtomicStore)
	atomic.StoreUint64(addr, val)
}

// StoreUintptr is atomic.StoreUintptr.
func StoreUintptr(addr *uintptr, val uintptr) {
	pointFunc(engine.OpAtomicStore)
	atomic.StoreUintptr(addr, val)
}

// SwapInt32 is atomic.SwapInt32.
func SwapInt32(addr *int32, new int32) (old int32) {
	pointFunc(engine.OpAtomicSwap)
	return atomic.SwapInt32(addr, new)
}

// SwapInt64 is atomic.SwapInt64.
func SwapInt64(addr *int64, new int64) (old int64) {
	pointFunc(engine.OpAtomicSwap)
	return atomic.SwapInt64(addr, new)
}

// SwapPointer is atomic.SwapPointer.
func SwapPointer(addr *unsafe.Pointer, new unsafe.Pointer) (old unsafe.Pointer) {
	pointFunc(engine.OpAtomicSwap)
	return atomic.SwapPointer(addr, new)
}

// SwapUint32 is atomic.SwapUint32.
func SwapUint32(addr *uint32, new uint32) (old uint32) {
	pointFunc(engine.OpAtomicSwap)
	return atomic.SwapUint32(addr, new)
}

// SwapUint64 is atomic.SwapUint64.
func SwapUint64(addr *uint64, new uint64) (old uint64) {
	pointFunc(engine.OpAtomicSwap)
	return atomic.SwapUint64(addr, new)
}

// SwapUintptr is atomic.SwapUintptr.
func SwapUintptr(addr *uintptr, new uintptr) (old uintptr) {
	pointFunc(engine.OpAtomicSwap)
	return atomic.SwapUintptr(addr, new)
}

// pointFunc is the scheduling point before a function's operation, op: it
// has no object of its own (the address is the user's).
func pointFunc(op engine.Op) {
	if g := engine.Current(); g != nil {
		g.Point(op, nil)
	}
}
