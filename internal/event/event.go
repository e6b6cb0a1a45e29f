package event

import (
	"fmt"
	"strconv"
)

// Kind is the kind of an event. The spec table (specs) says which fields
// each kind carries; the encoder, the decoder and the text form all follow
// it.
type Kind uint8

const (
	KindInvalid   Kind = iota
	KindSpawn          // G started goroutine Arg
	KindExit           // G exited
	KindOp             // G reached a scheduling point for operation Op on object Obj
	KindBlock          // G blocked in Op on Obj
	KindWake           // G made goroutine Arg runnable
	KindSwitch         // the scheduler switched from G to goroutine Arg: choice Choice of N
	KindClock          // the virtual clock advanced to Time
	KindTimerSet       // G armed timer Arg to fire after Dur
	KindTimerFire      // timer Arg fired
	KindFault          // fault point Text drawn at G: fired if Arg is 1
	KindSelect         // G's select chose case Arg among N ready cases
	KindLog            // G logged Text (a user annotation)
	KindObject         // object Obj is Text (for example "Mutex#3")
	KindPanic          // G panicked with Text
	KindFail           // G failed a check (t.Error, t.Fatal, a data race) or an oracle's (livelock, misuse, ...): Text says how
	// Added in trace version 4, the first kind past the header's four
	// bits (see Frame.head).
	KindIO // G did Op on the connection or file Obj: N bytes at offset Arg, arriving (or lasting) Dur
	numKinds
)

// Field is a field an event kind carries besides the step, the goroutine and
// the virtual time, which every event has.
type Field uint8

const (
	FieldOp Field = iota + 1
	FieldObj
	FieldArg
	FieldChoice
	FieldN
	FieldDur
	FieldText
)

// Spec describes one kind of event.
type Spec struct {
	Name   string
	Fields []Field
	// ArgName names the Arg field in the text form, and NName the N
	// field ("of" when empty).
	ArgName string
	NName   string
	// Decision marks the kinds that record a choice the strategy or the
	// program drew from the entropy.
	Decision bool
}

var specs = [numKinds]Spec{
	KindInvalid:   {Name: "invalid"},
	KindSpawn:     {Name: "spawn", Fields: []Field{FieldArg}, ArgName: "child"},
	KindExit:      {Name: "exit"},
	KindOp:        {Name: "op", Fields: []Field{FieldOp, FieldObj}},
	KindBlock:     {Name: "block", Fields: []Field{FieldOp, FieldObj}},
	KindWake:      {Name: "wake", Fields: []Field{FieldArg}, ArgName: "g"},
	KindSwitch:    {Name: "switch", Fields: []Field{FieldArg, FieldChoice, FieldN}, ArgName: "to", Decision: true},
	KindClock:     {Name: "clock"},
	KindTimerSet:  {Name: "timer-set", Fields: []Field{FieldArg, FieldDur}, ArgName: "timer"},
	KindTimerFire: {Name: "timer-fire", Fields: []Field{FieldArg}, ArgName: "timer"},
	KindFault:     {Name: "fault", Fields: []Field{FieldText, FieldArg}, ArgName: "fired", Decision: true},
	KindSelect:    {Name: "select", Fields: []Field{FieldArg, FieldN}, ArgName: "case", Decision: true},
	KindLog:       {Name: "log", Fields: []Field{FieldText}},
	KindObject:    {Name: "object", Fields: []Field{FieldObj, FieldText}},
	KindPanic:     {Name: "panic", Fields: []Field{FieldText}},
	KindFail:      {Name: "fail", Fields: []Field{FieldText}},
	KindIO:        {Name: "io", Fields: []Field{FieldOp, FieldObj, FieldArg, FieldN, FieldDur}, ArgName: "at", NName: "bytes"},
}

