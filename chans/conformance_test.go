package chans_test

import (
	"slices"
	"testing"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/schedtest"
)

// conformance is one Go channel rule. A case with want == "" must pass in
// every one of the explored schedules; otherwise every run must fail with
// kind want and a report containing every one of wants.
type conformance struct {
	name  string
	want  schedtest.FailureKind
	wants []string
	body  func(t *schedtest.T)
}

var conformanceCases = []conformance{
	{name: "unbuffered/send waits for receiver", body: func(t *schedtest.T) {
		c := chans.Make[int](0)
		var sent atomic.Bool
		var wg sched.WaitGroup
		wg.Go(func() {
			c.Send(7)
			sent.Store(true)
		})
		for range 5 {
			sched.Yield()
			if sent.Load() {
				t.Fatal("Send on an unbuffered channel completed with no receiver")
			}
		}
		if v := c.Recv(); v != 7 {
			t.Errorf("Recv = %d, want 7", v)
		}
		wg.Wait()
		if !sent.Load() {
			t.Error("sender did not finish after its value was received")
		}
	}},
	{name: "unbuffered/recv waits for sender", body: func(t *schedtest.T) {
		c := chans.Make[int](0)
		var got atomic.Bool
		var wg sched.WaitGroup
		wg.Go(func() {
			if v := c.Recv(); v != 3 {
				t.Errorf("Recv = %d, want 3", v)
			}
			got.Store(true)
		})
		for range 5 {
			sched.Yield()
			if got.Load() {
				t.Fatal("Recv on an unbuffered channel completed with no sender")
			}
		}
		c.Send(3)
		wg.Wait()
	}},
	{name: "unbuffered/ping pong", body: func(t *schedtest.T) {
		ping, pong := chans.Make[int](0), chans.Make[int](0)
		sched.Go(func() {
			for v := range ping.All() {
				pong.Send(v * 2)
			}
			pong.Close()
		})
		for i := range 5 {
			ping.Send(i)
			if v := pong.Recv(); v != 2*i {
				t.Errorf("round %d: got %d, want %d", i, v, 2*i)
			}
		}
		ping.Close()
		if v, ok := pong.RecvOK(); ok || v != 0 {
			t.Errorf("after close: RecvOK = %d, %v; want 0, false", v, ok)
		}
	}},
	{name: "buffered/send does not wait while there is room", body: func(t *schedtest.T) {
		c := chans.Make[int](2)
		var wg sched.WaitGroup
		wg.Go(func() { c.Send(1); c.Send(2) })
		wg.Wait() // deadlocks if a buffered Send waited for a receiver
		if n := c.Len(); n != 2 {
			t.Errorf("Len = %d, want 2", n)
		}
		if a, b := c.Recv(), c.Recv(); a != 1 || b != 2 {
			t.Errorf("got %d, %d; want 1, 2", a, b)
		}
	}},
	{name: "buffered/send blocks when full", body: func(t *schedtest.T) {
		c := chans.Make[int](1)
		var sent atomic.Int32
		var wg sched.WaitGroup
		wg.Go(func() {
			c.Send(1)
			sent.Add(1)
			c.Send(2)
			sent.Add(1)
		})
		for range 6 {
			sched.Yield()
			if sent.Load() > 1 {
				t.Fatal("a second Send completed on a full channel of capacity 1")
			}
		}
		if v := c.Recv(); v != 1 {
			t.Errorf("Recv = %d, want 1", v)
		}
		if v := c.Recv(); v != 2 {
			t.Errorf("Recv = %d, want 2", v)
		}
		wg.Wait()
	}},
	{name: "buffered/FIFO", body: func(t *schedtest.T) {
		c := chans.Make[int](3)
		sched.Go(func() {
			for i := range 10 {
				c.Send(i)
			}
		})
		for i := range 10 {
			if v := c.Recv(); v != i {
				t.Fatalf("value %d received as %d: not FIFO", i, v)
			}
		}
	}},
	{name: "buffered/FIFO with two senders keeps each sender's order", body: func(t *schedtest.T) {
		c := chans.Make[int](2)
		for s := range 2 {
			sched.Go(func() {
				for i := range 4 {
					c.Send(s*100 + i)
				}
			})
		}
		next := [2]int{}
		for range 8 {
			v := c.Recv()
			s, i := v/100, v%100
			if i != next[s] {
				t.Fatalf("sender %d's value %d arrived before %d", s, i, next[s])
			}
			next[s]++
		}
	}},
	{name: "Len and Cap", body: func(t *schedtest.T) {
		u := chans.Make[string](0)
		if u.Len() != 0 || u.Cap() != 0 {
			t.Errorf("unbuffered: Len, Cap = %d, %d; want 0, 0", u.Len(), u.Cap())
		}
		c := chans.Make[string](3)
		if c.Len() != 0 || c.Cap() != 3 {
			t.Errorf("empty: Len, Cap = %d, %d; want 0, 3", c.Len(), c.Cap())
		}
		c.Send("a")
		c.Send("b")
		if c.Len() != 2 || c.Cap() != 3 {
			t.Errorf("after two sends: Len, Cap = %d, %d; want 2, 3", c.Len(), c.Cap())
		}
		c.Recv()
		if c.Len() != 1 {
			t.Errorf("after a receive: Len = %d, want 1", c.Len())
		}
		c.Close()
		if c.Len() != 1 || c.Cap() != 3 {
			t.Errorf("after close: Len, Cap = %d, %d; want 1, 3", c.Len(), c.Cap())
		}
		var n *chans.Chan[string]
		if n.Cap() != 0 {
			t.Errorf("nil channel: Cap = %d, want 0", n.Cap())
		}
	}},
	{name: "close/wakes every blocked receiver with zero, false", body: func(t *schedtest.T) {
		c := chans.Make[int](0)
		var wg sched.WaitGroup
		for range 3 {
			wg.Go(func() {
				if v, ok := c.RecvOK(); v != 0 || ok {
					t.Errorf("RecvOK = %d, %v; want 0, false", v, ok)
				}
			})
		}
		for range 3 {
			sched.Yield()
		}
		c.Close()
		wg.Wait()
	}},
	{name: "close/wakes blocked Recv with zero value of the type", body: func(t *schedtest.T) {
		c := chans.Make[string](1)
		var wg sched.WaitGroup
		wg.Go(func() {
			if v := c.Recv(); v != "" {
				t.Errorf("Recv = %q, want \"\"", v)
			}
		})
		sched.Yield()
		c.Close()
		wg.Wait()
	}},
	{name: "close/buffered values are drained first", body: func(t *schedtest.T) {
		c := chans.Make[int](3)
		sched.Go(func() {
			c.Send(1)
			c.Send(2)
			c.Close()
		})
		var got []int
		for {
			v, ok := c.RecvOK()
			if !ok {
				if v != 0 {
					t.Errorf("closed and drained: value %d, want 0", v)
				}
				break
			}
			got = append(got, v)
		}
		if !slices.Equal(got, []int{1, 2}) {
			t.Errorf("received %v before close, want [1 2]", got)
		}
		for range 2 {
			if v, ok := c.RecvOK(); v != 0 || ok {
				t.Errorf("again: RecvOK = %d, %v; want 0, false", v, ok)
			}
		}
	}},
	{name: "close/full buffer then close", body: func(t *schedtest.T) {
		c := chans.Make[int](2)
		c.Send(10)
		c.Send(20)
		c.Close()
		for _, want := range []int{10, 20} {
			if v, ok := c.RecvOK(); v != want || !ok {
				t.Errorf("RecvOK = %d, %v; want %d, true", v, ok, want)
			}
		}
		if v, ok := c.RecvOK(); v != 0 || ok {
			t.Errorf("drained: RecvOK = %d, %v; want 0, false", v, ok)
		}
	}},
	{name: "RecvOK/true for a sent zero value", body: func(t *schedtest.T) {
		c := chans.Make[int](0)
		sched.Go(func() { c.Send(0) })
		if v, ok := c.RecvOK(); v != 0 || !ok {
			t.Errorf("RecvOK = %d, %v; want 0, true", v, ok)
		}
	}},
	{name: "All/ranges until close", body: func(t *schedtest.T) {
		c := chans.Make[int](1)
		sched.Go(func() {
			for i := 1; i <= 5; i++ {
				c.Send(i)
			}
			c.Close()
		})
		var got []int
		for v := range c.All() {
			got = append(got, v)
		}
		if !slices.Equal(got, []int{1, 2, 3, 4, 5}) {
			t.Errorf("range got %v, want [1 2 3 4 5]", got)
		}
	}},
	{name: "All/break leaves the rest in the channel", body: func(t *schedtest.T) {
		c := chans.Make[int](4)
		for i := range 4 {
			c.Send(i)
		}
		for v := range c.All() {
			if v == 1 {
				break
			}
		}
		if c.Len() != 2 {
			t.Errorf("after break at 1: Len = %d, want 2", c.Len())
		}
		if v := c.Recv(); v != 2 {
			t.Errorf("next value %d, want 2", v)
		}
	}},
	{name: "All/several consumers share the values", body: func(t *schedtest.T) {
		c := chans.Make[int](0)
		var mu sched.Mutex
		sum, n := 0, 0
		var wg sched.WaitGroup
		for range 3 {
			wg.Go(func() {
				for v := range c.All() {
					mu.Lock()
					sum += v
					n++
					mu.Unlock()
				}
			})
		}
		for i := 1; i <= 10; i++ {
			c.Send(i)
		}
		c.Close()
		wg.Wait()
		if sum != 55 || n != 10 {
			t.Errorf("consumers got %d values summing to %d; want 10 summing to 55", n, sum)
		}
	}},
	{name: "nil/send in body blocks forever", want: schedtest.Deadlock, wants: []string{"nil chan.Send"}, body: func(t *schedtest.T) {
		var c *chans.Chan[int]
		c.Send(1)
		t.Error("Send on a nil channel returned")
	}},
	{name: "nil/recv in body blocks forever", want: schedtest.Deadlock, wants: []string{"nil chan.Recv"}, body: func(t *schedtest.T) {
		var c *chans.Chan[int]
		c.Recv()
		t.Error("Recv on a nil channel returned")
	}},
	{name: "nil/RecvOK in goroutine leaks", want: schedtest.Leak, wants: []string{"nil chan.Recv"}, body: func(t *schedtest.T) {
		var c *chans.Chan[int]
		sched.Go(func() {
			c.RecvOK()
			t.Error("RecvOK on a nil channel returned")
		})
	}},
	{name: "nil/send in goroutine leaks", want: schedtest.Leak, wants: []string{"nil chan.Send"}, body: func(t *schedtest.T) {
		var c *chans.Chan[int]
		sched.Go(func() {
			c.Send(1)
			t.Error("Send on a nil channel returned")
		})
	}},
	{name: "nil/range over nil blocks forever", want: schedtest.Leak, wants: []string{"nil chan.Recv"}, body: func(t *schedtest.T) {
		var c *chans.Chan[int]
		sched.Go(func() {
			for range c.All() {
				t.Error("range over a nil channel produced a value")
			}
			t.Error("range over a nil channel ended")
		})
	}},
	{name: "unbuffered/send with no receiver leaks", want: schedtest.Leak, wants: []string{"chan int#1.Send"}, body: func(t *schedtest.T) {
		c := chans.Make[int](0)
		sched.Go(func() { c.Send(1) })
	}},
	{name: "buffered/send on full channel in body deadlocks", want: schedtest.Deadlock, wants: []string{"chan int#1.Send"}, body: func(t *schedtest.T) {
		c := chans.Make[int](1)
		c.Send(1)
		c.Send(2)
	}},
	{name: "panic/send on closed channel", body: func(t *schedtest.T) {
		c := chans.Make[int](1)
		c.Close()
		checkPanicLike(t, "Send after Close", func() { c.Send(1) }, func() {
			n := make(chan int, 1)
			close(n)
			n <- 1
		})
	}},
	{name: "panic/send on closed unbuffered channel", body: func(t *schedtest.T) {
		c := chans.Make[int](0)
		c.Close()
		checkPanicLike(t, "Send after Close", func() { c.Send(1) }, func() {
			n := make(chan int)
			close(n)
			n <- 1
		})
	}},
	{name: "panic/sender blocked when the channel is closed", body: func(t *schedtest.T) {
		c := chans.Make[int](0)
		var wg sched.WaitGroup
		for range 2 {
			wg.Go(func() {
				checkPanicLike(t, "blocked Send, then Close", func() { c.Send(1) }, func() {
					n := make(chan int)
					close(n)
					n <- 1
				})
			})
		}
		for range 3 {
			sched.Yield()
		}
		c.Close()
		wg.Wait()
	}},
	{name: "panic/sender blocked on a full buffer when closed", body: func(t *schedtest.T) {
		c := chans.Make[int](1)
		c.Send(1)
		var wg sched.WaitGroup
		wg.Go(func() {
			checkPanicLike(t, "blocked Send, then Close", func() { c.Send(2) }, func() {
				n := make(chan int)
				close(n)
				n <- 1
			})
		})
		sched.Yield()
		c.Close()
		wg.Wait()
		// The buffered value survives the close; the blocked one is not added.
		if v, ok := c.RecvOK(); v != 1 || !ok {
			t.Errorf("RecvOK = %d, %v; want 1, true", v, ok)
		}
		if v, ok := c.RecvOK(); v != 0 || ok {
			t.Errorf("RecvOK = %d, %v; want 0, false", v, ok)
		}
	}},
	{name: "panic/close of closed channel", body: func(t *schedtest.T) {
		c := chans.Make[int](0)
		c.Close()
		checkPanicLike(t, "Close twice", c.Close, func() {
			n := make(chan int)
			close(n)
			close(n)
		})
	}},
	{name: "panic/close of nil channel", body: func(t *schedtest.T) {
		var c *chans.Chan[int]
		checkPanicLike(t, "Close of nil", c.Close, func() {
			var n chan int
			close(n)
		})
	}},
	{name: "panic/select send case on closed channel", body: func(t *schedtest.T) {
		c := chans.Make[int](1)
		c.Close()
		checkPanicLike(t, "Select send after Close", func() { chans.Select(c.CaseSend(1)) }, func() {
			n := make(chan int, 1)
			close(n)
			select {
			case n <- 1:
			}
		})
		checkPanicLike(t, "Select send after Close, with default", func() { chans.Select(c.CaseSend(1), chans.Default()) }, func() {
			n := make(chan int, 1)
			close(n)
			select {
			case n <- 1:
			default:
			}
		})
	}},
	{name: "panic/select blocked on send when the channel is closed", body: func(t *schedtest.T) {
		c, d := chans.Make[int](0), chans.Make[int](0)
		var wg sched.WaitGroup
		wg.Go(func() {
			checkPanicLike(t, "blocked Select send, then Close", func() { chans.Select(c.CaseSend(1), d.CaseRecv(nil)) }, func() {
				n := make(chan int)
				close(n)
				n <- 1
			})
		})
		sched.Yield()
		c.Close()
		wg.Wait()
		// d is untouched: a send on it has no receiver.
		if chans.Select(d.CaseSend(1), chans.Default()) != 1 {
			t.Error("the panicked select's receive case on d is still waiting")
		}
	}},
	{name: "select/default when nothing is ready", body: func(t *schedtest.T) {
		u, full := chans.Make[int](0), chans.Make[int](1)
		full.Send(1)
		var v int
		if i := chans.Select(u.CaseRecv(&v), u.CaseSend(1), full.CaseSend(2), chans.Default()); i != 3 {
			t.Errorf("Select = %d, want 3 (default)", i)
		}
		if i := chans.Select(chans.Default(), u.CaseRecv(&v)); i != 0 {
			t.Errorf("Select = %d, want 0 (default first)", i)
		}
		if full.Len() != 1 {
			t.Errorf("Len = %d after default, want 1", full.Len())
		}
	}},
	{name: "select/ready case beats default", body: func(t *schedtest.T) {
		c := chans.Make[int](1)
		c.Send(4)
		var v int
		if i := chans.Select(chans.Default(), c.CaseRecv(&v)); i != 1 || v != 4 {
			t.Errorf("Select = %d with v = %d; want 1 with 4", i, v)
		}
		if i := chans.Select(c.CaseSend(5), chans.Default()); i != 0 {
			t.Errorf("Select = %d; want 0 (room in the buffer)", i)
		}
		if c.Recv() != 5 {
			t.Error("the select's send did not reach the buffer")
		}
	}},
	{name: "select/default with a blocked partner fires the case", body: func(t *schedtest.T) {
		c := chans.Make[int](0)
		var sent atomic.Bool
		sched.Go(func() { c.Send(9); sent.Store(true) })
		// Poll with default until the sender is parked.
		var v int
		for chans.Select(c.CaseRecv(&v), chans.Default()) == 1 {
		}
		if v != 9 {
			t.Errorf("v = %d, want 9", v)
		}
	}},
	{name: "select/send and receive cases", body: func(t *schedtest.T) {
		a, b := chans.Make[int](0), chans.Make[int](0)
		var wg sched.WaitGroup
		wg.Go(func() {
			if v := a.Recv(); v != 1 {
				t.Errorf("a received %d, want 1", v)
			}
		})
		wg.Go(func() { b.Send(2) })
		var fired [2]int
		for range 2 {
			var v int
			i := chans.Select(a.CaseSend(1), b.CaseRecv(&v))
			fired[i]++
			if i == 1 && v != 2 {
				t.Errorf("received %d from b, want 2", v)
			}
		}
		if fired != [2]int{1, 1} {
			t.Errorf("cases fired %v times, want once each", fired)
		}
		wg.Wait()
	}},
	{name: "select/CaseRecvOK on closed channel", body: func(t *schedtest.T) {
		c := chans.Make[int](1)
		c.Send(3)
		c.Close()
		v, ok := -1, false
		if i := chans.Select(c.CaseRecvOK(&v, &ok)); i != 0 || v != 3 || !ok {
			t.Errorf("Select = %d, v, ok = %d, %v; want 0, 3, true", i, v, ok)
		}
		v, ok = -1, true
		if i := chans.Select(c.CaseRecvOK(&v, &ok), chans.Default()); i != 0 || v != 0 || ok {
			t.Errorf("Select = %d, v, ok = %d, %v; want 0, 0, false", i, v, ok)
		}
	}},
	{name: "select/blocked select woken by close", body: func(t *schedtest.T) {
		a, b := chans.Make[int](0), chans.Make[int](0)
		var wg sched.WaitGroup
		wg.Go(func() {
			v, ok := -1, true
			w := -1
			i := chans.Select(a.CaseRecvOK(&v, &ok), b.CaseRecv(&w))
			if i != 0 || v != 0 || ok || w != -1 {
				t.Errorf("Select = %d, v, ok, w = %d, %v, %d; want 0, 0, false, -1", i, v, ok, w)
			}
		})
		sched.Yield()
		a.Close()
		wg.Wait()
		// b's stale case must not take a value now.
		if chans.Select(b.CaseSend(1), chans.Default()) != 1 {
			t.Error("a send on b found a receiver after the select returned")
		}
	}},
	{name: "select/blocked select receives the value", body: func(t *schedtest.T) {
		a, b := chans.Make[string](0), chans.Make[int](0)
		var wg sched.WaitGroup
		wg.Go(func() {
			var s string
			var n int
			ok := false
			switch chans.Select(a.CaseRecvOK(&s, &ok), b.CaseRecv(&n)) {
			case 0:
				if s != "x" || !ok {
					t.Errorf("a: %q, %v; want x, true", s, ok)
				}
			default:
				t.Error("b fired with no sender")
			}
		})
		a.Send("x")
		wg.Wait()
	}},
	{name: "select/a select that fired elsewhere leaves the other receivers' queue intact", body: func(t *schedtest.T) {
		// r2's select waits on a among plain receivers of a, and fires on
		// b: its waiter on a is stale, and must neither take a value nor
		// take another receiver's place. Run several times over, so that
		// waiters are reused.
		for round := range 3 {
			a, b := chans.Make[int](0), chans.Make[int](0)
			var got [3]int
			var wg sched.WaitGroup
			wg.Go(func() { got[0] = a.Recv() })
			wg.Go(func() {
				var x, y int
				if chans.Select(a.CaseRecv(&x), b.CaseRecv(&y)) != 1 || y != 100 {
					t.Errorf("round %d: the select fired on a (%d) before any send on a", round, x)
				}
				got[1] = y
			})
			wg.Go(func() { got[2] = a.Recv() })
			b.Send(100) // only the select receives from b
			a.Send(1)
			a.Send(2)
			wg.Wait()
			if got[1] != 100 || got[0]+got[2] != 3 || got[0]*got[2] != 2 {
				t.Errorf("round %d: receivers got %v, want the select 100 and the others 1 and 2", round, got)
			}
		}
	}},
	{name: "select/nil cases never fire", body: func(t *schedtest.T) {
		var n *chans.Chan[int]
		c := chans.Make[int](1)
		c.Send(5)
		var x, y int
		if i := chans.Select(n.CaseRecv(&x), n.CaseSend(1), c.CaseRecv(&y), n.CaseRecvOK(&x, nil)); i != 2 || y != 5 {
			t.Errorf("Select = %d, y = %d; want 2, 5", i, y)
		}
		if i := chans.Select(n.CaseRecv(&x), n.CaseSend(1), chans.Default()); i != 2 {
			t.Errorf("Select = %d; want 2 (default)", i)
		}
		sched.Go(func() { c.Send(6) })
		if i := chans.Select(n.CaseSend(1), c.CaseRecv(&y), n.CaseRecv(&x)); i != 1 || y != 6 {
			t.Errorf("blocking Select = %d, y = %d; want 1, 6", i, y)
		}
	}},
	{name: "select/only nil cases blocks forever", want: schedtest.Deadlock, wants: []string{"goroutine 1 (test body): blocked in "}, body: func(t *schedtest.T) {
		var n *chans.Chan[int]
		chans.Select(n.CaseRecv(nil), n.CaseSend(1))
		t.Error("Select over nil channels returned")
	}},
	{name: "select/no cases blocks forever", want: schedtest.Deadlock, wants: []string{"goroutine 1 (test body): blocked in "}, body: func(t *schedtest.T) {
		chans.Select()
		t.Error("empty Select returned")
	}},
	{name: "select/no cases in a goroutine leaks", want: schedtest.Leak, wants: []string{"goroutine 2: blocked in "}, body: func(t *schedtest.T) {
		sched.Go(func() {
			chans.Select()
			t.Error("empty Select returned")
		})
	}},
	{name: "select/nothing ready ever deadlocks", want: schedtest.Deadlock, wants: []string{"chan int#1", "chan int#2"}, body: func(t *schedtest.T) {
		a, b := chans.Make[int](0), chans.Make[int](0)
		chans.Select(a.CaseRecv(nil), b.CaseSend(1))
	}},
	{name: "select/same channel both directions does not pair with itself", body: func(t *schedtest.T) {
		c := chans.Make[int](0)
		if i := chans.Select(c.CaseSend(1), c.CaseRecv(nil), chans.Default()); i != 2 {
			t.Errorf("Select = %d, want 2 (default): a select cannot send to itself", i)
		}
		var wg sched.WaitGroup
		wg.Go(func() { c.Send(8) })
		var v int
		if i := chans.Select(c.CaseSend(1), c.CaseRecv(&v)); i != 1 || v != 8 {
			t.Errorf("Select = %d, v = %d; want 1, 8", i, v)
		}
		wg.Wait()
	}},
}

