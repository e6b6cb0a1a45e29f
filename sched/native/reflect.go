package native

import (
	"reflect"
	"unsafe"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/engine"
)

// Reflected is v, the receiver of a call at at of reflect.Value's method op
// (Send, Recv, TrySend, TryRecv, Close or Len), as a Value whose channel
// methods act, inside a run, on the run's channel that stands for v's
// channel, as the language's channel operations do in rewritten code:
// scheduling points, blocking, waking and panicking as in Go. Outside a run
// they are reflect's.
func Reflected(v reflect.Value, op, at string) Value { return Value{v, at} }

// Value is a reflect.Value whose method calls rewritten code makes through
// Reflected: reflect's own, but for the channel methods inside a run.
type Value struct {
	reflect.Value
	at string // the call's place, for reports
}

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

// Send is v.Value.Send(x): inside a run, a send on the run's channel.
func (v Value) Send(x reflect.Value) {
	g := engine.Current()
	if g == nil || !sendable(v.Value, x) {
		v.Value.Send(x) // outside a run; inside one, it panics as Go does, before it sends
		return
	}
	if v.IsNil() {
		nilChan.Send(struct{}{}) // blocks forever
	}
	reflShadow(g, v.Value, v.at).SendValue(x)
}

// TrySend is v.Value.TrySend(x): inside a run, a send on the run's channel
// that does not block, as a select with a default case.
func (v Value) TrySend(x reflect.Value) bool {
	g := engine.Current()
	if g == nil || !sendable(v.Value, x) {
		return v.Value.TrySend(x)
	}
	if v.IsNil() {
		chans.Select(chans.Default())
		return false
	}
	return chans.Select(reflShadow(g, v.Value, v.at).CaseSendValue(x), chans.Default()) == 0
}

// Recv is v.Value.Recv(): inside a run, a receive from the run's channel.
func (v Value) Recv() (reflect.Value, bool) {
	g := engine.Current()
	if g == nil || !chanOf(v.Value, reflect.RecvDir) {
		return v.Value.Recv()
	}
	if v.IsNil() {
		nilChan.Recv() // blocks forever
	}
	return reflShadow(g, v.Value, v.at).RecvValue()
}

// TryRecv is v.Value.TryRecv(): inside a run, a receive from the run's
// channel that does not block, as a select with a default case; the zero
// Value when nothing could be received.
func (v Value) TryRecv() (reflect.Value, bool) {
	g := engine.Current()
	if g == nil || !chanOf(v.Value, reflect.RecvDir) {
		return v.Value.TryRecv()
	}
	if v.IsNil() {
		chans.Select(chans.Default())
		return reflect.Value{}, false
	}
	var ok bool
	k, got := reflShadow(g, v.Value, v.at).CaseRecvValue(&ok)
	if chans.Select(k, chans.Default()) != 0 {
		return reflect.Value{}, false
	}
	return got(), ok
}

// Close is v.Value.Close(): inside a run, the close of the run's channel,
// and of Go's once that succeeded, as Close does.
func (v Value) Close() {
	g := engine.Current()
	if g == nil || !chanOf(v.Value, reflect.SendDir) {
		v.Value.Close()
		return
	}
	if v.IsNil() {
		nilChan.Close() // panics
	}
	reflShadow(g, v.Value, v.at).Close()
	v.Value.Close()
	g.ShadowClosed(v.UnsafePointer())
}

// nilChan is a nil channel of the run: what reflection does on a nil
// channel, it does on it (the element type does not show).
var nilChan *chans.Chan[struct{}]

// chanOf reports whether v is a channel that reflect lets operate in
// direction dir: reflect panics on anything else before it operates.
func chanOf(v reflect.Value, dir reflect.ChanDir) bool {
	return v.Kind() == reflect.Chan && v.CanInterface() && v.Type().ChanDir()&dir != 0
}

// sendable reports whether reflect's Send of x on v passes its checks.
func sendable(v, x reflect.Value) bool {
	return chanOf(v, reflect.SendDir) && x.IsValid() && x.CanInterface() && x.Type().AssignableTo(v.Type().Elem())
}

