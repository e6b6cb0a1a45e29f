package bugs

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// A client of a counter service that retries a request whose reply did not
// come within its timeout. But "increment" is not idempotent, and a timeout
// is ambiguous: the server may have applied the write and been slow to
// answer. A retry after such a timeout applies the increment twice. The
// fault point "counter.reply.slow" delays the server's reply past the
// client's timeout, after the write. The fixed twin sends a request id with
// every attempt and the server applies each id once.
type rbRequest struct {
	id    string
	delta int
	reply *chans.Chan[int]
}

type rbServer struct {
	requests *chans.Chan[rbRequest]
	value    int
	applied  map[string]int // the fixed twin's record of ids
	dedupe   bool
}

func (s *rbServer) serve() {
	for req := range s.requests.All() {
		v, seen := s.applied[req.id]
		if !seen || !s.dedupe {
			s.value += req.delta
			v = s.value
			s.applied[req.id] = v
		}
		if sched.Fault("counter.reply.slow") {
			vtime.Sleep(time.Second) // the write is done; the reply is late
		}
		req.reply.Send(v) // buffered: a late reply nobody reads is dropped
	}
}

var errRBTimeout = errors.New("counter: request timed out")

// add sends one increment, retrying up to three times on timeout.
func rbAdd(requests *chans.Chan[rbRequest], id string, delta int) (int, error) {
	for range 3 {
		req := rbRequest{id: id, delta: delta, reply: chans.Make[int](1)}
		requests.Send(req)
		timeout := vtime.NewTimer(100 * time.Millisecond)
		var v int
		switch chans.Select(req.reply.CaseRecv(&v), timeout.C.CaseRecv(nil)) {
		case 0:
			timeout.Stop()
			return v, nil
		case 1:
			continue // try again at once
		}
	}
	return 0, errRBTimeout
}

func init() {
	run := func(dedupe bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			s := &rbServer{requests: chans.Make[rbRequest](4), applied: map[string]int{}, dedupe: dedupe}
			done := chans.Make[struct{}](0)
			sched.Go(func() { s.serve(); done.Close() })
			var wg sched.WaitGroup
			for _, id := range []string{"order-1", "order-2"} {
				wg.Go(func() { rbAdd(s.requests, id, 1) })
			}
			wg.Wait()
			s.requests.Close()
			done.Recv()
			if s.value != 2 {
				t.Errorf("two increments left the counter at %d", s.value)
			}
		}
	}
	register(Pattern{
		Name:    "timeout-ambiguous-write",
		Class:   "non-blocking / retry of a non-idempotent operation after a timeout",
		Buggy:   run(false),
		Fixed:   run(true),
		Expect:  schedtest.TestFailed,
		Options: schedtest.Options{Faults: map[string]float64{"counter.reply.slow": 0.2}},
		// Natively no fault is injected: the client's timeout fires only
		// when the machine happens to stall the server for a millisecond.
		Native: func() error {
			return runNative(func() error {
				type request struct {
					delta int
					reply chan int
				}
				requests := make(chan request, 4)
				var value int
				done := make(chan struct{})
				go func() {
					defer close(done)
					for req := range requests {
						value += req.delta
						req.reply <- value
					}
				}()
				add := func(delta int) {
					for range 3 {
						req := request{delta: delta, reply: make(chan int, 1)}
						requests <- req
						select {
						case <-req.reply:
							return
						case <-time.After(time.Millisecond):
						}
					}
				}
				var wg sync.WaitGroup
				for range 2 {
					wg.Add(1)
					go func() { defer wg.Done(); add(1) }()
				}
				wg.Wait()
				close(requests)
				<-done
				if value != 2 {
					return fmt.Errorf("two increments left the counter at %d", value)
				}
				return nil
			})
		},
	})
}
