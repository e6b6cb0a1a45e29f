package bugs

import (
	"runtime"
	"sync"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// A cache refreshes its entries in the background, on a ticker. Its Close
// forgets the refresher: the ticker is never stopped and the goroutine is
// never told to exit, so it keeps running after the cache is gone.
// The fixed twin's Close stops the ticker and closes a quit channel that the
// refresher selects on, and waits for it to exit.
type paRefreshCache struct {
	mu      sched.Mutex
	version int
	ticker  *vtime.Ticker
	quit    *chans.Chan[struct{}]
	exited  *chans.Chan[struct{}]
}

func (c *paRefreshCache) refresh() {
	c.mu.Lock()
	c.version++
	c.mu.Unlock()
}

func paOpenCache(stoppable bool) *paRefreshCache {
	c := &paRefreshCache{ticker: vtime.NewTicker(time.Second)}
	if !stoppable {
		sched.Go(func() {
			for range c.ticker.C.All() {
				c.refresh()
			}
		})
		return c
	}
	c.quit, c.exited = chans.Make[struct{}](0), chans.Make[struct{}](0)
	sched.Go(func() {
		defer c.exited.Close()
		for {
			if chans.Select(c.ticker.C.CaseRecv(nil), c.quit.CaseRecv(nil)) == 1 {
				return
			}
			c.refresh()
		}
	})
	return c
}

func (c *paRefreshCache) Close() {
	if c.quit == nil {
		return // the buggy Close: the refresher is forgotten
	}
	c.ticker.Stop()
	c.quit.Close()
	c.exited.Recv()
}

func init() {
	run := func(stoppable bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			c := paOpenCache(stoppable)
			vtime.Sleep(3500 * time.Millisecond) // use the cache for a while
			c.mu.Lock()
			v := c.version
			c.mu.Unlock()
			if v < 2 {
				t.Errorf("refreshed %d times in 3.5s, want at least 2", v)
			}
			c.Close()
		}
	}
	register(Pattern{
		Name:  "ticker-goroutine-leak",
		Class: "communication deadlock / channel & timer (goroutine leak)",
		Buggy: run(false),
		Fixed: run(true),
		// After the body returns, the refresher is not blocked for good:
		// every virtual second its ticker fires and it runs again. Once it
		// has ticked a hundred times without exiting, it is reported as a
		// leak, still running on timers, as goleak would report it.
		Expect: schedtest.Leak,
		Native: func() error {
			n := runtime.NumGoroutine()
			var ticker *time.Ticker
			err := runNative(func() error {
				var mu sync.Mutex
				version := 0
				ticker = time.NewTicker(time.Millisecond)
				go func() {
					for range ticker.C {
						mu.Lock()
						version++
						mu.Unlock()
					}
				}()
				time.Sleep(2 * time.Millisecond)
				return nil // Close forgets the refresher
			})
			if err != nil {
				return err
			}
			err = waitLeaks(n)
			// Not part of the bug: stop the ticker so that the leaked
			// goroutine, blocked on it for good, costs no CPU.
			ticker.Stop()
			return err
		},
	})
}
