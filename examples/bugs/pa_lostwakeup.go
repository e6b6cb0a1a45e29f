package bugs

import (
	"sync"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A job queue whose consumer sleeps on a condition variable when the queue
// is empty. The buggy consumer checks for emptiness in one critical section
// and waits in another, with if instead of for: a producer that pushes and
// signals between the two finds nobody waiting yet, its Signal is lost, and
// the consumer then waits for a signal that never comes. The test waits
// for the job's result, so the whole run deadlocks. The fixed twin checks
// and waits under one lock, in a loop.
type paQueue struct {
	mu   sched.Mutex
	cond *sched.Cond
	jobs []string
}

func paNewQueue() *paQueue {
	q := &paQueue{}
	q.cond = sched.NewCond(&q.mu)
	return q
}

func (q *paQueue) Push(job string) {
	q.mu.Lock()
	q.jobs = append(q.jobs, job)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *paQueue) popBuggy() string {
	q.mu.Lock()
	empty := len(q.jobs) == 0
	q.mu.Unlock()
	q.mu.Lock()
	if empty { // decided outside this critical section
		q.cond.Wait()
	}
	job := q.jobs[0]
	q.jobs = q.jobs[1:]
	q.mu.Unlock()
	return job
}

func (q *paQueue) popFixed() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.jobs) == 0 {
		q.cond.Wait()
	}
	job := q.jobs[0]
	q.jobs = q.jobs[1:]
	return job
}

func init() {
	run := func(pop func(*paQueue) string) func(*schedtest.T) {
		return func(t *schedtest.T) {
			q := paNewQueue()
			results := chans.Make[string](0)
			sched.Go(func() { results.Send("done: " + pop(q)) })
			q.Push("resize image")
			if r := results.Recv(); r != "done: resize image" {
				t.Errorf("result %q", r)
			}
		}
	}
	register(Pattern{
		Name:   "cond-lost-wakeup",
		Class:  "communication deadlock / condition variable",
		Buggy:  run((*paQueue).popBuggy),
		Fixed:  run((*paQueue).popFixed),
		Expect: schedtest.Deadlock,
		Native: func() error {
			return runNative(func() error {
				var mu sync.Mutex
				cond := sync.NewCond(&mu)
				var jobs []string
				results := make(chan string)
				go func() {
					mu.Lock()
					empty := len(jobs) == 0
					mu.Unlock()
					mu.Lock()
					if empty {
						cond.Wait()
					}
					job := jobs[0]
					jobs = jobs[1:]
					mu.Unlock()
					results <- "done: " + job
				}()
				mu.Lock()
				jobs = append(jobs, "resize image")
				mu.Unlock()
				cond.Signal()
				<-results
				return nil
			})
		},
	})
}
