package bugs

import (
	"runtime"
	"sync"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A job queue served by a pool of workers that wait on a condition variable
// for work or for the queue to close. Close sets the flag and calls Signal,
// which wakes one waiting worker; the others keep waiting for a wake-up
// that never comes: every idle worker but one leaks. The fixed twin's Close
// calls Broadcast.
type cbQueue struct {
	mu     sched.Mutex
	cond   sched.Cond
	jobs   []string
	closed bool
	buggy  bool
}

func newCBQueue(buggy bool) *cbQueue {
	q := &cbQueue{buggy: buggy}
	q.cond.L = &q.mu
	return q
}

func (q *cbQueue) submit(job string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, job)
	q.cond.Signal() // one job, one worker: Signal is right here
}

func (q *cbQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	if q.buggy {
		q.cond.Signal() // every idle worker needs to see closed
	} else {
		q.cond.Broadcast()
	}
}

func (q *cbQueue) worker() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for len(q.jobs) == 0 && !q.closed {
			q.cond.Wait()
		}
		if len(q.jobs) == 0 {
			return // closed and drained
		}
		q.jobs = q.jobs[1:] // done at once
	}
}

func init() {
	run := func(buggy bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			q := newCBQueue(buggy)
			for range 3 {
				sched.Go(q.worker)
			}
			q.submit("resize")
			q.submit("thumbnail")
			q.close() // the pool shuts down in the background
		}
	}
	register(Pattern{
		Name:   "signal-instead-of-broadcast",
		Class:  "communication deadlock / condition variable",
		Buggy:  run(true),
		Fixed:  run(false),
		Expect: schedtest.Leak,
		Native: func() error {
			n := runtime.NumGoroutine()
			err := runNative(func() error {
				var (
					mu     sync.Mutex
					cond   = sync.NewCond(&mu)
					jobs   []string
					closed bool
				)
				for range 3 {
					go func() {
						mu.Lock()
						defer mu.Unlock()
						for {
							for len(jobs) == 0 && !closed {
								cond.Wait()
							}
							if len(jobs) == 0 {
								return
							}
							jobs = jobs[1:]
						}
					}()
				}
				for _, job := range []string{"resize", "thumbnail"} {
					mu.Lock()
					jobs = append(jobs, job)
					cond.Signal()
					mu.Unlock()
				}
				mu.Lock()
				closed = true
				cond.Signal()
				mu.Unlock()
				return nil
			})
			if err != nil {
				return err
			}
			return waitLeaks(n)
		},
	})
}
