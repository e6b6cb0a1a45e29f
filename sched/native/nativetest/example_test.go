package nativetest_test

import (
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/native/nativetest"
)

// What dstreplay test -wrap makes of a test of the user's:
//
//	func TestCounter(t *testing.T) {
//		var mu sync.Mutex
//		n := 0
//		t.Run("add", func(t *testing.T) {
//			var wg sync.WaitGroup
//			for range 2 {
//				wg.Go(func() { mu.Lock(); n++; mu.Unlock() })
//			}
//			wg.Wait()
//		})
//		if n != 2 {
//			t.Fatalf("n = %d", n)
//		}
//	}
//
// Each of its schedules runs under the scheduler; its t.Run is a goroutine
// of the run.
func ExampleWrap() {
	var t *testing.T // the test's, as go test gives it
	if t == nil {
		return // an example has no test to run; see the rewrite above
	}
	nativetest.Wrap(t, func(t *nativetest.T) {
		var mu sched.Mutex
		n := 0
		t.Run("add", func(t *nativetest.T) {
			var wg sched.WaitGroup
			for range 2 {
				wg.Go(func() { mu.Lock(); n++; mu.Unlock() })
			}
			wg.Wait()
		})
		if n != 2 {
			t.Fatalf("n = %d", n)
		}
	})
}
