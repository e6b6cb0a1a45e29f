package chans

import (
	"iter"
	"strconv"
	"time"
	"unsafe"

	"github.com/dstgo/dst/internal/chanlink"
	"github.com/dstgo/dst/internal/engine"
)

// Chan is a channel of T. Make a channel with Make; a nil *Chan is a nil
// channel, which blocks forever on send and receive, as in Go. A channel
// made inside a run belongs to that run: every operation on it is a
// scheduling point, and a goroutine blocked on it is reported with the
// channel's element type and the line where it blocked. A channel made
// outside a run is a Go channel, for production code.
type Chan[T any] struct {
	// Outside a run: the Go channel (recv is set for receive-only ones).
	native chan T
	recv   <-chan T

	obj                 engine.Obj
	capa                int
	buf                 []T // ring buffer of capa slots (1 for a timer's channel); one's when that is 1
	one                 [1]T
	head                int
	count               int
	managed             bool
	closed              bool
	timer               bool // a vtime timer's channel
	raceHand, raceClose byte // the race detector's addresses for handoffs and close (below)
	recvq               waitq[T]
	sendq               waitq[T]
	spare               *waiter[T] // a plain waiter to reuse: no allocation per blocking operation

	// Addresses the race detector synchronizes on: one per buffer slot
	// (under -race only); raceHand for handoffs to a parked goroutine and
	// raceClose for close sit with the other small fields above (a
	// channel of struct{} is 240 bytes, not 256).
	raceSlots []byte
}

// waiter is a goroutine parked on a channel, by a send, a receive or a
// select.
type waiter[T any] struct {
	g      *engine.G
	sel    *selection // nil for a plain send or receive
	index  int        // the case index in the select
	val    T          // send: the value; receive: the value received
	dst    *T         // select receive: where the value goes
	okDst  *bool
	ok     bool // receive: false when woken by close
	closed bool // send: woken by close, so it panics
	done   bool
}

//go:norace
func (w *waiter[T]) stale() bool { return w.sel != nil && w.sel.done }

//go:norace
func (w *waiter[T]) complete() {
	w.done = true
	if s := w.sel; s != nil {
		s.done, s.fired, s.ok, s.closed = true, w.index, w.ok, w.closed
	}
	w.g.Unblock()
}

// Make returns a channel with room for capacity values; 0 makes an
// unbuffered channel. It panics if capacity is negative, or its buffer
// too large to allocate, as make does.
func Make[T any](capacity int) *Chan[T] {
	if capacity < 0 || bufferTooLarge[T](capacity) {
		panic(plainError("makechan: size out of range"))
	}
	label := known[T]() // and for reflection over such channels (MakeOf)
	g := engine.Current()
	if g == nil {
		return &Chan[T]{native: make(chan T, capacity)}
	}
	c := &Chan[T]{managed: true, capa: capacity}
	c.init(g, label)
	return c
}

// FromRecv adapts a Go channel for use where a *Chan is expected, outside a
// run (vtime does this for timers made outside a run). Send and Close on the
// result panic, as on a receive-only channel.
func FromRecv[T any](c <-chan T) *Chan[T] { return &Chan[T]{recv: c} }

// maxAlloc is the largest allocation the runtime makes on 64-bit platforms
// with 48-bit addresses (runtime.maxAlloc); on 32-bit ones, what an int
// can count.
const maxAlloc = 1<<min(48, strconv.IntSize-1) - 1

// bufferTooLarge reports whether a buffer of n values of T exceeds what make
// allocates for a channel (makechan's check, without its header's size).
func bufferTooLarge[T any](n int) bool {
	var zero T
	size := uint64(unsafe.Sizeof(zero))
	return size > 0 && uint64(n) > maxAlloc/size
}

//go:norace
func (c *Chan[T]) init(g *engine.G, label string) {
	c.obj.SetLabel(label)
	c.obj.Bind(g, engine.KindChan)
	n := max(c.capa, 1)
	if n == 1 {
		c.buf = c.one[:] // unbuffered, a timer's, or of one: no allocation of its own
	} else {
		c.buf = make([]T, n)
	}
	if engine.RaceEnabled {
		c.raceSlots = make([]byte, n)
	}
}

var nilChan = engine.NilObj("nil chan", engine.KindChan)

func init() {
	chanlink.Timers = &chanlink.TimerOps[*Chan[time.Time]]{
		New: func() *Chan[time.Time] {
			c := &Chan[time.Time]{managed: true, capa: 1, timer: true}
			c.init(engine.Current(), "timer chan")
			return c
		},
		Wrap:    FromRecv[time.Time],
		Deliver: (*Chan[time.Time]).deliver,
		Drain:   (*Chan[time.Time]).drain,
		Idle:    (*Chan[time.Time]).idle,
	}
	chanlink.Dones = &chanlink.DoneOps[*Chan[struct{}]]{
		New: func() *Chan[struct{}] {
			c := &Chan[struct{}]{managed: true}
			c.init(engine.Current(), "Context.Done")
			return c
		},
		Close: (*Chan[struct{}]).closeQuiet,
	}
}

