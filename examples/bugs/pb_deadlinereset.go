package bugs

import (
	stdctx "context"
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/context"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// A job runner that gives each job a watchdog goroutine: the job sends a
// heartbeat as it makes progress, the watchdog records when it last heard
// from the job, for a status page, and exits when the job's context ends.
// The runner cancels that context when the job fails, but not when it
// succeeds, so every successful job leaves its watchdog waiting for a
// heartbeat or a cancellation that never comes. The fixed twin cancels on
// every path. (The cancel function is kept in the job, so go vet's
// lostcancel check, which would catch a local one, does not see it.)
type wdStatus struct {
	mu   sched.Mutex
	last map[string]time.Time
}

func (s *wdStatus) set(job string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if at.IsZero() {
		delete(s.last, job)
	} else {
		s.last[job] = at
	}
}

type wdJob struct {
	name   string
	ctx    context.Context
	cancel context.CancelFunc
	beats  *chans.Chan[struct{}]
}

func (j *wdJob) watch(status *wdStatus) {
	for {
		switch chans.Select(j.beats.CaseRecv(nil), context.Done(j.ctx).CaseRecv(nil)) {
		case 0:
			status.set(j.name, vtime.Now())
		case 1:
			status.set(j.name, time.Time{})
			return
		}
	}
}

func (j *wdJob) beat() {
	chans.Select(j.beats.CaseSend(struct{}{}), context.Done(j.ctx).CaseRecv(nil))
}

func wdRun(status *wdStatus, name string, steps func(beat func()) error, fixed bool) error {
	ctx, cancel := context.WithCancel(context.Background())
	j := &wdJob{name: name, ctx: ctx, cancel: cancel, beats: chans.Make[struct{}](0)}
	if fixed {
		defer j.cancel()
	}
	sched.Go(func() { j.watch(status) })
	if err := steps(j.beat); err != nil {
		j.cancel() // stops the watchdog; the success path forgets to
		return err
	}
	return nil
}

var errWDDisk = errors.New("disk full")

func init() {
	run := func(fixed bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			status := &wdStatus{last: map[string]time.Time{}}
			var wg sched.WaitGroup
			wg.Go(func() {
				wdRun(status, "backup", func(beat func()) error {
					beat()
					vtime.Sleep(time.Second)
					return errWDDisk
				}, fixed)
			})
			wg.Go(func() {
				wdRun(status, "reindex", func(beat func()) error {
					for range 2 {
						vtime.Sleep(time.Second)
						beat()
					}
					return nil
				}, fixed)
			})
			wg.Wait()
		}
	}
	register(Pattern{
		Name:   "watchdog-context-leak",
		Class:  "communication deadlock / channel & context",
		Buggy:  run(false),
		Fixed:  run(true),
		Expect: schedtest.Leak,
		Native: func() error {
			n := runtime.NumGoroutine()
			err := runNative(func() error {
				var mu sync.Mutex
				last := map[string]time.Time{}
				runJob := func(name string, fail bool) error {
					ctx, cancel := stdctx.WithCancel(stdctx.Background())
					j := struct {
						cancel stdctx.CancelFunc
						beats  chan struct{}
					}{cancel, make(chan struct{})}
					go func() {
						for {
							select {
							case <-j.beats:
								mu.Lock()
								last[name] = time.Now()
								mu.Unlock()
							case <-ctx.Done():
								return
							}
						}
					}()
					select {
					case j.beats <- struct{}{}:
					case <-ctx.Done():
					}
					if fail {
						j.cancel()
						return errWDDisk
					}
					return nil
				}
				var wg sync.WaitGroup
				wg.Add(2)
				go func() { defer wg.Done(); runJob("backup", true) }()
				go func() { defer wg.Done(); runJob("reindex", false) }()
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
