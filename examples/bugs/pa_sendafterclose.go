package bugs

import (
	"fmt"
	"sync/atomic"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	satomic "github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/schedtest"
)

// A log shipper takes entries on a buffered channel and ships them from a
// background goroutine. On shutdown, Close marks the shipper closed and
// closes the channel; Log drops entries once the shipper is closed. But Log
// checks the flag and then sends, in two steps, so a Close between them
// makes Log send on a closed channel. The fixed twin checks the flag and
// sends under a read lock, and Close sets it and closes the channel under
// the write lock.
type paShipper struct {
	mu      sched.RWMutex
	closed  satomic.Bool
	entries *chans.Chan[string]
	flushed *chans.Chan[struct{}]
	shipped satomic.Int32
}

func paNewShipper() *paShipper {
	s := &paShipper{entries: chans.Make[string](8), flushed: chans.Make[struct{}](0)}
	sched.Go(func() {
		defer s.flushed.Close()
		for range s.entries.All() {
			s.shipped.Add(1) // ship the entry
		}
	})
	return s
}

func (s *paShipper) logBuggy(entry string) {
	if s.closed.Load() {
		return
	}
	s.entries.Send(entry)
}

func (s *paShipper) closeBuggy() {
	s.closed.Store(true)
	s.entries.Close()
	s.flushed.Recv()
}

func (s *paShipper) logFixed(entry string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed.Load() {
		return
	}
	s.entries.Send(entry)
}

func (s *paShipper) closeFixed() {
	s.mu.Lock()
	s.closed.Store(true)
	s.entries.Close()
	s.mu.Unlock()
	s.flushed.Recv()
}

func init() {
	run := func(log func(*paShipper, string), close func(*paShipper)) func(*schedtest.T) {
		return func(t *schedtest.T) {
			s := paNewShipper()
			var wg sched.WaitGroup
			wg.Go(func() {
				for _, e := range []string{"started", "listening", "request served"} {
					log(s, e)
				}
			})
			close(s) // shutdown, while the server may still be logging
			wg.Wait()
		}
	}
	register(Pattern{
		Name:   "send-after-shutdown",
		Class:  "non-blocking / channel misuse",
		Buggy:  run((*paShipper).logBuggy, (*paShipper).closeBuggy),
		Fixed:  run((*paShipper).logFixed, (*paShipper).closeFixed),
		Expect: schedtest.Panic,
		Native: func() error {
			return runNative(func() error {
				var closed atomic.Bool
				entries, flushed := make(chan string, 8), make(chan struct{})
				go func() {
					defer close(flushed)
					for range entries {
					}
				}()
				logged := make(chan error, 1)
				go func() {
					// A panic here would end the test binary: report it.
					defer func() {
						if p := recover(); p != nil {
							logged <- fmt.Errorf("panic: %v", p)
						}
						close(logged)
					}()
					for _, e := range []string{"started", "listening", "request served"} {
						if closed.Load() {
							continue
						}
						entries <- e
					}
				}()
				closed.Store(true)
				close(entries)
				<-flushed
				return <-logged
			})
		},
	})
}
