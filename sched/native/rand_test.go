package native_test

import (
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
)

// TestRandShared: goroutines of a run draw from the global functions of
// math/rand and math/rand/v2 at once, which Go allows (the global generator
// is safe for concurrent use). The run's generator stands for it, and
// under -race the detector reports nothing: each use carries the edge a
// use of Go's global generator carries.
//
//	for range 3 { go func() { rand.Intn(10); rand.Read(buf); randv2.IntN(10); randv2.N(10); done <- true }() }
func TestRandShared(t *testing.T) {
	run(t, func(t *schedtest.T) {
		const workers = 3
		done := native.Make[chan bool](0)
		for range workers {
			native.Go(func() {
				buf := make([]byte, 3)
				for range 4 {
					native.Rand().Intn(10)
					native.Rand().Read(buf)
					sched.Yield()
					native.RandV2().IntN(10)
					native.RandN(10)
					sched.Yield()
				}
				native.To(done).Send(true)
			})
		}
		for range workers {
			native.Recv(done)
		}
	})
}
