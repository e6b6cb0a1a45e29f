package bugs

import (
	"sync"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A routing table under an RWMutex. Describe takes the read lock and calls
// Len, which takes the read lock again. While a writer waits in Lock, Go's
// RWMutex admits no new reader, so the nested RLock waits for the writer,
// which waits for the outer RLock: a deadlock that only shows when an update
// arrives between the two RLocks. The fixed twin's Describe uses an unlocked
// helper for the count.
type paRoutes struct {
	mu     sched.RWMutex
	routes map[string]string
}

func (r *paRoutes) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.routes)
}

func (r *paRoutes) lenLocked() int { return len(r.routes) }

func (r *paRoutes) Set(path, backend string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.routes[path] = backend
}

func (r *paRoutes) describeBuggy(path string) (string, int) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.routes[path], r.Len() // RLock again, inside the read section
}

func (r *paRoutes) describeFixed(path string) (string, int) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.routes[path], r.lenLocked()
}

func init() {
	run := func(describe func(*paRoutes, string) (string, int)) func(*schedtest.T) {
		return func(t *schedtest.T) {
			r := &paRoutes{routes: map[string]string{"/api": "svc-a"}}
			var wg sched.WaitGroup
			wg.Go(func() { describe(r, "/api") })
			wg.Go(func() { r.Set("/web", "svc-b") })
			wg.Wait()
		}
	}
	register(Pattern{
		Name:   "rwmutex-recursive-rlock",
		Class:  "resource deadlock / recursive read lock (RWR)",
		Buggy:  run((*paRoutes).describeBuggy),
		Fixed:  run((*paRoutes).describeFixed),
		Expect: schedtest.Deadlock,
		Native: func() error {
			return runNative(func() error {
				var mu sync.RWMutex
				routes := map[string]string{"/api": "svc-a"}
				length := func() int {
					mu.RLock()
					defer mu.RUnlock()
					return len(routes)
				}
				var wg sync.WaitGroup
				wg.Add(2)
				go func() {
					defer wg.Done()
					mu.RLock()
					defer mu.RUnlock()
					_, _ = routes["/api"], length()
				}()
				go func() {
					defer wg.Done()
					mu.Lock()
					defer mu.Unlock()
					routes["/web"] = "svc-b"
				}()
				wg.Wait()
				return nil
			})
		},
	})
}
