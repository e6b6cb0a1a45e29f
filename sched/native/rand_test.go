package native_test

import (
	"slices"
	"testing"
	"time"

	"github.com/dstgo/dst/entropy"
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

// TestRandOnExhaustedRecording: a replay whose recording has no draws left
// for math/rand (a shrink candidate cut short) gets zeros, on which the
// rejection loops of Shuffle, Intn and v2's IntN never ended, recording
// every retry (bigcache's TestAppendRandomly reached 23 GB). They end, and
// the same recording gives the same values.
func TestRandOnExhaustedRecording(t *testing.T) {
	draw := func() []int {
		var got []int
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, err := schedtest.Run(schedtest.Options{Recording: &entropy.Recording{}}, func(t *schedtest.T) {
				keys := make([]int, 5000)
				for i := range keys {
					keys[i] = i
				}
				native.Rand().Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
				got = append(got, keys[:10]...)
				got = append(got, native.Rand().Intn(5000), native.RandV2().IntN(5000), native.RandN(5000))
			})
			if err != nil || res.Failure != nil {
				t.Errorf("run: %v %v", err, res.Failure)
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("math/rand's rejection loops did not end on a recording with no draws left")
		}
		return got
	}
	first, second := draw(), draw()
	if !slices.Equal(first, second) {
		t.Errorf("the same recording gave %v, then %v", first, second)
	}
}
