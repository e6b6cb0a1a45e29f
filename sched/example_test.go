package sched_test

import (
	"fmt"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A fault point fires with the probability the options give it, and the run
// records which faults fired.
func ExampleFault() {
	res, _ := schedtest.Run(schedtest.Options{Seed: 3, Faults: map[string]float64{"db.timeout": 0.5}}, func(t *schedtest.T) {
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
