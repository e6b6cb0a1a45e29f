package native

import (
	"reflect"
	"strconv"

	"github.com/dstgo/dst/internal/engine"
)

// Reflected is v, the receiver of a call at at of reflect.Value's method op
// (Send, Recv, TrySend, TryRecv, Close or Len), as a Value whose Len
// answers for the run. Outside a run it is v as it is. Inside one, Send,
// Recv, TrySend, TryRecv and Close on a channel are a misuse that fails the
// run naming the channel, the method and the place: reflection is not
// rewritten, and it would send or receive on the channel where the
// scheduler cannot see it. Len neither sends nor receives: it is allowed,
// and answered as len is (see Value.Len).
func Reflected(v reflect.Value, op, at string) Value {
	if op != "Len" && v.Kind() == reflect.Chan && !v.IsNil() {
		if g := engine.Current(); g != nil {
			g.Misuse("reflect.Value." + op + " on a " + v.Type().String() + " at " + at + reflectAdvice)
		}
	}
	return Value{v}
}

// Value is a reflect.Value whose method calls rewritten code makes through
// Reflected: reflect's own, but for Len.
type Value struct{ reflect.Value }

// Len is v.Value.Len(), but for a channel of the run, inside a run: the
// number of values in the run's channel that stands for it, as len of the
// channel gives in rewritten code (the values a run's channel holds are not
// in Go's channel). A channel the run has not used yet is answered by Go's
// channel, which still holds its values. Cap needs no such answer: the
// run's channel has the capacity of Go's.
func (v Value) Len() int {
	if v.Kind() == reflect.Chan && !v.IsNil() {
		if g := engine.Current(); g != nil {
			if s, ok := g.Shadow(v.UnsafePointer()).(interface{ Len() int }); ok {
				return s.Len()
			}
		}
	}
	return v.Value.Len()
}

// ReflectSelect is reflect.Select(cases) at at. Inside a run, a case on a
// channel is a misuse, as for Reflected.
func ReflectSelect(cases []reflect.SelectCase, at string) (chosen int, recv reflect.Value, recvOK bool) {
	if g := engine.Current(); g != nil {
		for i, c := range cases {
			if c.Dir != reflect.SelectDefault && c.Chan.Kind() == reflect.Chan && !c.Chan.IsNil() {
				g.Misuse("reflect.Select at " + at + " has a case (" + strconv.Itoa(i) + ") on a " + c.Chan.Type().String() + reflectAdvice)
			}
		}
	}
	return reflect.Select(cases)
}

const reflectAdvice = ": reflection over channels is not rewritten, so the scheduler cannot see what it sends or " +
	"receives; use the language's channel operations (a select statement) in code that runs under the scheduler"
