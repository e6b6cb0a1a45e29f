package trace

import "github.com/dstgo/dst/internal/event"

// The event model is defined in internal/event, which the engine records
// into without linking this package's compression; these names are the
// public ones.

// Kind is the kind of an event. The spec table (SpecOf) says which fields
// each kind carries; the encoder, the decoder and the text form all follow
// it.
type Kind = event.Kind

// The kinds of event.
const (
	KindInvalid   = event.KindInvalid
	KindSpawn     = event.KindSpawn     // G started goroutine Arg
	KindExit      = event.KindExit      // G exited
	KindOp        = event.KindOp        // G reached a scheduling point for operation Op on object Obj
	KindBlock     = event.KindBlock     // G blocked in Op on Obj
	KindWake      = event.KindWake      // G made goroutine Arg runnable
	KindSwitch    = event.KindSwitch    // the scheduler switched from G to goroutine Arg: choice Choice of N
	KindClock     = event.KindClock     // the virtual clock advanced to Time
	KindTimerSet  = event.KindTimerSet  // G armed timer Arg to fire after Dur
	KindTimerFire = event.KindTimerFire // timer Arg fired
	KindFault     = event.KindFault     // fault point Text drawn at G: fired if Arg is 1
	KindSelect    = event.KindSelect    // G's select chose case Arg among N ready cases
	KindLog       = event.KindLog       // G logged Text (a user annotation)
	KindObject    = event.KindObject    // object Obj is Text (for example "Mutex#3")
	KindPanic     = event.KindPanic     // G panicked with Text
	KindFail      = event.KindFail      // G failed a check or an oracle's: Text says how
	KindIO        = event.KindIO        // G did Op on the connection or file Obj: N bytes at offset Arg, arriving (or lasting) Dur
)

// Field is a field an event kind carries besides the step, the goroutine and
// the virtual time, which every event has.
type Field = event.Field

// The fields of events.
const (
	FieldOp     = event.FieldOp
	FieldObj    = event.FieldObj
	FieldArg    = event.FieldArg
	FieldChoice = event.FieldChoice
	FieldN      = event.FieldN
	FieldDur    = event.FieldDur
	FieldText   = event.FieldText
)

// Spec describes one kind of event.
type Spec = event.Spec

// Event is one thing that happened in a run.
type Event = event.Event

// Location is a place in the source.
type Location = event.Location

// Buffer collects a run's events in memory, in their raw encoding, as the
// engine records them; Write compresses them into a file.
type Buffer = event.Buffer

// FrameEvents is the most events a frame holds. Frames are compressed
// independently, so a reader decodes one frame to reach any event.
const FrameEvents = event.FrameEvents

// FrameSize is how many events the frame that starts at event first
// holds: a quarter of the events before it, from 16 up to FrameEvents, so
// that a trace cut short keeps most of the events before the cut.
func FrameSize(first int64) int { return event.FrameSize(first) }

// SpecOf returns the spec of k; an unknown kind has the name "kind(N)".
func SpecOf(k Kind) Spec { return event.SpecOf(k) }

// ObjectName is how traces print object obj whose KindObject event says
// base: "Mutex#3".
func ObjectName(base string, obj int32) string { return event.ObjectName(base, obj) }

// OpName names the operation op of a KindOp or KindBlock event.
func OpName(op uint8) string { return event.OpName(op) }

// OpNames names the operations of KindOp and KindBlock events, by number.
var OpNames = event.OpNames
