package bugs

import (
	"fmt"
	"sync"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A crawler fetches pages in parallel and waits for them with a WaitGroup,
// but each worker calls wg.Add(1) itself, once it runs. If Wait runs before
// some worker has started, the counter is still zero, Wait returns, and the
// crawler reports an incomplete result. The fixed twin calls Add before
// starting each worker.
type paCrawler struct {
	mu    sched.Mutex
	pages map[string]int
}

func (c *paCrawler) fetch(url string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pages[url] = len(url) // the page's size
}

func (c *paCrawler) crawl(urls []string, addInside bool) int {
	var wg sched.WaitGroup
	for _, u := range urls {
		if !addInside {
			wg.Add(1)
		}
		sched.Go(func() {
			if addInside {
				wg.Add(1) // too late: Wait may already have returned
			}
			defer wg.Done()
			c.fetch(u)
		})
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pages)
}

func init() {
	urls := []string{"/", "/about", "/blog"}
	run := func(addInside bool) func(*schedtest.T) {
		return func(t *schedtest.T) {
			c := &paCrawler{pages: map[string]int{}}
			if got := c.crawl(urls, addInside); got != len(urls) {
				t.Errorf("crawled %d pages, want %d", got, len(urls))
			}
		}
	}
	register(Pattern{
		Name:   "waitgroup-add-inside",
		Class:  "non-blocking / WaitGroup misuse",
		Buggy:  run(true),
		Fixed:  run(false),
		Expect: schedtest.TestFailed,
		Native: func() error {
			return runNative(func() error {
				var mu sync.Mutex
				pages := map[string]int{}
				var wg sync.WaitGroup
				fetch := func(u string) {
					wg.Add(1) // inside the new goroutine, as in the buggy version
					defer wg.Done()
					mu.Lock()
					defer mu.Unlock()
					pages[u] = len(u)
				}
				for _, u := range urls {
					go fetch(u)
				}
				wg.Wait()
				mu.Lock()
				defer mu.Unlock()
				if len(pages) != len(urls) {
					return fmt.Errorf("crawled %d pages, want %d", len(pages), len(urls))
				}
				return nil
			})
		},
	})
}
