package bugs

import (
	"sync"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A cache whose Get calls a helper that locks the same mutex again on a
// miss (the double locking that makes most resource deadlocks in the
// studies). The fixed twin releases the lock before filling the cache.
type dlCache struct {
	mu   sched.Mutex
	data map[string]int
}

func (c *dlCache) fill(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.data[k] = len(k)
}

func (c *dlCache) getBuggy(k string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.data[k]; ok {
		return v
	}
	c.fill(k) // locks c.mu again
	return c.data[k]
}

func (c *dlCache) getFixed(k string) int {
	c.mu.Lock()
	v, ok := c.data[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	c.fill(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.data[k]
}

func init() {
	run := func(get func(*dlCache, string) int) func(*schedtest.T) {
		return func(t *schedtest.T) {
			c := &dlCache{data: map[string]int{"warm": 4}}
			var wg sched.WaitGroup
			for _, k := range []string{"warm", "cold"} {
				wg.Go(func() { get(c, k) })
			}
			wg.Wait()
		}
	}
	register(Pattern{
		Name:   "double-lock",
		Class:  "resource deadlock / double locking",
		Buggy:  run((*dlCache).getBuggy),
		Fixed:  run((*dlCache).getFixed),
		Expect: schedtest.Deadlock,
		Native: func() error {
			return runNative(func() error {
				var mu sync.Mutex
				data := map[string]int{"warm": 4}
				get := func(k string) {
					mu.Lock()
					defer mu.Unlock()
					if _, ok := data[k]; !ok {
						mu.Lock() // the same mutex again
						data[k] = len(k)
						mu.Unlock()
					}
				}
				var wg sync.WaitGroup
				for _, k := range []string{"warm", "cold"} {
					wg.Add(1)
					go func() { defer wg.Done(); get(k) }()
				}
				wg.Wait()
				return nil
			})
		},
	})
}