// managedBy returns the goroutine that operates on c inside a run, or nil
// when c is used natively; it fails the run on a mix of the two, and on a
// channel of another run.
func (c *Chan[T]) managedBy(op engine.Op) *engine.G {
	if c != nil {
		if g := c.obj.Running(); g != nil {
			return g // c is bound to the caller's run: the checks below passed
		}
	}
	g := engine.Current()
	if g == nil {
		c.checkNative(op)
		return nil
	}
	if c != nil {
		if !c.managed {
			g.Misuse("chans: " + op.String() + " on a channel made outside the run; make channels inside the test body")
		}
		c.checkRun(g)
	}
	return g
}

// checkNative panics when a goroutine no run manages uses a channel made
// inside a run.
func (c *Chan[T]) checkNative(op engine.Op) {
	if c != nil && c.managed {
		c.obj.CheckNative(op) // panics while its run is in progress
		panic("chans: " + op.String() + " on a channel made inside a run that has ended")
	}
}

// checkRun fails g's run when c belongs to another run in progress; a
// channel of a run that has ended is a misuse too, since its buffer and
// waiters belong to that run.
//
//go:norace
func (c *Chan[T]) checkRun(g *engine.G) {
	if c.obj.Bind(g, engine.KindChan) {
		g.Misuse("chans: a channel made by an earlier run used in this one; make channels inside the test body")
	}
}

// Send sends v on c, blocking until a receiver takes it or there is room in
// the buffer. It panics if c is closed ("send on closed channel"), also when
// c is closed while Send is blocked.
func (c *Chan[T]) Send(v T) {
	if g := c.managedBy(engine.OpSend); g != nil {
		c.send(g, v)
		return
	}
	if c == nil {
		var block chan T
		block <- v
	}
	if c.native == nil {
		panic("chans: send on a receive-only channel")
	}
	c.native <- v
}

// Recv receives a value from c, blocking until one is available. From a
// closed and drained channel it returns the zero value at once.
func (c *Chan[T]) Recv() T {
	v, _ := c.RecvOK()
	return v
}

// RecvOK is Recv that also reports whether the value came from a send
// (true) or from c being closed and drained (false), as v, ok := <-c does.
func (c *Chan[T]) RecvOK() (T, bool) {
	if g := c.managedBy(engine.OpRecv); g != nil {
		return c.recvOK(g)
	}
	if c == nil {
		var block chan T
		v, ok := <-block
		return v, ok
	}
	v, ok := <-c.src()
	return v, ok
}

// Close closes c: receivers drain what is buffered, then receive the zero
// value; blocked senders panic. Closing a nil or closed channel panics, as
// in Go.
func (c *Chan[T]) Close() {
	if g := c.managedBy(engine.OpClose); g != nil {
		c.close(g)
		return
	}
	if c == nil {
		panic(plainError("close of nil channel"))
	}
	if c.native == nil {
		panic("chans: close of a receive-only channel")
	}
	close(c.native)
}

// Len is the number of values in the buffer.
func (c *Chan[T]) Len() int {
	if g := c.managedBy(engine.OpLen); g != nil {
		return c.length(g)
	}
	if c == nil {
		return 0
	}
	return len(c.src())
}

// Cap is the buffer's capacity (0 for an unbuffered channel and for a
// timer's channel, as in Go 1.23).
func (c *Chan[T]) Cap() int {
	if c == nil {
		return 0
	}
	if c.managed {
		return c.capacity()
	}
	return cap(c.src())
}

// All returns an iterator over the values received from c until it is
// closed and drained: for v := range c.All() is for v := range ch.
func (c *Chan[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		for {
			v, ok := c.RecvOK()
			if !ok || !yield(v) {
				return
			}
		}
	}
}

func (c *Chan[T]) src() <-chan T {
	if c.recv != nil {
		return c.recv
	}
	return c.native
}

// The run side. Every function below touches run state, so it is norace;
// the goroutines of a run call them in turn.

//go:norace
func (c *Chan[T]) capacity() int {
	if c.timer {
		return 0
	}
	return c.capa
}

//go:norace
func (c *Chan[T]) length(g *engine.G) int {
	if c == nil {
		g.Point(engine.OpLen, nilChan)
		return 0
	}
	g.Point(engine.OpLen, &c.obj)
	if c.timer {
		return 0
	}
	return c.count
}

