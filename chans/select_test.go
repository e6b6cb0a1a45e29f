package chans_test

import (
	"testing"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/schedtest"
)

// selectOneOfTwo parks (in some schedules) one receiver in a select over
// two unbuffered channels a and b, with one sender on each. Exactly one
// send completes with the select; the other sender stays blocked until
// someone else receives its value, which the body does when receiveOther.
// fired counts, across runs, which case fired.
func selectOneOfTwo(receiveOther bool, fired *[2]int) func(*schedtest.T) {
	return func(t *schedtest.T) {
		a, b := chans.Make[int](0), chans.Make[int](0)
		var doneA, doneB atomic.Bool
		sched.Go(func() {
			a.Send(1)
			doneA.Store(true)
		})
		sched.Go(func() {
			b.Send(2)
			doneB.Store(true)
		})
		for range t.Entropy().Choice(3) {
			sched.Yield() // let the senders park first in some schedules
		}
		va, vb := -1, -1
		i := chans.Select(a.CaseRecv(&va), b.CaseRecv(&vb))
		fired[i]++
		other, otherDone := b, &doneB
		switch i {
		case 0:
			if va != 1 || vb != -1 {
				t.Errorf("case a fired with va, vb = %d, %d; want 1, -1", va, vb)
			}
		case 1:
			if vb != 2 || va != -1 {
				t.Errorf("case b fired with va, vb = %d, %d; want -1, 2", va, vb)
			}
			other, otherDone = a, &doneA
		}
		for range 8 {
			sched.Yield()
			if otherDone.Load() {
				t.Fatalf("both sends completed with a single select receiving (case %d fired)", i)
			}
		}
		if receiveOther {
			want := 2 - i // a sends 1, b sends 2
			if v := other.Recv(); v != want {
				t.Errorf("the other sender's value is %d, want %d", v, want)
			}
		}
	}
}

func TestSelectOneOfTwoSenders(t *testing.T) {
	var fired [2]int
	explorePass(t, 500, selectOneOfTwo(true, &fired))
	if fired[0] == 0 || fired[1] == 0 {
		t.Errorf("over 500 schedules case a fired %d times and case b %d: want both", fired[0], fired[1])
	}
}

func TestSelectOneOfTwoSendersLeaksOther(t *testing.T) {
	var fired [2]int
	// Every schedule leaks the sender whose case did not fire, blocked in Send.
	everyRunFails(t, 300, schedtest.Leak, selectOneOfTwo(false, &fired),
		"leak: the test body returned but 1 goroutine(s) are blocked forever", ".Send\n      at select_test.go:")
	if fired[0] == 0 || fired[1] == 0 {
		t.Errorf("case a fired %d times and case b %d: want both", fired[0], fired[1])
	}
}

// Two selects, each over the same two unbuffered channels, and one sender
// on each: each sender pairs with exactly one select, so both selects return
// and every value is received exactly once.
func TestTwoSelectsTwoSenders(t *testing.T) {
	explorePass(t, 400, func(t *schedtest.T) {
		a, b := chans.Make[int](0), chans.Make[int](0)
		got := chans.Make[int](2)
		for range 2 {
			sched.Go(func() {
				var v int
				chans.Select(a.CaseRecv(&v), b.CaseRecv(&v))
				got.Send(v)
			})
		}
		sched.Go(func() { a.Send(1) })
		sched.Go(func() { b.Send(2) })
		x, y := got.Recv(), got.Recv()
		if x+y != 3 || x == y {
			t.Errorf("selects received %d and %d; want 1 and 2", x, y)
		}
	})
}

// A select parked on a send case and a receive case of unbuffered channels:
// once one partner completes it, the other partner must not.
func TestSelectSendAndRecvOnlyOneFires(t *testing.T) {
	explorePass(t, 400, func(t *schedtest.T) {
		in, out := chans.Make[int](0), chans.Make[int](0)
		var recvd, sent atomic.Bool
		sched.Go(func() {
			out.Recv()
			recvd.Store(true)
		})
		sched.Go(func() {
			in.Send(5)
			sent.Store(true)
		})
		var v int
		i := chans.Select(out.CaseSend(1), in.CaseRecv(&v))
		for range 6 {
			sched.Yield()
		}
		switch i {
		case 0:
			if sent.Load() {
				t.Fatal("send case fired, yet the sender on in completed too")
			}
			in.Recv()
		case 1:
			if v != 5 {
				t.Errorf("v = %d, want 5", v)
			}
			if recvd.Load() {
				t.Fatal("receive case fired, yet the receiver on out completed too")
			}
			out.Send(0)
		}
	})
}

// TestSelectReadyAllocatesNothing checks that a select whose case is ready
// allocates nothing under the scheduler, as Go's select does not: cases are
// values, and the ready list lives on the stack. A blocked select allocates
// its selection and one waiter per case.
func TestSelectReadyAllocatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("measures allocations")
	}
	var allocs float64
	_, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		ch, other := chans.Make[int](1), chans.Make[string](0)
		var v int
		var s string
		allocs = testing.AllocsPerRun(200, func() {
			ch.Send(7)
			if chans.Select(other.CaseRecv(&s), ch.CaseRecv(&v), chans.Default()) != 1 || v != 7 {
				st.Error("the ready case did not fire")
			}
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("a ready select allocated %.1f times per call, want 0", allocs)
	}
}
