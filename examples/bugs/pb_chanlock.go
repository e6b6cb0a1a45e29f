package bugs

import (
	"sync"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A config store that pushes each new version to a watcher over an
// unbuffered channel. Update sends while it still holds the store's mutex;
// the watcher, between two updates, takes the same mutex to read the
// settings that go with the version it got. When Update takes the mutex
// first, it blocks in the send while the watcher blocks in Lock: a mixed
// deadlock of a channel and a lock. The fixed twin sends after unlocking.
type clStore struct {
	mu       sched.Mutex
	version  int
	settings map[string]string
	updates  *chans.Chan[int]
}

func (s *clStore) updateBuggy(k, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settings[k] = v
	s.version++
	s.updates.Send(s.version) // the watcher needs s.mu before it receives
}

func (s *clStore) updateFixed(k, v string) {
	s.mu.Lock()
	s.settings[k] = v
	s.version++
	ver := s.version
	s.mu.Unlock()
	s.updates.Send(ver)
}

// watch applies n updates: it reads the settings, then waits for the next
// version.
func (s *clStore) watch(n int) (seen []int) {
	for range n {
		s.mu.Lock()
		_ = len(s.settings)
		s.mu.Unlock()
		seen = append(seen, s.updates.Recv())
	}
	return seen
}

func init() {
	run := func(update func(*clStore, string, string)) func(*schedtest.T) {
		return func(t *schedtest.T) {
			s := &clStore{settings: map[string]string{}, updates: chans.Make[int](0)}
			var wg sched.WaitGroup
			wg.Go(func() {
				update(s, "replicas", "3")
				update(s, "timeout", "5s")
			})
			wg.Go(func() {
				if seen := s.watch(2); len(seen) != 2 || seen[1] != 2 {
					t.Errorf("the watcher saw versions %v, want [1 2]", seen)
				}
			})
			wg.Wait()
		}
	}
	register(Pattern{
		Name:   "channel-and-lock",
		Class:  "mixed deadlock / channel & lock",
		Buggy:  run((*clStore).updateBuggy),
		Fixed:  run((*clStore).updateFixed),
		Expect: schedtest.Deadlock,
		Native: func() error {
			return runNative(func() error {
				var (
					mu       sync.Mutex
					version  int
					settings = map[string]string{}
					updates  = make(chan int)
				)
				update := func(k, v string) {
					mu.Lock()
					defer mu.Unlock()
					settings[k] = v
					version++
					updates <- version
				}
				var wg sync.WaitGroup
				wg.Add(2)
				go func() {
					defer wg.Done()
					update("replicas", "3")
					update("timeout", "5s")
				}()
				go func() {
					defer wg.Done()
					for range 2 {
						mu.Lock()
						_ = len(settings)
						mu.Unlock()
						<-updates
					}
				}()
				wg.Wait()
				return nil
			})
		},
	})
}