//go:norace
func (c *Chan[T]) slot(i int) unsafe.Pointer {
	if !engine.RaceEnabled {
		return nil // the race annotations do nothing
	}
	return unsafe.Pointer(&c.raceSlots[i])
}

// push and pop move values through the ring buffer, with the race
// detector's edges between the k-th receive and the k+cap-th send.
//
//go:norace
func (c *Chan[T]) push(v T) {
	i := (c.head + c.count) % len(c.buf)
	engine.RaceAcquire(c.slot(i))
	engine.RaceReleaseMerge(c.slot(i))
	c.buf[i] = v
	c.count++
}

//go:norace
func (c *Chan[T]) pop() T {
	i := c.head
	engine.RaceAcquire(c.slot(i))
	engine.RaceReleaseMerge(c.slot(i))
	v := c.buf[i]
	var zero T
	c.buf[i] = zero
	c.head = (c.head + 1) % len(c.buf)
	c.count--
	return v
}

// waitq is a FIFO of parked waiters whose array is reused: it restarts at
// the front whenever it empties, and compacts when half of it is consumed.
type waitq[T any] struct {
	ws   []*waiter[T]
	head int
	one  [1]*waiter[T] // ws's first array: one waiter allocates nothing
}

//go:norace
func (q *waitq[T]) push(w *waiter[T]) {
	if q.head > 0 && q.head >= len(q.ws)/2 {
		n := 0
		for _, x := range q.ws[q.head:] { // no copy builtin: see engine
			q.ws[n] = x
			n++
		}
		for i := n; i < len(q.ws); i++ {
			q.ws[i] = nil
		}
		q.ws, q.head = q.ws[:n], 0
	}
	switch {
	case q.ws == nil:
		q.ws = q.one[:0]
	case len(q.ws) == 1 && cap(q.ws) == 1: // one's, full: moved out by hand, as append would read one where the race detector sees it
		ws := make([]*waiter[T], 1, 4)
		ws[0] = q.ws[0]
		q.ws = ws
	}
	q.ws = append(q.ws, w)
}

// remove takes w out of q if it is there, keeping the others' order.
//
//go:norace
func (q *waitq[T]) remove(w *waiter[T]) {
	for i := q.head; i < len(q.ws); i++ {
		if q.ws[i] != w {
			continue
		}
		for j := i; j > q.head; j-- { // no copy builtin: see engine
			q.ws[j] = q.ws[j-1]
		}
		q.ws[q.head] = nil
		q.head++
		if q.head == len(q.ws) {
			q.ws, q.head = q.ws[:0], 0
		}
		return
	}
}

// first removes and returns the oldest live waiter, dropping stale ones
// (those of selects that completed another case), or returns nil.
//
//go:norace
func (q *waitq[T]) first() *waiter[T] {
	for q.head < len(q.ws) {
		w := q.ws[q.head]
		q.ws[q.head] = nil
		q.head++
		if q.head == len(q.ws) {
			q.ws, q.head = q.ws[:0], 0
		}
		if !w.stale() {
			return w
		}
	}
	return nil
}

//go:norace
func (q *waitq[T]) live() bool {
	for _, w := range q.ws[q.head:] {
		if !w.stale() {
			return true
		}
	}
	return false
}

// newWaiter returns a waiter for a plain send or receive of g, reusing the
// channel's spare one.
//
//go:norace
func (c *Chan[T]) newWaiter(g *engine.G) *waiter[T] {
	w := c.spare
	if w == nil {
		return &waiter[T]{g: g}
	}
	c.spare = nil
	w.g = g
	return w
}

// release returns a completed plain waiter for reuse.
//
//go:norace
func (c *Chan[T]) release(w *waiter[T]) {
	*w = waiter[T]{}
	c.spare = w
}

// handOff completes a parked waiter on behalf of the running goroutine, with
// the race detector's edges both ways, as an unbuffered exchange creates.
//
//go:norace
func (c *Chan[T]) handOff(w *waiter[T]) {
	engine.RaceAcquire(unsafe.Pointer(&c.raceHand))
	engine.RaceReleaseMerge(unsafe.Pointer(&c.raceHand))
	w.complete()
}

// park blocks g as w on q until another goroutine completes w.
//
//go:norace
func (c *Chan[T]) park(g *engine.G, q *waitq[T], w *waiter[T], op engine.Op) {
	q.push(w)
	engine.RaceReleaseMerge(unsafe.Pointer(&c.raceHand))
	g.Block(op, &c.obj)
	engine.RaceAcquire(unsafe.Pointer(&c.raceHand))
}

//go:norace
func (c *Chan[T]) canRecv() bool {
	return c.count > 0 || c.closed || c.sendq.live()
}

