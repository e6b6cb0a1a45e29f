package chans

import (
	"reflect"
	"strings"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
)

// Case is one case of a Select: make it with Chan.CaseRecv, Chan.CaseRecvOK,
// Chan.CaseSend or Default.
type Case interface {
	checkNative()
	checkRun(g *engine.G)
	isNil() bool
	isManaged() bool
	ready() bool
	commit()
	enqueue(g *engine.G, s *selection, index int)
	nativeCase() reflect.SelectCase
	afterNative(v reflect.Value, ok bool)
	obj() *engine.Obj
}

// CaseRecv is a receive case: when it fires, the value received is stored
// in *dst (dst may be nil to discard it).
func (c *Chan[T]) CaseRecv(dst *T) Case { return &recvCase[T]{c: c, dst: dst} }

// CaseRecvOK is a receive case that also stores in *ok whether the value
// came from a send (false: the channel is closed and drained).
func (c *Chan[T]) CaseRecvOK(dst *T, ok *bool) Case {
	return &recvCase[T]{c: c, dst: dst, okDst: ok}
}

// CaseSend is a send case of v.
func (c *Chan[T]) CaseSend(v T) Case { return &sendCase[T]{c: c, v: v} }

// Default is the default case: Select returns its index at once when no
// other case is ready.
func Default() Case { return defaultCase{} }

// Select waits until one of its cases can proceed, performs it, and returns
// its index, as Go's select statement does: when several cases are ready it
// picks one uniformly at random (inside a run, drawn from the run's
// entropy); with a Default case it does not block; nil channels are never
// ready; a send case on a closed channel panics if chosen. With no case, or
// only cases on nil channels and no default, it blocks forever.
//
//	var v int
//	switch chans.Select(in.CaseRecv(&v), quit.CaseRecv(nil)) {
//	case 0:
//		use(v)
//	case 1:
//		return
//	}
//
// Inside a run, a blocking Select is one scheduling point and wakes on
// whichever case another goroutine completes first.
func Select(cases ...Case) int {
	g := engine.Current()
	if g == nil {
		for _, c := range cases {
			c.checkNative()
		}
		return selectNative(cases)
	}
	for _, c := range cases {
		if c.isNil() {
			continue
		}
		if !c.isManaged() {
			g.Misuse("chans: Select on a channel made outside the run; make channels inside the test body")
		}
		c.checkRun(g)
	}
	return selectRun(g, cases)
}

var keySelect = entropy.KeyOf("chans.select")

//go:norace
func selectRun(g *engine.G, cases []Case) int {
	var first *engine.Obj // the first channel, for the scheduling point's report
	for _, c := range cases {
		if o := c.obj(); o != nil {
			first = o
			break
		}
	}
	g.Point(engine.OpSelect, first)
	def := -1
	var ready []int
	for i, c := range cases {
		switch {
		case isDefault(c):
			def = i
		case !c.isNil() && c.ready():
			ready = append(ready, i)
		}
	}
	if len(ready) > 0 {
		i := ready[0]
		if len(ready) > 1 {
			i = ready[g.Source().At(keySelect).Choice(len(ready))]
		}
		g.TraceSelect(i, len(ready))
		cases[i].commit()
		return i
	}
	if def >= 0 {
		return def
	}
	s := &selection{}
	for i, c := range cases {
		if !c.isNil() && !isDefault(c) {
			c.enqueue(g, s, i)
		}
	}
	g.Block(engine.OpSelect, waitingOn(cases))
	// Another goroutine completed case s.fired and marked the others stale;
	// they are dropped from their queues as they are met.
	g.TraceSelect(s.fired, 0) // 0 ready: it waited, and another goroutine chose
	cases[s.fired].(afterBlock).finish()
	return s.fired
}

// waitingOn names, for reports, what a blocked select waits on:
// "select {recv chan int#3, send chan string#4}".
//
//go:norace
func waitingOn(cases []Case) *engine.Obj {
	return engine.LazyObj(func() string { return selectLabel(cases) }, engine.KindChan)
}