// ReflectSelect is reflect.Select(cases) at at. Inside a run it is a select
// over the run's channels (see chans.Select): the cases are checked as
// reflect checks them, in order, panicking with reflect's messages; a case
// whose channel is nil or the zero Value is never ready.
func ReflectSelect(cases []reflect.SelectCase, at string) (chosen int, recv reflect.Value, recvOK bool) {
	g := engine.Current()
	if g == nil {
		return reflect.Select(cases)
	}
	if len(cases) > 65536 {
		return reflect.Select(cases) // panics
	}
	def := false
	for _, c := range cases {
		if c.Dir == reflect.SelectDefault {
			if def {
				panic("reflect.Select: multiple default cases")
			}
			def = true
		}
		if !validCase(c) {
			probeCase(c)
		}
	}
	ks := make([]chans.Case, len(cases))
	oks := make([]bool, len(cases))
	gots := make([]func() reflect.Value, len(cases))
	for i, c := range cases {
		switch {
		case c.Dir == reflect.SelectDefault:
			ks[i] = chans.Default()
		case !c.Chan.IsValid() || c.Chan.IsNil():
			ks[i] = nilChan.CaseRecv(nil) // never ready
		case c.Dir == reflect.SelectSend:
			ks[i] = reflShadow(g, c.Chan, at).CaseSendValue(c.Send)
		default:
			ks[i], gots[i] = reflShadow(g, c.Chan, at).CaseRecvValue(&oks[i])
		}
	}
	chosen = chans.Select(ks...)
	if got := gots[chosen]; got != nil {
		return chosen, got(), oks[chosen]
	}
	return chosen, reflect.Value{}, false
}

// validCase reports whether reflect.Select accepts c (but for a second
// default case).
func validCase(c reflect.SelectCase) bool {
	switch c.Dir {
	case reflect.SelectDefault:
		return !c.Chan.IsValid() && !c.Send.IsValid()
	case reflect.SelectSend:
		return !c.Chan.IsValid() || sendable(c.Chan, c.Send)
	case reflect.SelectRecv:
		return !c.Send.IsValid() && (!c.Chan.IsValid() || chanOf(c.Chan, reflect.RecvDir))
	}
	return false
}

// probeCase has reflect.Select check c, which it refuses, for its panic:
// with a nil channel of c's channel's type in place of that channel, and a
// default case, so that nothing is sent or received should it accept c.
func probeCase(c reflect.SelectCase) {
	if c.Chan.IsValid() && c.Chan.Kind() == reflect.Chan && c.Chan.CanInterface() {
		c.Chan = reflect.Zero(c.Chan.Type())
	}
	if c.Dir == reflect.SelectDefault {
		reflect.Select([]reflect.SelectCase{c})
		return
	}
	reflect.Select([]reflect.SelectCase{c, {Dir: reflect.SelectDefault}})
}

// reflShadow is shadow for a channel that reflection operates on, v, not
// nil: the run's channel standing for it, adopted on its first use in the
// run.
func reflShadow(g *engine.G, v reflect.Value, at string) chans.Untyped {
	p := v.UnsafePointer()
	if s := g.Shadow(p); s != nil {
		return s.(chans.Untyped)
	}
	return adoptValue(g, p, v, at)
}

// adoptValue is adopt for a channel whose element type is known only at
// run time (reflection's): the run's channel is made by chans.MakeOf, which
// cannot make one of every type; for another, the run fails as a misuse.
func adoptValue(g *engine.G, p unsafe.Pointer, v reflect.Value, at string) chans.Untyped {
	elem := v.Type().Elem()
	s := chans.MakeOf(elem, v.Cap())
	if s == nil {
		g.Misuse("reflection at " + at + " is the run's first use of a " + v.Type().String() +
			" made outside the run, and the run cannot make a channel of " + elem.String() +
			" to stand for it (Go cannot instantiate a generic type at run time: only element types of channels made by the program " +
			"so far, and predeclared ones, are known): make the channel inside the test body, or use it with the language's " +
			"channel operations before reflection does")
	}
	c := reflect.NewAt(reflect.ChanOf(reflect.BothDir, elem), unsafe.Pointer(&p)).Elem() // v as a bidirectional channel
	g.SetShadow(p, c.Interface(), s)
	if at == "" {
		at = callerLine()
	}
	g.ShadowAdopted(p, at)
	for {
		x, ok := c.TryRecv()
		switch {
		case !x.IsValid():
			return s
		case !ok:
			s.Close()
			g.ShadowClosed(p)
			return s
		}
		if c.Cap() == 0 || s.Len() == c.Cap() {
			g.Misuse("a value was sent on a " + c.Type().String() +
				" by a goroutine the scheduler does not run (one started outside the run, or by code that dstreplay test did not rewrite)")
		}
		s.SendValue(x)
	}
}