func TestConformance(t *testing.T) {
	for _, tc := range conformanceCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" {
				explorePass(t, schedules, tc.body)
				return
			}
			everyRunFails(t, 100, tc.want, tc.body, tc.wants...)
		})
	}
}

// A panic on a channel, not recovered, fails the run as a panic with Go's
// message.
func TestConformancePanicsFailTheRun(t *testing.T) {
	cases := []struct {
		name, msg string
		body      func(*schedtest.T)
	}{
		{"send on closed channel", "send on closed channel", func(t *schedtest.T) {
			c := chans.Make[int](1)
			c.Close()
			c.Send(1)
		}},
		{"blocked sender, then close", "send on closed channel", func(t *schedtest.T) {
			c := chans.Make[int](0)
			sched.Go(func() { c.Send(1) })
			sched.Yield()
			c.Close()
			sched.Yield()
			sched.Yield()
			for range 10 {
				sched.Yield()
			}
		}},
		{"close of closed channel", "close of closed channel", func(t *schedtest.T) {
			c := chans.Make[int](0)
			c.Close()
			c.Close()
		}},
		{"close of nil channel", "close of nil channel", func(t *schedtest.T) {
			var c *chans.Chan[int]
			c.Close()
		}},
		{"select send on closed channel", "send on closed channel", func(t *schedtest.T) {
			c := chans.Make[int](0)
			c.Close()
			chans.Select(c.CaseSend(1), chans.Default())
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			everyRunFails(t, 50, schedtest.Panic, tc.body, "panic in goroutine", tc.msg)
		})
	}
}

