package vtime_test

import (
	"testing"
	"time"

	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// BenchmarkTicker runs one simulated hour per op: a ticker fires every
// second and a goroutine receives each of the 3600 ticks. It reports how many
// simulated seconds pass per second of wall time.
func BenchmarkTicker(b *testing.B) {
	const hour = time.Hour
	start := time.Now()
	for i := range b.N {
		res, err := schedtest.Run(schedtest.Options{Seed: uint64(i + 1)}, func(t *schedtest.T) {
			tk := vtime.NewTicker(time.Second)
			defer tk.Stop()
			begin := vtime.Now()
			n := 0
			for range tk.C.All() {
				if n++; n == int(hour/time.Second) {
					break
				}
			}
			if vtime.Since(begin) != hour {
				t.Fatalf("simulated %v, want %v", vtime.Since(begin), hour)
			}
		})
		if err != nil || res.Failure != nil {
			b.Fatal(err, res.Failure)
		}
	}
	b.ReportMetric(hour.Seconds()*float64(b.N)/time.Since(start).Seconds(), "sim-s/s")
}
