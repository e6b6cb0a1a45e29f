package engine

import "github.com/dstgo/dst/internal/event"

// Op names what a managed goroutine does at a scheduling point, or what it is
// blocked in.
type Op uint8

const (
	OpNone Op = iota
	OpStart
	OpGo
	OpExit
	OpYield
	OpLock
	OpUnlock
	OpTryLock
	OpRLock
	OpRUnlock
	OpTryRLock
	OpWaitGroupAdd
	OpWaitGroupWait
	OpCondWait
	OpCondSignal
	OpCondBroadcast
	OpOnce
	OpAtomic
	OpFault
	OpSleep
	OpSend
	OpRecv
	OpClose
	OpSelect
	OpLen
	OpTimer
	OpContext
	numOps
)

// String names op; the names live in package trace, whose events carry ops.
func (op Op) String() string { return event.OpName(uint8(op)) }

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
}

func (k ObjKind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "object?"
}
