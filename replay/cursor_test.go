package replay_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/dstgo/dst/replay"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestCursor(t *testing.T) {
	res, _ := schedtest.Explore(schedtest.Options{Seed: 1, Iterations: 300}, func(t *schedtest.T) {
		var a, b sched.Mutex
		var wg sched.WaitGroup
		wg.Go(func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
		wg.Go(func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
		wg.Wait()
	})
	if res.Failure == nil || res.Failure.Kind != schedtest.Deadlock {
		t.Fatal("no deadlock found")
	}
	file := filepath.Join(t.TempDir(), "d.trace")
	if err := res.WriteTrace(file); err != nil {
		t.Fatal(err)
	}
	c, err := replay.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Index() != -1 || c.Len() == 0 {
		t.Fatalf("index %d len %d", c.Index(), c.Len())
	}
	if err := c.Goto(c.Len() - 1); err != nil {
		t.Fatal(err)
	}
	blocked := 0
	for _, g := range c.Goroutines() {
		if g.State == "blocked" {
			blocked++
			if g.Loc.File == "" || (g.Obj == "" && g.Op != "Wait") {
				t.Errorf("blocked goroutine without location or object: %+v", g)
			}
		}
	}
	if blocked != 3 {
		t.Fatalf("at the end %d goroutines are blocked, want 3: %+v", blocked, c.Goroutines())
	}
	// Back to the start and forward again give the same states.
	end := c.Goroutines()
	for ok := true; ok; ok, err = c.Prev() {
		if err != nil {
			t.Fatal(err)
		}
	}
	if c.Index() != -1 || len(c.Goroutines()) != 1 {
		t.Fatalf("at the start: index %d, %+v", c.Index(), c.Goroutines())
	}
	for ok := true; ok; ok, err = c.Next() {
		if err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(c.Goroutines()) != fmt.Sprint(end) {
		t.Fatal("walking back and forth changed the states")
	}
	if err := c.Goto(-1); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.NextOf(2); !ok || err != nil {
		t.Fatal("NextOf(2)")
	}
	if e, _ := c.Event(); e.G != 2 {
		t.Fatalf("NextOf(2) stopped at goroutine %d", e.G)
	}
}
