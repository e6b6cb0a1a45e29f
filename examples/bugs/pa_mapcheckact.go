package bugs

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/dstgo/dst/sched"
	satomic "github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/schedtest"
)

// A connection pool dials a backend the first time it is asked for it. The
// buggy get looks the address up in one critical section and stores the new
// connection in another: two callers asking for the same address at once
// both miss, both dial, and one connection is silently overwritten (and
// leaked). The fixed twin checks and stores in one critical section.
type paConn struct{ addr string }

type paPool struct {
	mu    sched.Mutex
	conns map[string]*paConn
	dials satomic.Int32
}

func (p *paPool) dial(addr string) *paConn {
	p.dials.Add(1)
	return &paConn{addr: addr}
}

func (p *paPool) getBuggy(addr string) *paConn {
	p.mu.Lock()
	c, ok := p.conns[addr]
	p.mu.Unlock()
	if ok {
		return c
	}
	c = p.dial(addr)
	p.mu.Lock()
	p.conns[addr] = c
	p.mu.Unlock()
	return c
}

func (p *paPool) getFixed(addr string) *paConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.conns[addr]; ok {
		return c
	}
	c := p.dial(addr)
	p.conns[addr] = c
	return c
}

func init() {
	run := func(get func(*paPool, string) *paConn) func(*schedtest.T) {
		return func(t *schedtest.T) {
			p := &paPool{conns: map[string]*paConn{}}
			var wg sched.WaitGroup
			for range 2 {
				wg.Go(func() { get(p, "db:5432") })
			}
			wg.Wait()
			if n := p.dials.Load(); n != 1 {
				t.Errorf("dialed db:5432 %d times, want 1", n)
			}
		}
	}
	register(Pattern{
		Name:   "check-then-act-map",
		Class:  "non-blocking / atomicity violation (check-then-act)",
		Buggy:  run((*paPool).getBuggy),
		Fixed:  run((*paPool).getFixed),
		Expect: schedtest.TestFailed,
		Native: func() error {
			return runNative(func() error {
				var mu sync.Mutex
				conns := map[string]*paConn{}
				var dials atomic.Int32
				get := func(addr string) {
					mu.Lock()
					_, ok := conns[addr]
					mu.Unlock()
					if ok {
						return
					}
					dials.Add(1)
					mu.Lock()
					conns[addr] = &paConn{addr: addr}
					mu.Unlock()
				}
				var wg sync.WaitGroup
				for range 2 {
					wg.Go(func() { get("db:5432") })
				}
				wg.Wait()
				if n := dials.Load(); n != 1 {
					return fmt.Errorf("dialed db:5432 %d times, want 1", n)
				}
				return nil
			})
		},
	})
}
