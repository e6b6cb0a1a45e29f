package bugs

import (
	"errors"
	"fmt"
	"sync"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A bounded job table whose Submit rejects work when the table is full. The
// rejection path still unlocks by hand, written before the function grew a
// deferred Unlock, so a rejected Submit unlocks twice: Go treats that as a
// fatal error, or, when another goroutine took the lock in between, the
// deferred Unlock releases that goroutine's lock and its own Unlock fails.
// The fixed twin leaves the unlocking to the defer.
type utTable struct {
	mu    sched.Mutex
	jobs  map[string]bool
	limit int
}

var errUTFull = errors.New("job table full")

func (tb *utTable) submitBuggy(id string) error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.jobs) >= tb.limit {
		tb.mu.Unlock() // the defer unlocks again
		return errUTFull
	}
	tb.jobs[id] = true
	return nil
}

func (tb *utTable) submitFixed(id string) error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.jobs) >= tb.limit {
		return errUTFull
	}
	tb.jobs[id] = true
	return nil
}

func (tb *utTable) finish(id string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	delete(tb.jobs, id)
}

// utChanMutex is a mutex made of a channel, for the native twin: a
// sync.Mutex unlocked twice throws a fatal error that would end the test
// binary, so this one panics with the same message instead.
type utChanMutex chan struct{}

func (m utChanMutex) Lock() { m <- struct{}{} }
func (m utChanMutex) Unlock() {
	select {
	case <-m:
	default:
		panic("sync: unlock of unlocked mutex")
	}
}

func init() {
	run := func(submit func(*utTable, string) error) func(*schedtest.T) {
		return func(t *schedtest.T) {
			tb := &utTable{jobs: map[string]bool{}, limit: 1}
			var wg sched.WaitGroup
			for _, id := range []string{"a", "b"} {
				wg.Go(func() {
					if submit(tb, id) == nil {
						tb.finish(id)
					}
				})
			}
			wg.Wait()
		}
	}
	register(Pattern{
		Name:   "unlock-twice",
		Class:  "non-blocking / misuse of a mutex (unlock of an unlocked mutex)",
		Buggy:  run((*utTable).submitBuggy),
		Fixed:  run((*utTable).submitFixed),
		Expect: schedtest.FatalError,
		Native: func() error {
			return runNative(func() error {
				var (
					mu   sync.Locker = make(utChanMutex, 1)
					jobs             = map[string]bool{}
				)
				submit := func(id string) error {
					mu.Lock()
					defer mu.Unlock()
					if len(jobs) >= 1 {
						mu.Unlock()
						return errUTFull
					}
					jobs[id] = true
					return nil
				}
				finish := func(id string) {
					mu.Lock()
					defer mu.Unlock()
					delete(jobs, id)
				}
				var wg sync.WaitGroup
				errs := make(chan error, 2)
				for _, id := range []string{"a", "b"} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						defer func() {
							if p := recover(); p != nil {
								errs <- fmt.Errorf("panic: %v", p)
							}
						}()
						if submit(id) == nil {
							finish(id)
						}
					}()
				}
				wg.Wait()
				close(errs)
				return <-errs
			})
		},
	})
}
