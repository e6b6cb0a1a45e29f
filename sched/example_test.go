package sched_test

import (
	"fmt"
	"testing"

	"github.com/dstgo/dst/sched"
)

// Two goroutines take two locks in opposite orders. Exploring schedules
// finds the interleaving that deadlocks.
func ExampleExplore() {
	res, err := sched.Explore(sched.Options{Seed: 1, Iterations: 100}, func(t *sched.T) {
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

// A fault point fires with the probability the options give it, and the run
// records which faults fired.
func ExampleFault() {
	res, _ := sched.Run(sched.Options{Seed: 3, Faults: map[string]float64{"db.timeout": 0.5}}, func(t *sched.T) {
		for range 4 {
			if sched.Fault("db.timeout") {
				t.Log("timed out, retrying")
			}
		}
	})
	fmt.Println(res.Faults)
	// Output:
	// [db.timeout (step 2, goroutine 1) db.timeout (step 3, goroutine 1) db.timeout (step 4, goroutine 1)]
}

// The usual shape of a test: the body runs once per schedule, and a failing
// schedule fails the test with a report and a reproduce command.
func ExampleTest() {
	testTransfer := func(t *testing.T) {
		sched.Test(t, func(t *sched.T) {
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
