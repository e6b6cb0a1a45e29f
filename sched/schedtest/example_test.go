package schedtest_test

import (
	"fmt"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// Two goroutines take two locks in opposite orders. Exploring schedules
// finds the interleaving that deadlocks.
func ExampleExplore() {
	res, err := schedtest.Explore(schedtest.Options{Seed: 1, Iterations: 100}, func(t *schedtest.T) {
		var a, b sched.Mutex
		var wg sched.WaitGroup
		wg.Go(func() {
			a.Lock()
			b.Lock()
			b.Unlock()
			a.Unlock()
		})
		wg.Go(func() {
			b.Lock()
			a.Lock()
			a.Unlock()
			b.Unlock()
		})
		wg.Wait()
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Failure.Kind, "found in schedule", res.Schedule)
	fmt.Println(res.Failure.Message)
	// Output:
	// deadlock found in schedule 6
	// deadlock: all goroutines are asleep: 3 blocked and nothing can wake them
}

// The usual shape of a test: the body runs once per schedule, and a failing
// schedule fails the test with a report and a reproduce command.
func ExampleTest() {
	testTransfer := func(t *testing.T) {
		schedtest.Test(t, func(t *schedtest.T) {
			var mu sched.Mutex
			balance := 100
			var wg sched.WaitGroup
			for range 2 {
				wg.Go(func() {
					mu.Lock()
					ok := balance >= 80
					mu.Unlock()
					if ok { // check, then act in a second critical section
						mu.Lock()
						balance -= 80
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if balance < 0 {
				t.Errorf("balance went negative: %d", balance)
			}
		})
	}
	_ = testTransfer
}
