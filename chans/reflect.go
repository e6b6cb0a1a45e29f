package chans

import (
	"reflect"
	"sync"
	"time"
)

// Untyped is a *Chan[T] as reflection uses it, its element type T known
// only at run time: package reflect's Value methods and reflect.Select, as
// rewritten code calls them (sched/native), operate on the run's channel
// through it. Every *Chan[T] implements it; its operations are the typed
// ones, scheduling points alike, and panic as they do.
type Untyped interface {
	// Elem is T.
	Elem() reflect.Type
	Len() int
	Cap() int
	Close()
	// SendValue sends x, a value assignable to T, as Send does.
	SendValue(x reflect.Value)
	// RecvValue receives as RecvOK does, the value as a reflect.Value of
	// type T that is not addressable (as reflect.Value.Recv returns it).
	RecvValue() (x reflect.Value, ok bool)
	// CaseSendValue is CaseSend of x, a value assignable to T.
	CaseSendValue(x reflect.Value) Case
	// CaseRecvValue is CaseRecvOK: whether the value came from a send goes
	// to *ok, and the value, once the case fired, is what got returns (as
	// RecvValue gives it).
	CaseRecvValue(ok *bool) (k Case, got func() reflect.Value)
}

// Elem is T, the type of c's values.
func (c *Chan[T]) Elem() reflect.Type { return reflect.TypeFor[T]() }

// SendValue is Send of x, which must be assignable to T (it panics as
// reflect.Value.Set does otherwise): for reflection, see Untyped.
func (c *Chan[T]) SendValue(x reflect.Value) { c.Send(valueAs[T](x)) }

// RecvValue is RecvOK, the value as a reflect.Value of type T: for
// reflection, see Untyped.
func (c *Chan[T]) RecvValue() (reflect.Value, bool) {
	v, ok := c.RecvOK()
	return valueOf(v), ok
}

// CaseSendValue is CaseSend of x, which must be assignable to T: for
// reflection, see Untyped.
func (c *Chan[T]) CaseSendValue(x reflect.Value) Case { return c.CaseSend(valueAs[T](x)) }

// CaseRecvValue is CaseRecvOK, the value received given by got: for
// reflection, see Untyped.
func (c *Chan[T]) CaseRecvValue(ok *bool) (Case, func() reflect.Value) {
	dst := new(T)
	return c.CaseRecvOK(dst, ok), func() reflect.Value { return valueOf(*dst) }
}

// valueAs is x as a T, x being assignable to T (an interface type T takes
// a nil interface value of another interface type, as assignment does).
func valueAs[T any](x reflect.Value) T {
	var v T
	reflect.ValueOf(&v).Elem().Set(x)
	return v
}

// valueOf is v as a reflect.Value of type T, an interface type included,
// that is not addressable: an element of an array that is not.
func valueOf[T any](v T) reflect.Value { return reflect.ValueOf([1]T{v}).Index(0) }

// elemTypes holds, for element types T, a function that makes a *Chan[T]
// (MakeOf's) and the label of such a channel in reports ("chan T", made
// once, not at each Make). Make adds its T; the types below are there from
// the start.
var elemTypes sync.Map // reflect.Type -> *elemType

type elemType struct {
	make  func(int) Untyped
	label string
}

func maker[T any](n int) Untyped { return Make[T](n) }

// known makes MakeOf know T, and returns the label of a channel of T.
func known[T any]() string {
	t := reflect.TypeFor[T]()
	e, ok := elemTypes.Load(t)
	if !ok {
		e, _ = elemTypes.LoadOrStore(t, &elemType{make: maker[T], label: "chan " + t.String()})
	}
	return e.(*elemType).label
}

func init() {
	known[bool]()
	known[int]()
	known[int8]()
	known[int16]()
	known[int32]()
	known[int64]()
	known[uint]()
	known[uint8]()
	known[uint16]()
	known[uint32]()
	known[uint64]()
	known[uintptr]()
	known[float32]()
	known[float64]()
	known[complex64]()
	known[complex128]()
	known[string]()
	known[[]byte]()
	known[struct{}]()
	known[any]()
	known[error]()
	known[time.Time]()
	known[time.Duration]()
}

// MakeOf is Make of a channel whose element type, elem, is known only at
// run time, for reflection: it works for the types of the values of
// channels that Make has made (inside a run or outside one), in this
// process, and for the predeclared types, struct{}, any, []byte,
// time.Time and time.Duration. For another type it returns nil: Go has no
// way to instantiate Chan at a type that the program does not.
func MakeOf(elem reflect.Type, capacity int) Untyped {
	e, ok := elemTypes.Load(elem)
	if !ok {
		return nil
	}
	return e.(*elemType).make(capacity)
}