//go:norace
func selectLabel(cases []Case) string {
	var b strings.Builder
	b.WriteString("select {")
	n := 0
	for _, c := range cases {
		o := c.obj()
		if o == nil {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		if _, send := c.(interface{ isSend() }); send {
			b.WriteString("send ")
		} else {
			b.WriteString("recv ")
		}
		b.WriteString(o.String())
		n++
	}
	if n == 0 {
		b.WriteString("nil channels only")
	}
	b.WriteString("}")
	return b.String()
}

func isDefault(c Case) bool {
	_, ok := c.(defaultCase)
	return ok
}

// afterBlock is implemented by cases that have work to do in the selecting
// goroutine once it wakes (a send woken by close panics).
type afterBlock interface{ finish() }

func selectNative(cases []Case) int {
	sc := make([]reflect.SelectCase, len(cases))
	for i, c := range cases {
		sc[i] = c.nativeCase()
	}
	i, v, ok := reflect.Select(sc)
	cases[i].afterNative(v, ok)
	return i
}

type recvCase[T any] struct {
	c     *Chan[T]
	dst   *T
	okDst *bool
	w     *waiter[T]
}

func (r *recvCase[T]) isNil() bool          { return r.c == nil }
func (r *recvCase[T]) checkNative()         { r.c.checkNative(engine.OpSelect) }
func (r *recvCase[T]) checkRun(g *engine.G) { r.c.checkRun(g) }
func (r *recvCase[T]) isManaged() bool      { return r.c != nil && r.c.managed }

//go:norace
func (r *recvCase[T]) obj() *engine.Obj {
	if r.c == nil {
		return nil
	}
	return &r.c.obj
}

//go:norace
func (r *recvCase[T]) ready() bool { return r.c.canRecv() }

//go:norace
func (r *recvCase[T]) commit() {
	v, ok := r.c.takeRecv()
	r.store(v, ok)
}

//go:norace
func (r *recvCase[T]) store(v T, ok bool) {
	if r.dst != nil {
		*r.dst = v
	}
	if r.okDst != nil {
		*r.okDst = ok
	}
}

//go:norace
func (r *recvCase[T]) enqueue(g *engine.G, s *selection, i int) {
	r.w = &waiter[T]{g: g, sel: s, index: i, dst: r.dst, okDst: r.okDst}
	r.c.recvq.push(r.w)
	engine.RaceReleaseMerge(unsafePointer(&r.c.raceHand))
}

//go:norace
func (r *recvCase[T]) finish() {
	engine.RaceAcquire(unsafePointer(&r.c.raceHand))
	if !r.w.ok {
		engine.RaceAcquire(unsafePointer(&r.c.raceClose))
	}
}

func (r *recvCase[T]) nativeCase() reflect.SelectCase {
	sc := reflect.SelectCase{Dir: reflect.SelectRecv}
	if r.c != nil {
		sc.Chan = reflect.ValueOf(r.c.src())
	}
	return sc
}

func (r *recvCase[T]) afterNative(v reflect.Value, ok bool) {
	var t T
	if ok {
		t = v.Interface().(T)
	}
	r.store(t, ok)
}

type sendCase[T any] struct {
	c *Chan[T]
	v T
	w *waiter[T]
}

func (s *sendCase[T]) isNil() bool          { return s.c == nil }
func (s *sendCase[T]) checkNative()         { s.c.checkNative(engine.OpSelect) }
func (s *sendCase[T]) checkRun(g *engine.G) { s.c.checkRun(g) }
func (s *sendCase[T]) isSend()              {}
func (s *sendCase[T]) isManaged() bool      { return s.c != nil && s.c.managed }

//go:norace
func (s *sendCase[T]) obj() *engine.Obj {
	if s.c == nil {
		return nil
	}
	return &s.c.obj
}

//go:norace
func (s *sendCase[T]) ready() bool { return !s.c.timer && s.c.canSend() }

//go:norace
func (s *sendCase[T]) commit() { s.c.putSend(s.v) }

//go:norace
func (s *sendCase[T]) enqueue(g *engine.G, sel *selection, i int) {
	if s.c.timer {
		g.Misuse("chans: send on a timer's channel, which is receive-only")
	}
	s.w = &waiter[T]{g: g, sel: sel, index: i, val: s.v}
	s.c.sendq.push(s.w)
	engine.RaceReleaseMerge(unsafePointer(&s.c.raceHand))
}

//go:norace
func (s *sendCase[T]) finish() {
	engine.RaceAcquire(unsafePointer(&s.c.raceHand))
	if s.w.closed {
		panic(plainError("send on closed channel"))
	}
}

func (s *sendCase[T]) nativeCase() reflect.SelectCase {
	sc := reflect.SelectCase{Dir: reflect.SelectSend, Send: reflect.ValueOf(&s.v).Elem()}
	if s.c != nil {
		if s.c.native == nil && s.c.recv != nil {
			panic("chans: send on a receive-only channel")
		}
		sc.Chan = reflect.ValueOf(s.c.native)
	}
	return sc
}

func (s *sendCase[T]) afterNative(reflect.Value, bool) {}

type defaultCase struct{}

func (defaultCase) checkNative()                       {}
func (defaultCase) checkRun(*engine.G)                 {}
func (defaultCase) isNil() bool                        { return false }
func (defaultCase) isManaged() bool                    { return true }
func (defaultCase) ready() bool                        { return false }
func (defaultCase) commit()                            {}
func (defaultCase) enqueue(*engine.G, *selection, int) {}
func (defaultCase) nativeCase() reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectDefault}
}
func (defaultCase) afterNative(reflect.Value, bool) {}
func (defaultCase) obj() *engine.Obj                { return nil }
