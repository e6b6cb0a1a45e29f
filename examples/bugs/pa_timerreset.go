package bugs

import (
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	satomic "github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// A connection closes itself after an idle period: a watchdog goroutine
// waits on an idle timer, and every use of the connection pushes the
// deadline back. The buggy touch uses the old idiom for resetting a timer,
// "if !t.Stop() { <-t.C }", to drain a value Stop could not cancel. But the
// watchdog receives from the same channel: when the timer fires and the
// watchdog takes the value just before touch runs, Stop returns false and
// touch waits for a value that will never come. It shows only when a
// request outlasts the idle period: request times vary, drawn from the
// run's entropy. The fixed twin relies on Reset alone (with Go 1.23 timers
// no stale value is left to drain) and reports a connection the watchdog
// already closed.
var errPaIdleClosed = errors.New("conn: closed after idle timeout")

type paIdleConn struct {
	idle   time.Duration
	timer  *vtime.Timer
	quit   *chans.Chan[struct{}]
	closed satomic.Bool
}

func paDialIdle(idle time.Duration) *paIdleConn {
	c := &paIdleConn{idle: idle, timer: vtime.NewTimer(idle), quit: chans.Make[struct{}](0)}
	sched.Go(func() { // the watchdog
		if chans.Select(c.timer.C.CaseRecv(nil), c.quit.CaseRecv(nil)) == 0 {
			c.closed.Store(true)
		}
	})
	return c
}

func (c *paIdleConn) touchBuggy() error {
	if !c.timer.Stop() {
		c.timer.C.Recv() // drain: but the watchdog may have taken the value
	}
	c.timer.Reset(c.idle)
	if c.closed.Load() {
		return errPaIdleClosed
	}
	return nil
}

func (c *paIdleConn) touchFixed() error {
	c.timer.Reset(c.idle)
	if c.closed.Load() {
		return errPaIdleClosed
	}
	return nil
}

func (c *paIdleConn) Close() {
	c.timer.Stop()
	c.quit.Close()
}

func init() {
	const idle = 30 * time.Second
	run := func(touch func(*paIdleConn) error) func(*schedtest.T) {
		return func(t *schedtest.T) {
			c := paDialIdle(idle)
			// A request on the connection, quick or slow.
			vtime.Sleep([]time.Duration{10, 25, 45}[t.Entropy().Choice(3)] * time.Second)
			if err := touch(c); err != nil {
				t.Logf("request after idle timeout: %v", err)
			}
			c.Close()
		}
	}
	register(Pattern{
		Name:   "timer-reset-misuse",
		Class:  "communication deadlock / channel & timer",
		Buggy:  run((*paIdleConn).touchBuggy),
		Fixed:  run((*paIdleConn).touchFixed),
		Expect: schedtest.Deadlock,
		Native: func() error {
			return runNative(func() error {
				const idle = 4 * time.Millisecond
				var closed atomic.Bool
				timer, quit := time.NewTimer(idle), make(chan struct{})
				go func() {
					select {
					case <-timer.C:
						closed.Store(true)
					case <-quit:
					}
				}()
				time.Sleep([]time.Duration{1500, 3000, 6000}[rand.IntN(3)] * time.Microsecond)
				if !timer.Stop() {
					<-timer.C // blocks for good when the watchdog took the value
				}
				timer.Reset(idle)
				timer.Stop()
				close(quit)
				return nil
			})
		},
	})
}
