package replay_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/replay"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
	"github.com/dstgo/dst/vtime"
)

// preemptBody mixes what makes switches: locks, channels, a wait group,
// timers that wake goroutines while every other is blocked, yields.
func preemptBody(t *schedtest.T) {
	var mu sched.Mutex
	var wg sched.WaitGroup
	c := chans.Make[int](1)
	n := 0
	for i := range 3 {
		wg.Go(func() {
			for range 3 {
				mu.Lock()
				n++
				mu.Unlock()
				if i == 1 {
					vtime.Sleep(time.Millisecond)
				}
				sched.Yield()
			}
			c.Send(i)
			c.Recv()
		})
	}
	vtime.Sleep(2 * time.Millisecond)
	wg.Wait()
}

// The switches the trace says are preemptions are those the engine
// counted, one by one in order (Preemptions) and looked up alone
// (IsPreemption).
func TestPreemptionsAgreeWithTheEngine(t *testing.T) {
	seen := 0
	for seed := uint64(1); seed <= 40; seed++ {
		for _, strategy := range []string{"random", "pct"} {
			res, err := schedtest.Run(schedtest.Options{Seed: seed, Strategy: strategy, Record: true}, preemptBody)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "p.trace")
			if err := res.WriteTrace(path); err != nil {
				t.Fatal(err)
			}
			r, err := trace.OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var p replay.Preemptions
			inOrder, alone := 0, 0
			for i := range r.Len() {
				e, err := r.Event(i)
				if err != nil {
					t.Fatal(err)
				}
				ok, _ := p.Next(&e)
				if ok {
					inOrder++
				}
				ok2, _, err := replay.IsPreemption(r, i)
				if err != nil {
					t.Fatal(err)
				}
				if ok2 {
					alone++
				}
				if ok != ok2 {
					t.Errorf("seed %d %s: event %d: in order %v, alone %v", seed, strategy, i+1, ok, ok2)
				}
			}
			r.Close()
			if inOrder != res.Preemptions {
				t.Errorf("seed %d %s: the trace shows %d preemptions, the engine counted %d", seed, strategy, inOrder, res.Preemptions)
			}
			seen += res.Preemptions
		}
	}
	if seen == 0 {
		t.Fatal("no schedule preempted: the test checks nothing")
	}
}
