// Package debugme holds a test for dstreplay debug to stop in (see
// debug_test.go): a lost update that fails in most schedules. It is under
// testdata so that go test ./... leaves it out.
package debugme

import (
	"os"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

func TestLostUpdate(t *testing.T) {
	if os.Getenv("DST_DEBUGME") == "" {
		t.Skip("a failing test for dstreplay debug; set DST_DEBUGME=1")
	}
	schedtest.Test(t, func(t *schedtest.T) {
		var mu sched.Mutex
		var wg sched.WaitGroup
		total := 0
		for i := 1; i <= 2; i++ {
			wg.Add(1)
			sched.Go(func() {
				defer wg.Done()
				mu.Lock()
				seen := total
				mu.Unlock()
				mu.Lock() // debug: stop here
				total = seen + i
				mu.Unlock()
			})
		}
		wg.Wait()
		if total != 3 {
			t.Errorf("total = %d, want 3: an update was lost", total)
		}
	})
}
