package bugs

import (
	stdctx "context"
	"runtime"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/context"
	"github.com/dstgo/dst/sched/schedtest"
)

// A request handler that hands the query to a backend goroutine and waits
// for its answer. The backend gives up when the request's context is
// canceled (the client hung up), without sending; the handler waits on the
// result channel alone, so when the backend gave up, the handler's
// goroutine is blocked forever: a leak of one goroutine per canceled
// request. The fixed twin's handler selects on the context too.
func cxBackend(ctx context.Context, query string, results *chans.Chan[int]) {
	answer := len(query)
	chans.Select(results.CaseSend(answer), context.Done(ctx).CaseRecv(nil))
}

func cxHandleBuggy(ctx context.Context, query string) (int, error) {
	results := chans.Make[int](0)
	sched.Go(func() { cxBackend(ctx, query, results) })
	return results.Recv(), nil // never returns if the backend gave up
}

func cxHandleFixed(ctx context.Context, query string) (int, error) {
	results := chans.Make[int](0)
	sched.Go(func() { cxBackend(ctx, query, results) })
	var answer int
	if chans.Select(results.CaseRecv(&answer), context.Done(ctx).CaseRecv(nil)) == 1 {
		return 0, ctx.Err()
	}
	return answer, nil
}

func init() {
	run := func(handle func(context.Context, string) (int, error)) func(*schedtest.T) {
		return func(t *schedtest.T) {
			// The server starts the request's goroutine, then the client
			// hangs up; the server moves on.
			ctx, cancel := context.WithCancel(context.Background())
			sched.Go(func() { handle(ctx, "select 1") })
			cancel()
		}
	}
	register(Pattern{
		Name:   "context-and-channel",
		Class:  "communication deadlock / channel & context",
		Buggy:  run(cxHandleBuggy),
		Fixed:  run(cxHandleFixed),
		Expect: schedtest.Leak,
		Native: func() error {
			n := runtime.NumGoroutine()
			err := runNative(func() error {
				handle := func(ctx stdctx.Context, query string) int {
					results := make(chan int)
					go func() {
						select {
						case results <- len(query):
						case <-ctx.Done():
						}
					}()
					return <-results
				}
				ctx, cancel := stdctx.WithCancel(stdctx.Background())
				go handle(ctx, "select 1")
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
