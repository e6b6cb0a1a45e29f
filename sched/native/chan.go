package native

import (
	"iter"
	"reflect"
	"unsafe"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/engine"
)

// addr is a channel's identity: the address of its runtime structure, nil
// for a nil channel. Every channel type has the representation of one
// pointer, whatever its direction.
func addr[C any](c C) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&c)) }

// both views a channel of any direction as a bidirectional one, for the
// adoption's native receives and for the mirrored close.
func both[C any, T any](c C) chan T { return *(*chan T)(unsafe.Pointer(&c)) }

// shadow returns the run's channel standing for c, adopting c on its first
// use in the run; nil for a nil channel.
func shadow[T any](g *engine.G, p unsafe.Pointer, c chan T) *chans.Chan[T] {
	if p == nil {
		return nil
	}
	if s := g.Shadow(p); s != nil {
		return s.(*chans.Chan[T])
	}
	return adopt(g, p, c)
}

// adopt makes the run's channel for a channel made outside the run: with
// its buffered values and, if it is closed, closed.
func adopt[T any](g *engine.G, p unsafe.Pointer, c chan T) *chans.Chan[T] {
	s := chans.Make[T](cap(c))
	g.SetShadow(p, c, s)
	g.ShadowAdopted(p, callerLine())
	for {
		select {
		case v, ok := <-c:
			if !ok {
				s.Close()
				g.ShadowClosed(p)
				return s
			}
			if cap(c) == 0 || s.Len() == cap(c) {
				g.Misuse("a value was sent on a " + reflect.TypeFor[chan T]().String() +
					" by a goroutine the scheduler does not run (one started outside the run, or by code that dstreplay test did not rewrite)")
			}
			s.Send(v)
		default:
			return s
		}
	}
}

// Make is make(C, n): the channel is the run's when made inside one.
func Make[C ~chan T, T any](n int) C {
	c := make(C, n)
	if g := engine.Current(); g != nil {
		s := chans.Make[T](n)
		g.SetShadow(addr(c), c, s)
	}
	return c
}

// To is the channel side of a send: c <- v becomes To(c).Send(v), so that
// v converts to the element type as in Go's send (an argument of a generic
// function would have to be of that type exactly).
func To[T any](c chan<- T) Out[T] { return Out[T]{c} }

// Out is a channel to send on; see To.
type Out[T any] struct{ c chan<- T }

// Send is c <- v.
func (o Out[T]) Send(v T) {
	g := engine.Current()
	if g == nil {
		o.c <- v
		return
	}
	shadow(g, addr(o.c), both[chan<- T, T](o.c)).Send(v)
}

// Case is the case c <- v of a select.
func (o Out[T]) Case(v T) chans.Case {
	return shadow(engine.Current(), addr(o.c), both[chan<- T, T](o.c)).CaseSend(v)
}

// Recv is <-c.
func Recv[T any](c <-chan T) T {
	g := engine.Current()
	if g == nil {
		return <-c
	}
	return shadow(g, addr(c), both[<-chan T, T](c)).Recv()
}

// RecvOK is v, ok := <-c.
func RecvOK[T any](c <-chan T) (T, bool) {
	g := engine.Current()
	if g == nil {
		v, ok := <-c
		return v, ok
	}
	return shadow(g, addr(c), both[<-chan T, T](c)).RecvOK()
}

// RecvOKAs is v, ok = <-c where ok is of a named boolean type B (its
// value only gives B).
func RecvOKAs[T any, B ~bool](c <-chan T, _ B) (T, B) {
	v, ok := RecvOK(c)
	return v, B(ok)
}

// Bool is ok as a B, for the ok of a select's receive case of a named
// boolean type (b only gives B).
func Bool[B ~bool](ok bool, _ B) B { return B(ok) }

// Close is close(c). Inside a run it closes c natively too, once the run's
// channel is closed.
func Close[T any](c chan<- T) {
	g := engine.Current()
	if g == nil {
		close(c)
		return
	}
	shadow(g, addr(c), both[chan<- T, T](c)).Close()
	close(c)
	g.ShadowClosed(addr(c))
}

// Len is len(c) for a channel that can receive.
func Len[T any](c <-chan T) int {
	g := engine.Current()
	if g == nil {
		return len(c)
	}
	return shadow(g, addr(c), both[<-chan T, T](c)).Len()
}

// LenSend is len(c) for a send-only channel.
func LenSend[T any](c chan<- T) int {
	g := engine.Current()
	if g == nil {
		return len(c)
	}
	return shadow(g, addr(c), both[chan<- T, T](c)).Len()
}

// Range is for v := range c: the values received until c is closed and
// drained.
func Range[T any](c <-chan T) iter.Seq[T] {
	return func(yield func(T) bool) {
		for {
			v, ok := RecvOK(c)
			if !ok || !yield(v) {
				return
			}
		}
	}
}

// Running reports whether the caller is a goroutine of a run: rewritten
// selects run as Go's select outside one and through Select inside.
func Running() bool { return engine.Current() != nil }

// Select is a select statement inside a run: it returns the index of the
// case that proceeded (see chans.Select).
func Select(cases ...chans.Case) int { return chans.Select(cases...) }

// CaseRecv is the case v, ok := <-c (or any receive form) of a select:
// the value received goes to *dst, and whether it came from a send to *ok.
func CaseRecv[T any](c <-chan T, dst *T, ok *bool) chans.Case {
	return shadow(engine.Current(), addr(c), both[<-chan T, T](c)).CaseRecvOK(dst, ok)
}

// Default is the default case of a select.
func Default() chans.Case { return chans.Default() }

// Block is select {} inside a run: the goroutine blocks forever.
func Block() { chans.Select() }

// Elem is the zero value of c's element type, for the temporaries of a
// rewritten select.
func Elem[T any](c <-chan T) (v T) { return }

// Given marks a channel handed to a function that dstreplay test does not
// rewrite (the standard library's os/signal.Notify, say), at the call: fn
// names the function, at the place. Outside a run it returns c. Inside one
// it fails the run as a misuse naming both: that code would send or
// receive on c where the scheduler cannot see it, and the run would block
// or pass for reasons no schedule controls.
func Given[C any](c C, fn, at string) C {
	if g := engine.Current(); g != nil && addr(c) != nil {
		g.Misuse("a " + reflect.TypeFor[C]().String() + " is given to " + fn + " at " + at +
			", code that dstreplay test does not rewrite: the scheduler cannot see what it sends or receives on it")
	}
	return c
}