// SpecOf returns the spec of k; an unknown kind has the name "kind(N)".
func SpecOf(k Kind) Spec {
	if k < numKinds {
		return specs[k]
	}
	return Spec{Name: fmt.Sprintf("kind(%d)", k)}
}

func (k Kind) String() string { return SpecOf(k).Name }

// Event is one thing that happened in a run.
type Event struct {
	Kind   Kind
	Step   int64  // the run's scheduling step when it happened
	G      int32  // the goroutine (run-local id; 0: the scheduler itself)
	Time   int64  // virtual time, nanoseconds since the run's start
	Op     uint8  // the operation (see OpName)
	Obj    int32  // the object it touched (run-local id; 0: none)
	Arg    int64  // a goroutine, a timer, a case: see the kind's doc
	Choice int64  // the choice drawn
	N      int64  // out of how many
	Dur    int64  // a duration in nanoseconds
	Text   string // a name or a message
	// Loc is where the goroutine was in the source; set in detailed traces
	// only.
	Loc Location
}

// Location is a place in the source.
type Location struct {
	Func string
	File string
	Line int
}

// Equal reports whether e and f describe the same event, ignoring source
// locations (which move when code above them changes).
func (e *Event) Equal(f *Event) bool {
	a, b := *e, *f
	a.Loc, b.Loc = Location{}, Location{}
	return a == b
}

// ObjectName is how traces print object obj whose KindObject event says
// base: "Mutex#3".
func ObjectName(base string, obj int32) string {
	return base + "#" + strconv.Itoa(int(obj))
}

// Op is the operation of a KindOp or KindBlock event: what a managed
// goroutine does at a scheduling point, or what it is blocked in. This is
// the one list of operations; the engine names them as its own.
type Op uint8

// The operations.
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
	// Added in trace version 3: WaitGroup.Done, and atomics by method
	// (version 2 traces name every atomic operation OpAtomic).
	OpWaitGroupDone
	OpAtomicLoad
	OpAtomicStore
	OpAtomicSwap
	OpAtomicAdd
	OpAtomicAnd
	OpAtomicOr
	OpAtomicCompareAndSwap
	// Added in trace version 4, for KindIO: a write to a file, its sync,
	// and a crash that lost N bytes of it (Arg: what it kept). A message
	// on a connection is OpSend and OpRecv, its FIN OpClose.
	OpWrite
	OpSync
	OpCrash
	numOps
)

// opNames names the operations as traces print them.
var opNames = [numOps]string{
	OpNone: "none", OpStart: "start", OpGo: "Go", OpExit: "exit", OpYield: "Yield",
	OpLock: "Lock", OpUnlock: "Unlock", OpTryLock: "TryLock", OpRLock: "RLock",
	OpRUnlock: "RUnlock", OpTryRLock: "TryRLock", OpWaitGroupAdd: "Add",
	OpWaitGroupWait: "Wait", OpCondWait: "Wait", OpCondSignal: "Signal",
	OpCondBroadcast: "Broadcast", OpOnce: "Do", OpAtomic: "atomic", OpFault: "fault",
	OpSleep: "Sleep", OpSend: "Send", OpRecv: "Recv", OpClose: "Close",
	OpSelect: "Select", OpLen: "Len", OpTimer: "timer", OpContext: "Done",
	OpWaitGroupDone: "Done", OpAtomicLoad: "Load", OpAtomicStore: "Store", OpAtomicSwap: "Swap",
	OpAtomicAdd: "Add", OpAtomicAnd: "And", OpAtomicOr: "Or", OpAtomicCompareAndSwap: "CompareAndSwap",
	OpWrite: "Write", OpSync: "Sync", OpCrash: "Crash",
}

// OpNames names the operations, by number.
var OpNames = opNames[:]

func (op Op) String() string { return OpName(uint8(op)) }

// OpName names op.
func OpName(op uint8) string {
	if int(op) < len(OpNames) {
		return OpNames[op]
	}
	return fmt.Sprintf("op(%d)", op)
}
