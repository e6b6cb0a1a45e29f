// Package bench compares one scheduled execution of a body written with
// Go's own concurrency, rewritten by dstreplay test, with the same body
// hand-ported to the shims. Run it through the rewrite:
//
//	cd internal/rewrite/testdata/bench && go tool dstreplay test -run '^$' -bench . -count 6
package bench

import (
	"sync"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
)

// Native is the body as Go is written: a pipeline over an unbuffered
// channel, a select with a quit channel, and a counter under a mutex.
func Native(n int) int {
	ch := make(chan int)
	quit := make(chan struct{})
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case v := <-ch:
				mu.Lock()
				total += v
				mu.Unlock()
			case <-quit:
				return
			}
		}
	}()
	for i := 0; i < n; i++ {
		ch <- i
	}
	close(quit)
	wg.Wait()
	return total
}

// Ported is Native hand-ported to the shims.
func Ported(n int) int {
	ch := chans.Make[int](0)
	quit := chans.Make[struct{}](0)
	var mu sched.Mutex
	var wg sched.WaitGroup
	total := 0
	wg.Add(1)
	sched.Go(func() {
		defer wg.Done()
		for {
			var v int
			switch chans.Select(ch.CaseRecv(&v), quit.CaseRecv(nil)) {
			case 0:
				mu.Lock()
				total += v
				mu.Unlock()
			case 1:
				return
			}
		}
	})
	for i := 0; i < n; i++ {
		ch.Send(i)
	}
	quit.Close()
	wg.Wait()
	return total
}
