package chans_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
)

// Outside a run the API is Go's channels.

func TestNativeUnbufferedAcrossGoroutines(t *testing.T) {
	c := chans.Make[int](0)
	if c.Cap() != 0 || c.Len() != 0 {
		t.Errorf("Cap, Len = %d, %d; want 0, 0", c.Cap(), c.Len())
	}
	data := 0
	var wg sync.WaitGroup
	wg.Go(func() {
		data = 42 // published by the send
		c.Send(1)
	})
	if v := c.Recv(); v != 1 {
		t.Errorf("Recv = %d, want 1", v)
	}
	if data != 42 {
		t.Errorf("data = %d, want 42", data)
	}
	wg.Wait()
}

func TestNativeBufferedFIFOCloseRange(t *testing.T) {
	c := chans.Make[int](3)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 10 {
			c.Send(i)
		}
		c.Close()
	})
	var got []int
	for v := range c.All() {
		got = append(got, v)
	}
	wg.Wait()
	if !slices.Equal(got, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("range got %v", got)
	}
	if v, ok := c.RecvOK(); v != 0 || ok {
		t.Errorf("RecvOK after close = %d, %v; want 0, false", v, ok)
	}
	if c.Recv() != 0 {
		t.Error("Recv after close is not the zero value")
	}
}

func TestNativeLenCap(t *testing.T) {
	c := chans.Make[string](2)
	c.Send("a")
	if c.Len() != 1 || c.Cap() != 2 {
		t.Errorf("Len, Cap = %d, %d; want 1, 2", c.Len(), c.Cap())
	}
	var n *chans.Chan[string]
	if n.Len() != 0 || n.Cap() != 0 {
		t.Errorf("nil: Len, Cap = %d, %d; want 0, 0", n.Len(), n.Cap())
	}
}

func TestNativeSelect(t *testing.T) {
	a, b := chans.Make[int](1), chans.Make[string](0)
	var n *chans.Chan[int]
	var v int
	var s string
	if i := chans.Select(a.CaseRecv(&v), b.CaseRecv(&s), n.CaseRecv(&v), chans.Default()); i != 3 {
		t.Errorf("nothing ready: Select = %d, want 3 (default)", i)
	}
	if i := chans.Select(a.CaseSend(7), n.CaseSend(1)); i != 0 {
		t.Errorf("room in a: Select = %d, want 0", i)
	}
	if i := chans.Select(n.CaseRecv(&v), a.CaseRecv(&v)); i != 1 || v != 7 {
		t.Errorf("Select = %d, v = %d; want 1, 7", i, v)
	}
	// A blocking select woken by another goroutine's send.
	var wg sync.WaitGroup
	wg.Go(func() {
		time.Sleep(time.Millisecond)
		b.Send("hi")
	})
	if i := chans.Select(a.CaseRecv(&v), b.CaseRecv(&s)); i != 1 || s != "hi" {
		t.Errorf("Select = %d, s = %q; want 1, hi", i, s)
	}
	wg.Wait()
	// A blocking send case taken by another goroutine's receive.
	wg.Go(func() {
		if got := b.Recv(); got != "yo" {
			t.Errorf("b received %q, want yo", got)
		}
	})
	if i := chans.Select(b.CaseSend("yo")); i != 0 {
		t.Errorf("Select = %d, want 0", i)
	}
	wg.Wait()
	// CaseRecvOK on a closed channel.
	a.Send(3)
	a.Close()
	ok := false
	if i := chans.Select(a.CaseRecvOK(&v, &ok)); i != 0 || v != 3 || !ok {
		t.Errorf("buffered then closed: Select = %d, v, ok = %d, %v; want 0, 3, true", i, v, ok)
	}
	v, ok = -1, true
	if i := chans.Select(a.CaseRecvOK(&v, &ok)); i != 0 || v != 0 || ok {
		t.Errorf("closed: Select = %d, v, ok = %d, %v; want 0, 0, false", i, v, ok)
	}
}