// Regression (found in review, fixed): inside a run, Len of a nil channel panics with "runtime error:
// invalid memory address or nil pointer dereference" (Chan.length takes
// &c.obj of the nil *Chan); Go's len of a nil channel is 0, as the shim's
// own Cap and its Len outside a run return.
func TestLenOfNilChannelInRun(t *testing.T) {
	explorePass(t, 20, func(t *schedtest.T) {
		var c *chans.Chan[int]
		if n := c.Len(); n != 0 {
			t.Errorf("Len of nil channel = %d, want 0", n)
		}
	})
}

// Make with a negative capacity panics inside a run as make does.
// Regression (found in review, fixed): see TestMakeNegativePanicsLikeGo: the value is a string, not a
// runtime.Error.
func TestMakeNegativeInRun(t *testing.T) {
	explorePass(t, 5, func(t *schedtest.T) {
		n := -1
		checkPanicLike(t, "Make(-1) in a run", func() { chans.Make[int](n) }, func() { _ = make(chan int, n) })
	})
}

// A buffer too large to allocate panics as make does, and a huge buffer of
// zero-size values is no buffer at all, as in Go.
// Regression (found in review, fixed): in a run, Make panicked with
// makeslice's message, and a channel of struct{} with a huge capacity
// allocated a byte per slot.
func TestMakeHugeInRun(t *testing.T) {
	explorePass(t, 2, func(t *schedtest.T) {
		n := 1 << 62
		checkPanicLike(t, "Make[int](1<<62) in a run", func() { chans.Make[int](n) }, func() { _ = make(chan int, n) })
		if engine.RaceEnabled {
			return // the race detector's edges take a byte per slot
		}
		c := chans.Make[struct{}](n)
		c.Send(struct{}{})
		if c.Len() != 1 || c.Cap() != n {
			t.Errorf("Len, Cap = %d, %d; want 1, %d", c.Len(), c.Cap(), n)
		}
	})
}
