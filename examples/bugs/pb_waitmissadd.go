package bugs

import (
	"fmt"
	"sync"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// A server's graceful shutdown: wait for the requests in flight, give the
// load balancer a grace period to stop sending, then close the listener.
// The accept loop, still running during the grace period, calls Add for a
// connection that arrives then, after Shutdown's Wait has returned, so
// Shutdown returns with that request still being served. The fixed twin
// closes the listener and waits for the accept loop to exit before it
// waits for the requests in flight. (The timeline is on the virtual clock:
// the in-flight request ends at 10ms, Shutdown starts at 100ms, the late
// connection arrives at 102ms and the listener closes at 105ms. Go's race
// detector flags an Add from zero concurrent with a Wait that blocks; here
// Wait finds the counter at zero and returns, so only the result shows it.)
type wmServer struct {
	incoming *chans.Chan[int]
	quit     *chans.Chan[struct{}]
	acceptor *chans.Chan[struct{}] // closed when the accept loop exits
	inflight sched.WaitGroup
	mu       sched.Mutex
	active   map[int]bool
}

func newWMServer() *wmServer {
	return &wmServer{
		incoming: chans.Make[int](0),
		quit:     chans.Make[struct{}](0),
		acceptor: chans.Make[struct{}](0),
		active:   map[int]bool{},
	}
}

func (s *wmServer) acceptLoop() {
	defer s.acceptor.Close()
	for {
		var conn int
		if chans.Select(s.incoming.CaseRecv(&conn), s.quit.CaseRecv(nil)) == 1 {
			return
		}
		s.inflight.Add(1)
		s.mu.Lock()
		s.active[conn] = true
		s.mu.Unlock()
		sched.Go(func() { s.serve(conn) })
	}
}

func (s *wmServer) serve(conn int) {
	defer s.inflight.Done()
	vtime.Sleep(10 * time.Millisecond) // handle the request
	s.mu.Lock()
	delete(s.active, conn)
	s.mu.Unlock()
}

// dial connects at once, or is refused when the listener is closed.
func (s *wmServer) dial(conn int) bool {
	return chans.Select(s.incoming.CaseSend(conn), s.quit.CaseRecv(nil)) == 0
}

func (s *wmServer) shutdownBuggy() {
	s.inflight.Wait() // the accept loop may still Add
	vtime.Sleep(5 * time.Millisecond)
	s.quit.Close()
}

func (s *wmServer) shutdownFixed() {
	s.quit.Close()
	s.acceptor.Recv() // no Add after this
	s.inflight.Wait()
	vtime.Sleep(5 * time.Millisecond)
}

func init() {
	run := func(shutdown func(*wmServer)) func(*schedtest.T) {
		return func(t *schedtest.T) {
			s := newWMServer()
			sched.Go(s.acceptLoop)
			sched.Go(func() { s.dial(1) })
			sched.Go(func() {
				vtime.Sleep(102 * time.Millisecond)
				s.dial(2)
			})
			vtime.Sleep(100 * time.Millisecond)
			shutdown(s)
			s.mu.Lock()
			n := len(s.active)
			s.mu.Unlock()
			if n != 0 {
				t.Errorf("Shutdown returned with %d request(s) still being served", n)
			}
		}
	}
	register(Pattern{
		Name:   "wait-misses-add",
		Class:  "non-blocking / WaitGroup misuse (Add after Wait)",
		Buggy:  run((*wmServer).shutdownBuggy),
		Fixed:  run((*wmServer).shutdownFixed),
		Expect: schedtest.TestFailed,
		Native: func() error {
			return runNative(func() error {
				var (
					incoming = make(chan int)
					quit     = make(chan struct{})
					inflight sync.WaitGroup
					mu       sync.Mutex
					active   = map[int]bool{}
				)
				go func() {
					for {
						var conn int
						select {
						case conn = <-incoming:
						case <-quit:
							return
						}
						inflight.Add(1)
						mu.Lock()
						active[conn] = true
						mu.Unlock()
						go func() {
							defer inflight.Done()
							time.Sleep(2 * time.Millisecond)
							mu.Lock()
							delete(active, conn)
							mu.Unlock()
						}()
					}
				}()
				dial := func(conn int) {
					select {
					case incoming <- conn:
					case <-quit:
					}
				}
				go dial(1)
				go func() { time.Sleep(5 * time.Millisecond); dial(2) }()
				time.Sleep(4 * time.Millisecond)
				inflight.Wait()
				time.Sleep(2 * time.Millisecond)
				close(quit)
				mu.Lock()
				n := len(active)
				mu.Unlock()
				if n != 0 {
					return fmt.Errorf("Shutdown returned with %d request(s) still being served", n)
				}
				return nil
			})
		},
	})
}
