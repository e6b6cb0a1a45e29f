package bugs

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A fetcher that pulls shards from a server that turns a request away while
// it is busy with another; each shard's goroutine retries until it gets
// through. The retry branch marks the goroutine done "because this attempt
// is over", on top of the deferred Done for the goroutine itself, so one
// busy reply takes the WaitGroup's counter one step too far: the last Done
// panics with "sync: negative WaitGroup counter" (or Wait returns early and
// the counter goes negative after it). The fixed twin calls Done once.
type wnServer struct {
	mu     sched.Mutex
	served []string
}

var errWNBusy = errors.New("server busy")

func (s *wnServer) fetch(shard string) error {
	if !s.mu.TryLock() {
		return errWNBusy
	}
	defer s.mu.Unlock()
	s.served = append(s.served, shard)
	return nil
}

func wnFetchAll(s *wnServer, shards []string, buggy bool) {
	var wg sched.WaitGroup
	for _, shard := range shards {
		wg.Add(1)
		sched.Go(func() {
			defer wg.Done()
			for {
				if err := s.fetch(shard); err == nil {
					return
				}
				if buggy {
					wg.Done() // this attempt is over; but the goroutine is not
				}
				sched.Yield()
			}
		})
	}
	wg.Wait()
}

func init() {
	run := func(buggy bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			s := &wnServer{}
			wnFetchAll(s, []string{"s1", "s2", "s3"}, buggy)
		}
	}
	register(Pattern{
		Name:   "waitgroup-negative",
		Class:  "non-blocking / WaitGroup misuse (Done called twice)",
		Buggy:  run(true),
		Fixed:  run(false),
		Expect: schedtest.Panic,
		Native: func() error {
			return runNative(func() error {
				var (
					mu     sync.Mutex
					served []string
				)
				fetch := func(shard string) error {
					if !mu.TryLock() {
						return errWNBusy
					}
					defer mu.Unlock()
					served = append(served, shard)
					runtime.Gosched() // the server takes a moment
					return nil
				}
				var wg sync.WaitGroup // the one under test
				var all sync.WaitGroup
				errs := make(chan error, 3)
				for _, shard := range []string{"s1", "s2", "s3"} {
					wg.Add(1)
					all.Add(1)
					go func() {
						defer all.Done()
						defer func() {
							if p := recover(); p != nil {
								errs <- fmt.Errorf("panic: %v", p)
							}
						}()
						defer wg.Done()
						for {
							if err := fetch(shard); err == nil {
								return
							}
							wg.Done()
							runtime.Gosched()
						}
					}()
				}
				wg.Wait()
				all.Wait()
				close(errs)
				return <-errs
			})
		},
	})
}
