package bugs

import (
	"fmt"
	"sync"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A server whose Start launches its accept loop and only then sets up the
// access log the loop writes to. The assignment is under the server's
// mutex, so there is no data race, only a wrong order: when the loop runs
// first it reads a nil log and the call through it dereferences nil. The
// fixed twin sets everything up before starting the loop.
type ovLog struct {
	mu    sched.Mutex
	lines []string
}

func (l *ovLog) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

type ovServer struct {
	mu   sched.Mutex
	log  *ovLog
	done sched.WaitGroup
}

func (s *ovServer) serve(conns []string) {
	defer s.done.Done()
	for _, c := range conns {
		s.mu.Lock()
		log := s.log
		s.mu.Unlock()
		log.printf("accepted %s", c) // nil when Start has not set it yet
	}
}

func (s *ovServer) startBuggy(conns []string) {
	s.done.Add(1)
	sched.Go(func() { s.serve(conns) })
	s.mu.Lock()
	s.log = &ovLog{}
	s.mu.Unlock()
}

func (s *ovServer) startFixed(conns []string) {
	s.mu.Lock()
	s.log = &ovLog{}
	s.mu.Unlock()
	s.done.Add(1)
	sched.Go(func() { s.serve(conns) })
}

func init() {
	run := func(start func(*ovServer, []string)) func(*schedtest.T) {
		return func(t *schedtest.T) {
			s := &ovServer{}
			start(s, []string{"10.0.0.1:5000"})
			s.done.Wait()
		}
	}
	register(Pattern{
		Name:   "order-violation",
		Class:  "non-blocking / order violation",
		Buggy:  run((*ovServer).startBuggy),
		Fixed:  run((*ovServer).startFixed),
		Expect: schedtest.Panic,
		Native: func() error {
			return runNative(func() error {
				type logT struct {
					mu    sync.Mutex
					lines []string
				}
				var (
					mu   sync.Mutex
					log  *logT
					done = make(chan error, 1)
				)
				go func() {
					defer func() {
						if p := recover(); p != nil {
							done <- fmt.Errorf("panic: %v", p)
						}
					}()
					mu.Lock()
					l := log
					mu.Unlock()
					l.mu.Lock()
					l.lines = append(l.lines, "accepted 10.0.0.1:5000")
					l.mu.Unlock()
					done <- nil
				}()
				mu.Lock()
				log = &logT{}
				mu.Unlock()
				return <-done
			})
		},
	})
}
