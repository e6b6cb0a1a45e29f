package bugs

import (
	"context"
	"runtime"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	dctx "github.com/dstgo/dst/sched/context"
	"github.com/dstgo/dst/sched/schedtest"
)

// A subscription forwards events from a feed to its subscriber. Its loop
// selects on the feed and on the subscriber's channel but has no case for
// the subscription's context, so when the subscriber takes what it needs,
// cancels and goes away, the loop stays blocked sending the next event
// forever. The fixed twin adds a ctx.Done case to both selects.
func paForward(ctx dctx.Context, feed, out *chans.Chan[string], watchCtx bool) {
	defer out.Close()
	for {
		var ev string
		var ok bool
		recv := []chans.Case{feed.CaseRecvOK(&ev, &ok)}
		if watchCtx {
			recv = append(recv, dctx.Done(ctx).CaseRecv(nil))
		}
		if chans.Select(recv...) != 0 || !ok {
			return
		}
		send := []chans.Case{out.CaseSend(ev)}
		if watchCtx {
			send = append(send, dctx.Done(ctx).CaseRecv(nil))
		}
		if chans.Select(send...) != 0 {
			return
		}
	}
}

func init() {
	run := func(watchCtx bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			feed := chans.Make[string](4)
			for _, ev := range []string{"created", "updated", "deleted"} {
				feed.Send(ev)
			}
			feed.Close()
			ctx, cancel := dctx.WithCancel(dctx.Background())
			out := chans.Make[string](0)
			sched.Go(func() { paForward(ctx, feed, out, watchCtx) })
			// The subscriber only waits for the first event.
			if ev := out.Recv(); ev != "created" {
				t.Errorf("first event %q, want created", ev)
			}
			cancel()
		}
	}
	register(Pattern{
		Name:   "select-missing-cancel",
		Class:  "communication deadlock / channel & context",
		Buggy:  run(false),
		Fixed:  run(true),
		Expect: schedtest.Leak,
		Native: func() error {
			n := runtime.NumGoroutine()
			err := runNative(func() error {
				feed := make(chan string, 4)
				for _, ev := range []string{"created", "updated", "deleted"} {
					feed <- ev
				}
				close(feed)
				ctx, cancel := context.WithCancel(context.Background())
				out := make(chan string)
				// The loop is given the context but never selects on it.
				go func(ctx context.Context) {
					defer close(out)
					for {
						select {
						case ev, ok := <-feed:
							if !ok {
								return
							}
							select {
							case out <- ev:
							}
						}
					}
				}(ctx)
				<-out
				cancel()
				return nil
			})
			if err != nil {
				return err
			}
			return waitLeaks(n)
		},
	})
}
