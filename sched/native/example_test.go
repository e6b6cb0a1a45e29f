package native_test

import (
	"fmt"

	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
)

// What dstreplay test makes of
//
//	ch := make(chan int)
//	go func() { ch <- 42 }()
//	select {
//	case v := <-ch:
//		fmt.Println(v)
//	}
//
// run under the scheduler: the channel stays a chan int.
func Example() {
	res, _ := schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) {
		ch := native.Make[chan int](0)
		native.Go(func() { native.To(ch).Send(42) })
		c0 := ch
		r0, ok0 := native.Elem(c0), false
		if native.Select(native.CaseRecv(c0, &r0, &ok0)) == 0 {
			fmt.Println(r0, ok0)
		}
	})
	fmt.Println("failure:", res.Failure)
	// Output:
	// 42 true
	// failure: <nil>
}