func TestNativePanics(t *testing.T) {
	c := chans.Make[int](1)
	c.Close()
	checkPanicLike(t, "Send on closed", func() { c.Send(1) }, func() {
		n := make(chan int, 1)
		close(n)
		n <- 1
	})
	checkPanicLike(t, "Close of closed", c.Close, func() {
		n := make(chan int, 1)
		close(n)
		close(n)
	})
	checkPanicLike(t, "Select send on closed", func() { chans.Select(c.CaseSend(1), chans.Default()) }, func() {
		n := make(chan int, 1)
		close(n)
		select {
		case n <- 1:
		default:
		}
	})
}

// Regression (found in review, fixed): outside a run, Close of a nil *Chan panics with the string "close of
// nil channel"; Go's close(nil chan) panics with a runtime.Error whose
// Error() is "close of nil channel" (and inside a run the shim does panic
// with such an error). Code that recovers and type-asserts error or
// runtime.Error behaves differently in production.
func TestNativeCloseNilPanicsLikeGo(t *testing.T) {
	var c *chans.Chan[int]
	checkPanicLike(t, "Close of nil", c.Close, func() {
		var n chan int
		close(n)
	})
}

// Regression (found in review, fixed): Make with a negative capacity panics with the string "makechan: size
// out of range", inside and outside a run; Go's make(chan T, n) with a
// negative n panics with a runtime.Error whose Error() is "makechan: size
// out of range".
func TestMakeNegativePanicsLikeGo(t *testing.T) {
	n := -1
	checkPanicLike(t, "Make(-1)", func() { chans.Make[int](n) }, func() { _ = make(chan int, n) })
}

func TestNativeFromRecv(t *testing.T) {
	src := make(chan int, 2)
	src <- 1
	src <- 2
	close(src)
	c := chans.FromRecv[int](src)
	if c.Len() != 2 || c.Cap() != 2 {
		t.Errorf("Len, Cap = %d, %d; want 2, 2", c.Len(), c.Cap())
	}
	var v int
	if i := chans.Select(c.CaseRecv(&v)); i != 0 || v != 1 {
		t.Errorf("Select = %d, v = %d; want 0, 1", i, v)
	}
	if got := slices.Collect(c.All()); !slices.Equal(got, []int{2}) {
		t.Errorf("range got %v, want [2]", got)
	}
	for name, op := range map[string]func(){
		"Send":        func() { c.Send(1) },
		"Close":       func() { c.Close() },
		"Select send": func() { chans.Select(c.CaseSend(1), chans.Default()) },
	} {
		if msg, _, ok := panicOf(op); !ok {
			t.Errorf("%s on a receive-only channel did not panic", name)
		} else if msg == "" {
			t.Errorf("%s: empty panic", name)
		}
	}
}

// Correctly synchronized use across plain goroutines: a worker pool with
// results, a done channel closed to broadcast, and a mutex made of a
// buffered channel. Quiet under -race.
func TestNativeWorkerPool(t *testing.T) {
	jobs, results := chans.Make[int](4), chans.Make[int](4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for j := range jobs.All() {
				results.Send(j * 2)
			}
		})
	}
	go func() {
		wg.Wait()
		results.Close()
	}()
	go func() {
		for i := 1; i <= 100; i++ {
			jobs.Send(i)
		}
		jobs.Close()
	}()
	sum := 0
	for r := range results.All() {
		sum += r
	}
	if sum != 100*101 {
		t.Errorf("sum = %d, want %d", sum, 100*101)
	}

	sem := chans.Make[struct{}](1)
	counter := 0
	done := chans.Make[struct{}](0)
	var wg3 sync.WaitGroup
	for range 8 {
		wg3.Go(func() {
			var stop bool
			for !stop {
				switch chans.Select(sem.CaseSend(struct{}{}), done.CaseRecv(nil)) {
				case 0:
					counter++
					sem.Recv()
					stop = true
				case 1:
					stop = true
				}
			}
		})
	}
	wg3.Wait()
	done.Close()
	if counter != 8 {
		t.Errorf("counter = %d, want 8", counter)
	}
}
