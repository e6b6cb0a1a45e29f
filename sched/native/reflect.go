package native

import (
	"reflect"
	"strconv"

	"github.com/dstgo/dst/internal/engine"
)

// Reflected is v, the receiver of a call at at of reflect.Value's method op
// (Send, Recv, TrySend, TryRecv, Close or Len). Outside a run it returns v.
// Inside one, a channel's is a misuse that fails the run naming the
// channel, the method and the place: reflection is not rewritten, and it
// would send or receive on the channel where the scheduler cannot see it.
func Reflected(v reflect.Value, op, at string) reflect.Value {
	if g := engine.Current(); g != nil && v.Kind() == reflect.Chan && !v.IsNil() {
		g.Misuse("reflect.Value." + op + " on a " + v.Type().String() + " at " + at + reflectAdvice)
	}
	return v
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
