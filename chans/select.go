package chans

import (
	"reflect"
	"strings"
	"unsafe"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
)

// Case is one case of a Select: make it with Chan.CaseRecv, Chan.CaseRecvOK,
// Chan.CaseSend or Default. It is a small value: making one allocates
// nothing, except CaseSend, which keeps a copy of the value to send.
type Case struct {
	ch   caseChan       // the channel, possibly a nil *Chan; nil for Default
	dst  unsafe.Pointer // receive: the *T the value goes to, or nil
	ok   *bool          // receive: where whether it came from a send goes
	val  unsafe.Pointer // send: the *T holding the value
	send bool
}

// caseChan is a channel's side of a select case, implemented by *Chan[T].
// Its methods take the Case by value, so that the cases of a Select stay
// where the caller put them (on its stack, usually).
type caseChan interface {
	caseNil() bool
	checkNative(op engine.Op)
	checkRun(g *engine.G)
	caseManaged() bool
	caseObj() *engine.Obj
	caseReady(k Case) bool
	caseCommit(k Case)
	caseEnqueue(k Case, g *engine.G, s *selection, index int) unsafe.Pointer
	caseRelease(k Case, w unsafe.Pointer)
	caseFinish(k Case, s *selection)
	caseNative(k Case) reflect.SelectCase
	caseAfterNative(k Case, v reflect.Value, ok bool)
}

// CaseRecv is a receive case: when it fires, the value received is stored
// in *dst (dst may be nil to discard it).
func (c *Chan[T]) CaseRecv(dst *T) Case { return Case{ch: c, dst: unsafe.Pointer(dst)} }

// CaseRecvOK is a receive case that also stores in *ok whether the value
// came from a send (false: the channel is closed and drained).
func (c *Chan[T]) CaseRecvOK(dst *T, ok *bool) Case {
	return Case{ch: c, dst: unsafe.Pointer(dst), ok: ok}
}

// CaseSend is a send case of v.
func (c *Chan[T]) CaseSend(v T) Case {
	p := new(T)
	*p = v
	return Case{ch: c, val: unsafe.Pointer(p), send: true}
}

// Default is the default case: Select returns its index at once when no
// other case is ready. It is the zero Case.
func Default() Case { return Case{} }

func (k Case) isDefault() bool { return k.ch == nil }

// onChan reports whether k is a case on a channel that is not nil: one
// that can fire.
func (k Case) onChan() bool { return k.ch != nil && !k.ch.caseNil() }

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
		for _, k := range cases {
			if !k.isDefault() {
				k.ch.checkNative(engine.OpSelect)
			}
		}
		return selectNative(cases)
	}
	for _, k := range cases {
		if !k.onChan() {
			continue
		}
		if !k.ch.caseManaged() {
			g.Misuse("chans: Select on a channel made outside the run; make channels inside the test body")
		}
		k.ch.checkRun(g)
	}
	return selectRun(g, cases)
}

var keySelect = entropy.KeyOf("chans.select")

//go:norace
func selectRun(g *engine.G, cases []Case) int {
	var first *engine.Obj // the first channel, for the scheduling point's report
	for _, k := range cases {
		if k.onChan() {
			first = k.ch.caseObj()
			break
		}
	}
	g.Point(engine.OpSelect, first)
	def := -1
	var buf [8]int
	ready := buf[:0]
	for i, k := range cases {
		switch {
		case k.isDefault():
			def = i
		case k.onChan() && k.ch.caseReady(k):
			ready = append(ready, i)
		}
	}
	if len(ready) > 0 {
		i := ready[0]
		if len(ready) > 1 {
			i = ready[g.Source().At(keySelect).Choice(len(ready))]
		}
		g.TraceSelect(i, len(ready))
		cases[i].ch.caseCommit(cases[i])
		return i
	}
	if def >= 0 {
		g.Polled() // for the clock: it polled and found nothing
		return def
	}
	s := selectionOf(g, cases)
	var wbuf [8]unsafe.Pointer
	ws := wbuf[:0]
	for range cases {
		ws = append(ws, nil)
	}
	var obuf [8]int
	order := enqueueOrder(g, cases, obuf[:0])
	for j := range cases {
		i := j
		if order != nil {
			i = order[j]
		}
		if k := cases[i]; k.onChan() {
			ws[i] = k.ch.caseEnqueue(k, g, s, i)
		}
	}
	g.Block(engine.OpSelect, &s.obj)
	// Another goroutine completed case s.fired and marked the others
	// stale: they leave their queues and serve again.
	fired := s.fired
	g.TraceSelect(fired, 0) // 0 ready: it waited, and another goroutine chose
	for i, w := range ws {
		if w != nil {
			cases[i].ch.caseRelease(cases[i], w)
		}
	}
	cases[fired].ch.caseFinish(cases[fired], s)
	return fired
}

var keySelectOrder = entropy.KeyOf("chans.select.order")

