package entropy_test

import (
	"testing"

	"github.com/dstgo/dst/entropy"
)

// BenchmarkDraw measures one Choice(8) draw, the scheduler's typical
// decision, with an explicit key, with the default (call-site) key, and in
// replay. A new Source is started every 1<<16 draws, outside the timer, so
// the recording stays bounded; the cost of growing the recording within
// those 1<<16 draws is included, as it is in a real run.
func BenchmarkDraw(b *testing.B) {
	const batch = 1 << 16
	key := entropy.KeyOf("sched.pick")

	b.Run("explicit-key", func(b *testing.B) {
		b.ReportAllocs()
		var s *entropy.Source
		for i := 0; b.Loop(); i++ {
			if i%batch == 0 {
				b.StopTimer()
				s = entropy.New(uint64(i))
				b.StartTimer()
			}
			s.At(key).Choice(8)
		}
	})

	b.Run("default-key", func(b *testing.B) {
		b.ReportAllocs()
		var s *entropy.Source
		for i := 0; b.Loop(); i++ {
			if i%batch == 0 {
				b.StopTimer()
				s = entropy.New(uint64(i))
				b.StartTimer()
			}
			s.Choice(8)
		}
	})

	b.Run("replay-explicit-key", func(b *testing.B) {
		b.ReportAllocs()
		rec := entropy.New(1)
		for range batch {
			rec.At(key).Choice(8)
		}
		var s *entropy.Source
		for i := 0; b.Loop(); i++ {
			if i%batch == 0 {
				b.StopTimer()
				s = entropy.Replay(rec.Recording())
				b.StartTimer()
			}
			s.At(key).Choice(8)
		}
	})
}
