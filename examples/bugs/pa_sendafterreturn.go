package bugs

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// A client asks a backend for a quote with a deadline: a worker goroutine
// does the call and sends the answer on an unbuffered channel, and the
// caller waits for the answer or the deadline, whichever comes first. When
// the deadline wins, the caller returns and nobody will ever receive: the
// worker blocks on its send forever. The backend's latency varies (drawn
// from the run's entropy): the leak shows only on a slow answer. The fixed
// twin gives the channel a buffer of one, so the worker's send never blocks.
var errPaTimeout = errors.New("quote: deadline exceeded")

const paQuoteDeadline = 25 * time.Millisecond

func paQuote(latency time.Duration, buffer int) (int, error) {
	answer := chans.Make[int](buffer)
	sched.Go(func() {
		vtime.Sleep(latency) // the backend call
		answer.Send(42)
	})
	var price int
	switch chans.Select(answer.CaseRecv(&price), vtime.After(paQuoteDeadline).CaseRecv(nil)) {
	case 0:
		return price, nil
	default:
		return 0, errPaTimeout
	}
}

func init() {
	run := func(buffer int) func(*schedtest.T) {
		return func(t *schedtest.T) {
			latency := []time.Duration{5, 15, 40}[t.Entropy().Choice(3)] * time.Millisecond
			if price, err := paQuote(latency, buffer); err == nil && price != 42 {
				t.Errorf("quote %d, want 42", price)
			}
		}
	}
	register(Pattern{
		Name:   "send-no-receiver",
		Class:  "communication deadlock / channel",
		Buggy:  run(0),
		Fixed:  run(1),
		Expect: schedtest.Leak,
		Native: func() error {
			n := runtime.NumGoroutine()
			err := runNative(func() error {
				latency := []time.Duration{1, 3, 8}[rand.IntN(3)] * time.Millisecond
				answer := make(chan int)
				go func() {
					time.Sleep(latency)
					answer <- 42
				}()
				select {
				case <-answer:
				case <-time.After(4 * time.Millisecond):
				}
				return nil
			})
			if err != nil {
				return err
			}
			return waitLeaks(n)
		},
	})
}
