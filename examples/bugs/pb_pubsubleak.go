package bugs

import (
	"runtime"
	"sync"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A pub/sub broker that gives each subscription an inbox the publisher
// never blocks on (a full inbox drops the message) and a forwarding
// goroutine that moves messages from the inbox to the subscriber's small
// output channel. A subscriber that has read enough unsubscribes and stops
// reading; the broker closes the inbox, but the forwarder may be blocked
// sending to the full output channel that nobody reads any more, and stays
// blocked forever. The fixed twin's forwarder also selects on the
// subscription's quit channel, which Unsubscribe closes.
type psSub struct {
	inbox, out *chans.Chan[string]
	quit       *chans.Chan[struct{}]
}

type psBroker struct {
	mu    sched.Mutex
	subs  map[int]*psSub
	next  int
	fixed bool
}

func (b *psBroker) subscribe() (int, *chans.Chan[string]) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := &psSub{inbox: chans.Make[string](4), out: chans.Make[string](1), quit: chans.Make[struct{}](0)}
	b.next++
	b.subs[b.next] = s
	sched.Go(func() { b.forward(s) })
	return b.next, s.out
}

func (b *psBroker) forward(s *psSub) {
	for msg := range s.inbox.All() {
		if !b.fixed {
			s.out.Send(msg) // blocks for good once the subscriber left
			continue
		}
		if chans.Select(s.out.CaseSend(msg), s.quit.CaseRecv(nil)) == 1 {
			return
		}
	}
}

func (b *psBroker) unsubscribe(id int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.subs[id]; ok {
		delete(b.subs, id)
		s.inbox.Close()
		s.quit.Close()
	}
}

func (b *psBroker) publish(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		chans.Select(s.inbox.CaseSend(msg), chans.Default()) // drop if full
	}
}

func init() {
	run := func(fixed bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			b := &psBroker{subs: map[int]*psSub{}, fixed: fixed}
			id, out := b.subscribe()
			var wg sched.WaitGroup
			wg.Go(func() { // wants the first price only
				if msg := out.Recv(); msg == "" {
					t.Errorf("empty message")
				}
				b.unsubscribe(id)
			})
			wg.Go(func() {
				for _, p := range []string{"101.5", "101.7", "101.2"} {
					b.publish(p)
				}
			})
			wg.Wait()
		}
	}
	register(Pattern{
		Name:   "unsubscribe-leak",
		Class:  "communication deadlock / channel",
		Buggy:  run(false),
		Fixed:  run(true),
		Expect: schedtest.Leak,
		Native: func() error {
			n := runtime.NumGoroutine()
			err := runNative(func() error {
				var mu sync.Mutex
				inbox, out := make(chan string, 4), make(chan string, 1)
				subscribed := true
				go func() {
					for msg := range inbox {
						out <- msg
					}
				}()
				var wg sync.WaitGroup
				wg.Add(2)
				go func() {
					defer wg.Done()
					<-out
					mu.Lock()
					subscribed = false
					close(inbox)
					mu.Unlock()
				}()
				go func() {
					defer wg.Done()
					for _, p := range []string{"101.5", "101.7", "101.2"} {
						mu.Lock()
						if subscribed {
							select {
							case inbox <- p:
							default:
							}
						}
						mu.Unlock()
					}
				}()
				wg.Wait()
				return nil
			})
			if err != nil {
				return err
			}
			return waitLeaks(n)
		},
	})
}
