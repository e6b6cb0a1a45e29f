package engine

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

var opNames = [numOps]string{
	OpNone:          "none",
	OpStart:         "start",
	OpGo:            "Go",
	OpExit:          "exit",
	OpYield:         "Yield",
	OpLock:          "Lock",
	OpUnlock:        "Unlock",
	OpTryLock:       "TryLock",
	OpRLock:         "RLock",
	OpRUnlock:       "RUnlock",
	OpTryRLock:      "TryRLock",
	OpWaitGroupAdd:  "Add",
	OpWaitGroupWait: "Wait",
	OpCondWait:      "Wait",
	OpCondSignal:    "Signal",
	OpCondBroadcast: "Broadcast",
	OpOnce:          "Do",
	OpAtomic:        "atomic",
	OpFault:         "fault",
	OpSleep:         "Sleep",
	OpSend:          "Send",
	OpRecv:          "Recv",
	OpClose:         "Close",
	OpSelect:        "Select",
	OpLen:           "Len",
	OpTimer:         "timer",
	OpContext:       "Done",
}

func (op Op) String() string {
	if op < numOps {
		return opNames[op]
	}
	return "op?"
}

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
