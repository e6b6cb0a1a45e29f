package chans_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// runs runs body under n schedules (successive seeds) and fails t on the
// first failing one.
func runs(t *testing.T, n int, body func(*schedtest.T)) {
	t.Helper()
	for i := range n {
		res, err := schedtest.Run(schedtest.Options{Seed: seed + uint64(i)}, body)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil {
			t.Fatalf("seed %#x failed:\n%s", res.Seed, res.Failure.Error())
		}
	}
}

// Deterministic outcomes: the shim under many schedules must give what Go
// gives.

func fifoNative() []int {
	c := make(chan int, 10)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 10 {
			c <- i * i
		}
		close(c)
	})
	wg.Wait()
	var got []int
	for v := range c {
		got = append(got, v)
	}
	return got
}

func fifoShim(t *schedtest.T) []int {
	c := chans.Make[int](10)
	var wg sched.WaitGroup
	wg.Go(func() {
		for i := range 10 {
			c.Send(i * i)
		}
		c.Close()
	})
	wg.Wait()
	var got []int
	for v := range c.All() {
		got = append(got, v)
	}
	return got
}

func TestDifferentialFIFO(t *testing.T) {
	want := fifoNative()
	runs(t, 200, func(st *schedtest.T) {
		if got := fifoShim(st); !slices.Equal(got, want) {
			st.Errorf("shim drained %v, Go drained %v", got, want)
		}
	})
}

// pipeline: generate 1..n, square, add one, sum; stage 2 runs with several
// workers.
func pipelineNative(n, workers int) (sum, count int) {
	gen, sq, inc := make(chan int), make(chan int, 2), make(chan int)
	go func() {
		for i := 1; i <= n; i++ {
			gen <- i
		}
		close(gen)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for v := range gen {
				sq <- v * v
			}
		})
	}
	go func() {
		wg.Wait()
		close(sq)
	}()
	go func() {
		for v := range sq {
			inc <- v + 1
		}
		close(inc)
	}()
	for v := range inc {
		sum += v
		count++
	}
	return sum, count
}

func pipelineShim(n, workers int) (sum, count int) {
	gen, sq, inc := chans.Make[int](0), chans.Make[int](2), chans.Make[int](0)
	sched.Go(func() {
		for i := 1; i <= n; i++ {
			gen.Send(i)
		}
		gen.Close()
	})
	var wg sched.WaitGroup
	for range workers {
		wg.Go(func() {
			for v := range gen.All() {
				sq.Send(v * v)
			}
		})
	}
	sched.Go(func() {
		wg.Wait()
		sq.Close()
	})
	sched.Go(func() {
		for v := range sq.All() {
			inc.Send(v + 1)
		}
		inc.Close()
	})
	for v := range inc.All() {
		sum += v
		count++
	}
	return sum, count
}

func TestDifferentialPipeline(t *testing.T) {
	for _, workers := range []int{1, 3} {
		wantSum, wantCount := pipelineNative(20, workers)
		if wantSum != 20*21*41/6+20 || wantCount != 20 {
			t.Fatalf("native pipeline: %d values summing to %d", wantCount, wantSum)
		}
		runs(t, 150, func(st *schedtest.T) {
			if sum, count := pipelineShim(20, workers); sum != wantSum || count != wantCount {
				st.Errorf("%d workers: shim got %d values summing to %d; Go got %d summing to %d",
					workers, count, sum, wantCount, wantSum)
			}
		})
	}
}

// closeRange: values buffered before a close are all ranged over, then
// receives report zero, false; Len after close is what is left.
type closeRangeOutcome struct {
	ranged     []int
	lenBefore  int
	after      int
	afterOK    bool
	capacity   int
	secondRecv int
}

func closeRangeNative() closeRangeOutcome {
	var o closeRangeOutcome
	c := make(chan int, 4)
	done := make(chan struct{})
	go func() {
		for i := 1; i <= 3; i++ {
			c <- i * 10
		}
		close(c)
		close(done)
	}()
	<-done
	o.lenBefore, o.capacity = len(c), cap(c)
	for v := range c {
		o.ranged = append(o.ranged, v)
	}
	o.after, o.afterOK = <-c
	o.secondRecv = <-c
	return o
}

func closeRangeShim() closeRangeOutcome {
	var o closeRangeOutcome
	c := chans.Make[int](4)
	done := chans.Make[struct{}](0)
	sched.Go(func() {
		for i := 1; i <= 3; i++ {
			c.Send(i * 10)
		}
		c.Close()
		done.Close()
	})
	done.Recv()
	o.lenBefore, o.capacity = c.Len(), c.Cap()
	for v := range c.All() {
		o.ranged = append(o.ranged, v)
	}
	o.after, o.afterOK = c.RecvOK()
	o.secondRecv = c.Recv()
	return o
}

func TestDifferentialCloseRange(t *testing.T) {
	want := closeRangeNative()
	runs(t, 200, func(st *schedtest.T) {
		got := closeRangeShim()
		if !slices.Equal(got.ranged, want.ranged) || got.lenBefore != want.lenBefore || got.after != want.after ||
			got.afterOK != want.afterOK || got.capacity != want.capacity || got.secondRecv != want.secondRecv {
			st.Errorf("shim %+v, Go %+v", got, want)
		}
	})
}

