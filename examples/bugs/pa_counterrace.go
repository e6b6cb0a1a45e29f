package bugs

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/dstgo/dst/sched"
	satomic "github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/schedtest"
)

// Request handlers count the requests they serve in a shared metric. Each
// access is atomic, but the increment is a Load followed by a Store: two
// handlers that load the same value both store value+1, and one request is
// lost from the count. The fixed twin increments with one atomic Add.
type paMetrics struct{ requests satomic.Int64 }

func (m *paMetrics) incBuggy() { m.requests.Store(m.requests.Load() + 1) }
func (m *paMetrics) incFixed() { m.requests.Add(1) }

func init() {
	const handlers, perHandler = 3, 2
	run := func(inc func(*paMetrics)) func(*schedtest.T) {
		return func(t *schedtest.T) {
			var m paMetrics
			var wg sched.WaitGroup
			for range handlers {
				wg.Go(func() {
					for range perHandler {
						inc(&m) // serve one request
					}
				})
			}
			wg.Wait()
			if got := m.requests.Load(); got != handlers*perHandler {
				t.Errorf("counted %d requests, want %d", got, handlers*perHandler)
			}
		}
	}
	register(Pattern{
		Name:   "counter-lost-update",
		Class:  "non-blocking / data race (lost update)",
		Buggy:  run((*paMetrics).incBuggy),
		Fixed:  run((*paMetrics).incFixed),
		Expect: schedtest.TestFailed,
		Native: func() error {
			return runNative(func() error {
				var requests atomic.Int64
				var wg sync.WaitGroup
				for range handlers {
					wg.Go(func() {
						for range perHandler {
							requests.Store(requests.Load() + 1)
						}
					})
				}
				wg.Wait()
				if got := requests.Load(); got != handlers*perHandler {
					return fmt.Errorf("counted %d requests, want %d", got, handlers*perHandler)
				}
				return nil
			})
		},
	})
}
