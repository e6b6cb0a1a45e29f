package chans_test

import (
	"testing"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// These tests matter under -race: the scheduler's handoffs create no
// happens-before edges, so only the edges the channel shim reports order the
// plain memory accesses below. A missing edge is a race report, which fails
// the test. Without -race they check only the values.

func raceExplore(t *testing.T, body func(*schedtest.T)) {
	t.Helper()
	n := 200
	if !engine.RaceEnabled {
		n = 50
	}
	explorePass(t, n, body)
}

// A send happens before the matching receive completes.
func TestRaceSendBeforeRecv(t *testing.T) {
	for _, capacity := range []int{0, 1, 3} {
		raceExplore(t, func(t *schedtest.T) {
			c := chans.Make[*[4]int](capacity)
			sched.Go(func() {
				for i := range 5 {
					p := new([4]int)
					p[0], p[3] = i, i*i // written before Send
					c.Send(p)
				}
			})
			for i := range 5 {
				p := c.Recv()
				if p[0] != i || p[3] != i*i { // read after Recv
					t.Errorf("cap %d: got %v for value %d", capacity, *p, i)
				}
			}
		})
	}
}

// A receive from an unbuffered channel happens before the send completes.
func TestRaceUnbufferedRecvBeforeSendCompletes(t *testing.T) {
	raceExplore(t, func(t *schedtest.T) {
		c := chans.Make[int](0)
		data := 0
		sched.Go(func() {
			data = 1 // written before Recv
			c.Recv()
		})
		c.Send(0)
		if data != 1 { // read after Send
			t.Errorf("data = %d, want 1", data)
		}
	})
}

// The k-th receive from a channel of capacity C happens before the k+C-th
// send completes: a buffered channel of capacity 1 is a mutex.
func TestRaceBufferedChannelAsMutex(t *testing.T) {
	raceExplore(t, func(t *schedtest.T) {
		sem := chans.Make[struct{}](1)
		counter := 0
		var wg sched.WaitGroup
		for range 3 {
			wg.Go(func() {
				sem.Send(struct{}{})
				counter++
				sem.Recv()
			})
		}
		wg.Wait()
		if counter != 3 {
			t.Errorf("counter = %d, want 3", counter)
		}
	})
}

// A close happens before a receive that returns because of it.
func TestRaceCloseBeforeRecv(t *testing.T) {
	raceExplore(t, func(t *schedtest.T) {
		done := chans.Make[struct{}](0)
		data := 0
		sched.Go(func() {
			data = 5
			done.Close()
		})
		var wg sched.WaitGroup
		for range 2 {
			wg.Go(func() {
				done.Recv()
				if data != 5 {
					t.Errorf("data = %d, want 5", data)
				}
			})
		}
		for range done.All() {
		}
		if data != 5 {
			t.Errorf("data = %d, want 5", data)
		}
		wg.Wait()
	})
}

// The same edges hold through a select: receive cases, send cases, parked
// or not, and a select woken by close.
func TestRaceThroughSelect(t *testing.T) {
	for _, capacity := range []int{0, 1} {
		raceExplore(t, func(t *schedtest.T) {
			a, b := chans.Make[*int](capacity), chans.Make[*int](capacity)
			sched.Go(func() {
				x := new(int)
				*x = 1
				a.Send(x)
			})
			sched.Go(func() {
				y := new(int)
				*y = 2
				chans.Select(b.CaseSend(y))
			})
			for range 2 {
				var p, q *int
				switch chans.Select(a.CaseRecv(&p), b.CaseRecv(&q)) {
				case 0:
					if *p != 1 {
						t.Errorf("*p = %d", *p)
					}
				case 1:
					if *q != 2 {
						t.Errorf("*q = %d", *q)
					}
				}
			}
		})
	}
	// Send case of a select, received by a plain Recv; and the receiver's
	// write before an unbuffered Recv seen after the select's send.
	raceExplore(t, func(t *schedtest.T) {
		c, quit := chans.Make[*int](0), chans.Make[struct{}](0)
		data := 0
		sched.Go(func() {
			p := c.Recv()
			*p++
			data = 9
			c.Recv()
		})
		v := new(int)
		*v = 10
		chans.Select(c.CaseSend(v), quit.CaseRecv(nil))
		chans.Select(c.CaseSend(nil), quit.CaseRecv(nil))
		if data != 9 {
			t.Errorf("data = %d, want 9", data)
		}
	})
	// A select woken by close.
	raceExplore(t, func(t *schedtest.T) {
		a, done := chans.Make[int](0), chans.Make[struct{}](0)
		data := 0
		sched.Go(func() {
			data = 3
			done.Close()
		})
		if chans.Select(a.CaseRecv(nil), done.CaseRecv(nil)) != 1 {
			t.Error("a fired")
		}
		if data != 3 {
			t.Errorf("data = %d, want 3", data)
		}
	})
}

// A pipeline passing ownership of a slice through several stages.
func TestRacePipelineOwnership(t *testing.T) {
	raceExplore(t, func(t *schedtest.T) {
		in, mid, out := chans.Make[[]int](0), chans.Make[[]int](1), chans.Make[[]int](0)
		sched.Go(func() {
			for i := range 3 {
				in.Send([]int{i})
			}
			in.Close()
		})
		sched.Go(func() {
			for s := range in.All() {
				s[0] *= 10
				mid.Send(s)
			}
			mid.Close()
		})
		sched.Go(func() {
			for s := range mid.All() {
				s = append(s, s[0]+1)
				out.Send(s)
			}
			out.Close()
		})
		i := 0
		for s := range out.All() {
			if len(s) != 2 || s[0] != i*10 || s[1] != i*10+1 {
				t.Errorf("stage output %v for %d", s, i)
			}
			i++
		}
	})
}

// A select parked on a receive case with a destination, woken by close:
// the zero value and ok are stored into the select's variables by the
// closing goroutine, and the select's goroutine then reads them.
func TestRaceSelectWokenByCloseStoresResult(t *testing.T) {
	raceExplore(t, func(t *schedtest.T) {
		a, b := chans.Make[int](0), chans.Make[string](0)
		sched.Go(func() {
			sched.Yield()
			sched.Yield()
			a.Close()
		})
		v, ok := 7, true
		var s string
		switch chans.Select(a.CaseRecvOK(&v, &ok), b.CaseRecv(&s)) {
		case 0:
			if v != 0 || ok {
				t.Errorf("v, ok = %d, %v; want 0, false", v, ok)
			}
		default:
			t.Error("b fired")
		}
	})
}
