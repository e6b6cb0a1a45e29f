package chans_test

import (
	"testing"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// roundTripsPerRun bounds one run of BenchmarkPingPong/sched, so that its
// entropy recording stays small; starting a run is amortized over it.
const roundTripsPerRun = 1 << 12

// BenchmarkPingPong measures one round trip of a value between two
// goroutines over unbuffered channels: under the scheduler (sched, every
// operation a scheduling point, default options) and in plain Go (native).
func BenchmarkPingPong(b *testing.B) {
	b.Run("sched/unbuffered", func(b *testing.B) {
		for left := b.N; left > 0; left -= roundTripsPerRun {
			n := min(left, roundTripsPerRun)
			res, err := schedtest.Run(schedtest.Options{Seed: uint64(left), MaxSteps: 8 * roundTripsPerRun}, func(t *schedtest.T) {
				ping, pong := chans.Make[int](0), chans.Make[int](0)
				sched.Go(func() {
					for v := range ping.All() {
						pong.Send(v + 1)
					}
					pong.Close()
				})
				for i := range n {
					ping.Send(i)
					if pong.Recv() != i+1 {
						t.Fatal("wrong value")
					}
				}
				ping.Close()
				pong.Recv()
			})
			if err != nil || res.Failure != nil {
				b.Fatal(err, res.Failure)
			}
		}
	})
	b.Run("native/unbuffered", func(b *testing.B) {
		ping, pong := make(chan int), make(chan int)
		go func() {
			for v := range ping {
				pong <- v + 1
			}
			close(pong)
		}()
		for i := range b.N {
			ping <- i
			if <-pong != i+1 {
				b.Fatal("wrong value")
			}
		}
		close(ping)
		<-pong
	})
}