// enqueueOrder returns the order in which a blocking select over cases
// joins its channels' queues, or nil for the cases' order. The order shows
// only when two cases wait in the same queue (the same channel and
// direction): the goroutine that comes next serves the first of them. Go
// joins the queues in an order that is random among such cases, so it is
// drawn then, and only then.
//
//go:norace
func enqueueOrder(g *engine.G, cases []Case, buf []int) []int {
	dup := false
	for i := 1; i < len(cases) && !dup; i++ {
		if !cases[i].onChan() {
			continue
		}
		for _, k := range cases[:i] {
			if k.onChan() && k.ch == cases[i].ch && k.send == cases[i].send {
				dup = true
				break
			}
		}
	}
	if !dup {
		return nil
	}
	order := buf
	for i := range cases {
		order = append(order, i)
	}
	src := g.Source().At(keySelectOrder)
	for i := len(order) - 1; i > 0; i-- {
		j := src.Choice(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	return order
}

// selection is what the waiters of one blocked select share: once one of
// its cases completes, the others are stale. It is also what reports say
// the select waits on: "select {recv chan int#3, send chan string#4}".
type selection struct {
	done   bool
	fired  int
	ok     bool // the fired receive got a value from a send
	closed bool // the fired send was woken by close
	obj    engine.Obj
	cases  []caseLabel // what the label names, case by case
	room   [4]caseLabel
}

// caseLabel is what a select's label says of a case: its channel (nil for
// none) and its direction.
type caseLabel struct {
	ch   *engine.Obj
	send bool
}

// selectionOf returns g's selection, made ready for a select over cases: a
// goroutine is in one select at a time, and keeps its selection for the
// next.
//
//go:norace
func selectionOf(g *engine.G, cases []Case) *selection {
	s, _ := g.Scratch().(*selection)
	if s == nil {
		s = &selection{}
		s.obj = engine.LazyObj(s, engine.KindChan)
		s.cases = s.room[:0]
		g.SetScratch(s)
	}
	s.done, s.fired, s.ok, s.closed = false, 0, false, false
	s.cases = s.cases[:0]
	for _, k := range cases {
		l := caseLabel{send: k.send}
		if k.onChan() {
			l.ch = k.ch.caseObj()
		}
		s.cases = append(s.cases, l)
	}
	return s
}

// Label names what the select waits on, for reports.
//
//go:norace
func (s *selection) Label() string {
	var b strings.Builder
	b.WriteString("select {")
	n := 0
	for _, l := range s.cases {
		if l.ch == nil {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		if l.send {
			b.WriteString("send ")
		} else {
			b.WriteString("recv ")
		}
		b.WriteString(l.ch.String())
		n++
	}
	if n == 0 {
		b.WriteString("nil channels only")
	}
	b.WriteString("}")
	return b.String()
}

func selectNative(cases []Case) int {
	sc := make([]reflect.SelectCase, len(cases))
	for i, k := range cases {
		if k.isDefault() {
			sc[i] = reflect.SelectCase{Dir: reflect.SelectDefault}
			continue
		}
		sc[i] = k.ch.caseNative(k)
	}
	i, v, ok := reflect.Select(sc)
	if k := cases[i]; !k.isDefault() {
		k.ch.caseAfterNative(k, v, ok)
	}
	return i
}

// The channel's side of a case.

func (c *Chan[T]) caseNil() bool     { return c == nil }
func (c *Chan[T]) caseManaged() bool { return c != nil && c.managed }

//go:norace
func (c *Chan[T]) caseObj() *engine.Obj { return &c.obj }

//go:norace
func (c *Chan[T]) caseReady(k Case) bool {
	if k.send {
		return !c.timer && c.canSend()
	}
	return c.canRecv()
}

//go:norace
func (c *Chan[T]) caseCommit(k Case) {
	if k.send {
		c.putSend(*(*T)(k.val))
		return
	}
	v, ok := c.takeRecv()
	store((*T)(k.dst), k.ok, v, ok)
}

// store puts what a receive case got where the case says.
func store[T any](dst *T, okDst *bool, v T, ok bool) {
	if dst != nil {
		*dst = v
	}
	if okDst != nil {
		*okDst = ok
	}
}

//go:norace
func (c *Chan[T]) caseEnqueue(k Case, g *engine.G, s *selection, i int) unsafe.Pointer {
	if k.send && c.timer {
		g.Misuse("chans: send on a timer's channel, which is receive-only")
	}
	w := c.newWaiter(g)
	w.sel, w.index = s, i
	if k.send {
		w.val = *(*T)(k.val)
		c.sendq.push(w)
	} else {
		w.dst, w.okDst = (*T)(k.dst), k.ok
		c.recvq.push(w)
	}
	engine.RaceReleaseMerge(unsafePointer(&c.raceHand))
	return unsafe.Pointer(w)
}

// caseRelease takes a select's waiter w for case k out of its queue, if it
// is still there (stale), and keeps it for the channel's next waiter.
//
//go:norace
func (c *Chan[T]) caseRelease(k Case, w unsafe.Pointer) {
	q := &c.recvq
	if k.send {
		q = &c.sendq
	}
	q.remove((*waiter[T])(w))
	c.release((*waiter[T])(w))
}

// caseFinish is the selecting goroutine's part once the fired case was
// completed by another goroutine.
//
//go:norace
func (c *Chan[T]) caseFinish(k Case, s *selection) {
	engine.RaceAcquire(unsafePointer(&c.raceHand))
	switch {
	case k.send && s.closed:
		panic(plainError("send on closed channel"))
	case !k.send && !s.ok:
		engine.RaceAcquire(unsafePointer(&c.raceClose))
	}
}

func (c *Chan[T]) caseNative(k Case) reflect.SelectCase {
	if k.send {
		sc := reflect.SelectCase{Dir: reflect.SelectSend, Send: reflect.ValueOf((*T)(k.val)).Elem()}
		if c != nil {
			if c.native == nil && c.recv != nil {
				panic("chans: send on a receive-only channel")
			}
			sc.Chan = reflect.ValueOf(c.native)
		}
		return sc
	}
	sc := reflect.SelectCase{Dir: reflect.SelectRecv}
	if c != nil {
		sc.Chan = reflect.ValueOf(c.src())
	}
	return sc
}

func (c *Chan[T]) caseAfterNative(k Case, v reflect.Value, ok bool) {
	if k.send {
		return
	}
	var t T
	if ok {
		t = v.Interface().(T)
	}
	store((*T)(k.dst), k.ok, t, ok)
}
