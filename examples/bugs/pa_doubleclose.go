package bugs

import (
	"fmt"
	"sync"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A server closes its done channel to tell its goroutines to stop, both from
// Stop and from the serve loop when a request fails fatally. The buggy
// shutdown checks whether done is already closed and then closes it, in two
// steps: when Stop and the failing serve loop check at the same time, both
// see it open and both close it. The fixed twin closes it inside a
// sync.Once.
type paServer struct {
	done     *chans.Chan[struct{}]
	once     sched.Once
	useOnce  bool
	requests *chans.Chan[string]
}

func (s *paServer) shutdown() {
	if s.useOnce {
		s.once.Do(s.done.Close)
		return
	}
	if chans.Select(s.done.CaseRecv(nil), chans.Default()) == 0 {
		return // already closed
	}
	s.done.Close()
}

func (s *paServer) serve() {
	for {
		var req string
		if chans.Select(s.requests.CaseRecv(&req), s.done.CaseRecv(nil)) == 1 {
			return
		}
		if req == "corrupt" {
			s.shutdown() // a fatal error: stop the server
			return
		}
	}
}

func init() {
	run := func(useOnce bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			s := &paServer{done: chans.Make[struct{}](0), requests: chans.Make[string](2), useOnce: useOnce}
			var wg sched.WaitGroup
			wg.Go(s.serve)
			s.requests.Send("get")
			s.requests.Send("corrupt")
			s.shutdown() // Stop
			wg.Wait()
		}
	}
	register(Pattern{
		Name:   "double-close",
		Class:  "non-blocking / channel misuse",
		Buggy:  run(false),
		Fixed:  run(true),
		Expect: schedtest.Panic,
		Native: func() error {
			return runNative(func() error {
				done, requests := make(chan struct{}), make(chan string, 2)
				shutdown := func() {
					select {
					case <-done:
						return
					default:
					}
					close(done)
				}
				var wg sync.WaitGroup
				served := make(chan error, 1)
				wg.Add(1)
				go func() {
					defer wg.Done()
					// A panic here would end the test binary: report it.
					defer func() {
						if p := recover(); p != nil {
							served <- fmt.Errorf("panic: %v", p)
						}
					}()
					for {
						select {
						case <-done:
							return
						case req := <-requests:
							if req == "corrupt" {
								shutdown()
								return
							}
						}
					}
				}()
				requests <- "get"
				requests <- "corrupt"
				shutdown() // a panic here is caught by runNative
				wg.Wait()
				select {
				case err := <-served:
					return err
				default:
					return nil
				}
			})
		},
	})
}
