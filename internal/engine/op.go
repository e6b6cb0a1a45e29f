package engine

import "github.com/dstgo/dst/internal/event"

// Op names what a managed goroutine does at a scheduling point, or what it is
// blocked in. The operations and their names are listed once, in package
// event, whose events carry them.
type Op = event.Op

// The operations, as the engine and the shims name them.
const (
	OpNone          = event.OpNone
	OpStart         = event.OpStart
	OpGo            = event.OpGo
	OpExit          = event.OpExit
	OpYield         = event.OpYield
	OpLock          = event.OpLock
	OpUnlock        = event.OpUnlock
	OpTryLock       = event.OpTryLock
	OpRLock         = event.OpRLock
	OpRUnlock       = event.OpRUnlock
	OpTryRLock      = event.OpTryRLock
	OpWaitGroupAdd  = event.OpWaitGroupAdd
	OpWaitGroupWait = event.OpWaitGroupWait
	OpCondWait      = event.OpCondWait
	OpCondSignal    = event.OpCondSignal
	OpCondBroadcast = event.OpCondBroadcast
	OpOnce          = event.OpOnce
	OpAtomic        = event.OpAtomic
	OpWaitGroupDone = event.OpWaitGroupDone

	OpAtomicLoad           = event.OpAtomicLoad
	OpAtomicStore          = event.OpAtomicStore
	OpAtomicSwap           = event.OpAtomicSwap
	OpAtomicAdd            = event.OpAtomicAdd
	OpAtomicAnd            = event.OpAtomicAnd
	OpAtomicOr             = event.OpAtomicOr
	OpAtomicCompareAndSwap = event.OpAtomicCompareAndSwap
	OpFault                = event.OpFault
	OpSleep                = event.OpSleep
	OpSend                 = event.OpSend
	OpRecv                 = event.OpRecv
	OpClose                = event.OpClose
	OpSelect               = event.OpSelect
	OpLen                  = event.OpLen
	OpTimer                = event.OpTimer
	OpContext              = event.OpContext
	OpWrite                = event.OpWrite
	OpSync                 = event.OpSync
	OpCrash                = event.OpCrash
)

// ObjKind names the type of a synchronisation object, for reports.
type ObjKind uint8

const (
	KindNone ObjKind = iota
	KindMutex
	KindRWMutex
	KindWaitGroup
	KindCond
	KindOnce
	KindAtomic
	KindChan
	KindTimer
	KindContext
	KindConn // one direction of a simulated connection (G.IO)
	KindFile // a file written through package simdisk (G.IO)
	numKinds
)

var kindNames = [numKinds]string{
	KindNone:      "object",
	KindMutex:     "Mutex",
	KindRWMutex:   "RWMutex",
	KindWaitGroup: "WaitGroup",
	KindCond:      "Cond",
	KindOnce:      "Once",
	KindAtomic:    "atomic",
	KindChan:      "chan",
	KindTimer:     "Timer",
	KindContext:   "Context",
	KindConn:      "conn",
	KindFile:      "file",
}

func (k ObjKind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "object?"
}
