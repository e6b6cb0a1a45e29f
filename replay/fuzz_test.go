package replay_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dstgo/dst/replay"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// cursorSeeds are real traces of failing runs (a deadlock, a panic), whole
// and cut short, and with a byte of their last frame flipped.
func cursorSeeds(t testing.TB) map[string][]byte {
	bodies := map[string]func(*schedtest.T){
		"deadlock": func(*schedtest.T) {
			var a, b sched.Mutex
			var wg sched.WaitGroup
			wg.Go(func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
			wg.Go(func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
			wg.Wait()
		},
		"panic": func(*schedtest.T) {
			var mu sched.Mutex
			n := 0
			var wg sched.WaitGroup
			for range 3 {
				wg.Go(func() { mu.Lock(); n++; mu.Unlock(); sched.Yield() })
			}
			wg.Wait()
			if n == 3 {
				panic("three")
			}
		},
	}
	seeds := map[string][]byte{}
	dir := t.TempDir()
	for name, body := range bodies {
		res, _ := schedtest.Explore(schedtest.Options{Seed: 1, Iterations: 300}, body)
		if res.Failure == nil {
			t.Fatalf("%s: no failure found", name)
		}
		file := filepath.Join(dir, name+".trace")
		if err := res.WriteTrace(file); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		seeds[name] = b
		seeds[name+"-cut"] = b[:len(b)*2/3]
		flipped := bytes.Clone(b)
		flipped[len(flipped)/2] ^= 0x40
		seeds[name+"-flipped"] = flipped
	}
	return seeds
}

// FuzzCursor opens arbitrary bytes as a trace and walks a cursor over
// them: whatever the input, the cursor errs or works, never panics or
// hangs, and walking back to an event gives the states walking forward
// gave. .ci/run runs it for a bounded time.
func FuzzCursor(f *testing.F) {
	for _, b := range cursorSeeds(f) {
		f.Add(b)
	}
	file := filepath.Join(f.TempDir(), "in.trace")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := replay.Open(file)
		if err != nil {
			return
		}
		defer c.Close()
		// Bound the walk: a crafted trace may claim millions of events.
		n := min(c.Len(), 512)
		var forward []string
		for i := range n {
			if err := c.Goto(i); err != nil {
				return // a damaged frame: reported, not a crash
			}
			forward = append(forward, fmt.Sprint(c.Goroutines()))
			if _, err := c.IsPreemption(i); err != nil {
				t.Fatalf("IsPreemption(%d) failed after Goto(%d) succeeded: %v", i, i, err)
			}
		}
		for i := n - 1; i >= 0; i-- {
			if err := c.Goto(i); err != nil {
				t.Fatalf("Goto(%d) back failed after it succeeded forward: %v", i, err)
			}
			if got := fmt.Sprint(c.Goroutines()); got != forward[i] {
				t.Fatalf("event %d: walking back gives %s, walking forward gave %s", i, got, forward[i])
			}
		}
		if n > 0 {
			e, _ := c.Peek(n - 1)
			c.GotoStep(e.Step)
			c.NextOf(e.G)
			c.PrevOf(e.G)
			c.Goto(-1)
		}
		if err := c.Goto(c.Len()); err == nil {
			t.Fatalf("Goto(Len()=%d) succeeded", c.Len())
		}
	})
}