//go:norace
func (c *Chan[T]) canSend() bool {
	return c.closed || c.recvq.live() || !c.timer && c.count < c.capa
}

// takeRecv receives from a channel that can receive (canRecv).
//
//go:norace
func (c *Chan[T]) takeRecv() (T, bool) {
	if c.count > 0 {
		v := c.pop()
		// A parked sender's value moves into the freed slot.
		if w := c.sendq.first(); w != nil {
			c.push(w.val)
			c.handOff(w)
		}
		return v, true
	}
	if w := c.sendq.first(); w != nil {
		v := w.val
		c.handOff(w)
		return v, true
	}
	engine.RaceAcquire(unsafe.Pointer(&c.raceClose))
	var zero T
	return zero, false
}

// putSend sends on a channel that can send (canSend).
//
//go:norace
func (c *Chan[T]) putSend(v T) {
	if c.closed {
		panic(plainError("send on closed channel"))
	}
	if w := c.recvq.first(); w != nil {
		w.deliver(v, true)
		c.handOff(w)
		return
	}
	c.push(v)
}

//go:norace
func (w *waiter[T]) deliver(v T, ok bool) {
	w.val, w.ok = v, ok
	store(w.dst, w.okDst, v, ok)
}

//go:norace
func (c *Chan[T]) send(g *engine.G, v T) {
	if c == nil {
		g.Point(engine.OpSend, nilChan)
		g.Block(engine.OpSend, nilChan) // forever
		return
	}
	if c.timer {
		g.Misuse("chans: send on a timer's channel, which is receive-only")
	}
	g.Point(engine.OpSend, &c.obj)
	if c.canSend() {
		c.putSend(v)
		return
	}
	w := c.newWaiter(g)
	w.val = v
	c.park(g, &c.sendq, w, engine.OpSend)
	closed := w.closed
	c.release(w)
	if closed {
		panic(plainError("send on closed channel"))
	}
}

//go:norace
func (c *Chan[T]) recvOK(g *engine.G) (T, bool) {
	if c == nil {
		g.Point(engine.OpRecv, nilChan)
		g.Block(engine.OpRecv, nilChan) // forever
		var zero T
		return zero, false
	}
	g.Point(engine.OpRecv, &c.obj)
	if c.canRecv() {
		return c.takeRecv()
	}
	w := c.newWaiter(g)
	c.park(g, &c.recvq, w, engine.OpRecv)
	v, ok := w.val, w.ok
	c.release(w)
	if !ok {
		engine.RaceAcquire(unsafe.Pointer(&c.raceClose))
	}
	return v, ok
}

//go:norace
func (c *Chan[T]) close(g *engine.G) {
	if c == nil {
		g.Point(engine.OpClose, nilChan)
		panic(plainError("close of nil channel"))
	}
	if c.timer {
		g.Misuse("chans: close of a timer's channel, which is receive-only")
	}
	g.Point(engine.OpClose, &c.obj)
	if c.closed {
		panic(plainError("close of closed channel"))
	}
	c.shut()
	for w := c.sendq.first(); w != nil; w = c.sendq.first() {
		w.closed = true
		w.complete()
	}
}

// closeQuiet closes c, waking its receivers, with no scheduling point.
//
//go:norace
func (c *Chan[T]) closeQuiet() {
	if !c.closed {
		c.shut()
	}
}

// shut marks c closed and completes every blocked receiver with the zero
// value and ok false.
//
//go:norace
func (c *Chan[T]) shut() {
	engine.RaceReleaseMerge(unsafe.Pointer(&c.raceClose))
	c.closed = true
	var zero T
	for w := c.recvq.first(); w != nil; w = c.recvq.first() {
		w.deliver(zero, false)
		w.complete()
	}
}

// deliver offers a timer's tick (see chanlink.Deliver). It runs between
// scheduling decisions, not as a goroutine's operation.
//
//go:norace
func (c *Chan[T]) deliver(v T) {
	if w := c.recvq.first(); w != nil {
		w.deliver(v, true)
		w.complete()
		return
	}
	if c.count == 0 {
		c.buf[c.head] = v
		c.count = 1
	}
}

//go:norace
func (c *Chan[T]) drain() bool {
	had := c.count > 0
	var zero T
	c.buf[c.head] = zero
	c.count = 0
	return had
}

//go:norace
func (c *Chan[T]) idle() bool { return c.count > 0 && !c.recvq.live() }

// plainError is the runtime's error type for channel misuse, so that a
// recovered panic prints and compares as Go's does.
type plainError string

func (e plainError) Error() string { return string(e) }
func (e plainError) RuntimeError() {}

func unsafePointer(p *byte) unsafe.Pointer { return unsafe.Pointer(p) }