// Nondeterministic outcomes: the shim must produce every outcome Go can,
// and nothing else.

// With two ready receive cases, select chooses uniformly.
func TestDifferentialSelectUniform(t *testing.T) {
	const n = 1000
	var shim [2]int
	for i := range n {
		res, err := schedtest.Run(schedtest.Options{Seed: seed + uint64(i)}, func(st *schedtest.T) {
			a, b := chans.Make[int](1), chans.Make[int](1)
			a.Send(1)
			b.Send(2)
			var va, vb int
			k := chans.Select(a.CaseRecv(&va), b.CaseRecv(&vb))
			if (k == 0 && va != 1) || (k == 1 && vb != 2) {
				st.Errorf("case %d fired with va, vb = %d, %d", k, va, vb)
			}
			shim[k]++
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil {
			t.Fatal(res.Failure.Error())
		}
	}
	var native [2]int
	for range n {
		a, b := make(chan int, 1), make(chan int, 1)
		a <- 1
		b <- 2
		select {
		case <-a:
			native[0]++
		case <-b:
			native[1]++
		}
	}
	var outside [2]int // the shim outside a run (reflect.Select)
	for range n {
		a, b := chans.Make[int](1), chans.Make[int](1)
		a.Send(1)
		b.Send(2)
		outside[chans.Select(a.CaseRecv(nil), b.CaseRecv(nil))]++
	}
	for _, c := range []struct {
		name   string
		counts [2]int
	}{{"shim in a run", shim}, {"native", native}, {"shim outside a run", outside}} {
		for k, m := range c.counts {
			if m < 400 || m > 600 {
				t.Errorf("%s: case %d chosen %d times in %d; want near uniform (400..600): %v", c.name, k, m, n, c.counts)
			}
		}
	}
}

// A select blocked with two receive cases on one channel: in Go, which of
// the two the sender (or a close) serves is random, since the select joins
// the channel's queue in a random order; the shim must reach both.
// Regression (found in review, fixed): the shim joined in case order, so
// the first case always fired.
func TestDifferentialSelectDuplicateCasesBlocked(t *testing.T) {
	const n = 400
	for _, byClose := range []bool{false, true} {
		var shim, native [2]int
		for i := range n {
			res, err := schedtest.Run(schedtest.Options{Seed: seed + uint64(i)}, func(st *schedtest.T) {
				c, fired := chans.Make[int](0), chans.Make[int](1)
				sched.Go(func() { fired.Send(chans.Select(c.CaseRecv(nil), c.CaseRecv(nil))) })
				vtime.Sleep(time.Second) // the select is blocked by now
				if byClose {
					c.Close()
				} else {
					c.Send(1)
				}
				shim[fired.Recv()]++
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure != nil {
				t.Fatal(res.Failure.Error())
			}
		}
		for range n / 4 {
			c, fired := make(chan int), make(chan int, 1)
			go func() {
				select {
				case <-c:
					fired <- 0
				case <-c:
					fired <- 1
				}
			}()
			time.Sleep(100 * time.Microsecond)
			if byClose {
				close(c)
			} else {
				c <- 1
			}
			native[<-fired]++
		}
		t.Logf("close %v: shim %v in %d runs, native %v in %d", byClose, shim, n, native, n/4)
		if shim[0] < n/4 || shim[1] < n/4 {
			t.Errorf("close %v: the shim fired the cases %v times in %d runs; want each at least %d", byClose, shim, n, n/4)
		}
	}
}

// Three goroutines each send their id on an unbuffered channel; the order
// received is any permutation.
func TestDifferentialSendOrder(t *testing.T) {
	perms := map[[3]int]bool{
		{0, 1, 2}: true, {0, 2, 1}: true, {1, 0, 2}: true,
		{1, 2, 0}: true, {2, 0, 1}: true, {2, 1, 0}: true,
	}
	// Go: every outcome is a permutation (which ones show is up to the runtime).
	for range 200 {
		c := make(chan int)
		for id := range 3 {
			go func() { c <- id }()
		}
		got := [3]int{<-c, <-c, <-c}
		if !perms[got] {
			t.Fatalf("native: received %v, not a permutation", got)
		}
	}
	seen := map[[3]int]int{}
	for i := range 600 {
		res, err := schedtest.Run(schedtest.Options{Seed: seed + uint64(i)}, func(st *schedtest.T) {
			c := chans.Make[int](0)
			for id := range 3 {
				sched.Go(func() { c.Send(id) })
			}
			got := [3]int{c.Recv(), c.Recv(), c.Recv()}
			seen[got]++
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil {
			t.Fatal(res.Failure.Error())
		}
	}
	for p, n := range seen {
		if !perms[p] {
			t.Errorf("shim received %v (%d times), not a permutation", p, n)
		}
	}
	for p := range perms {
		if seen[p] == 0 {
			t.Errorf("permutation %v never observed in 600 schedules: %v", p, seen)
		}
	}
}
