package bench

import (
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

// BenchmarkExec is one scheduled execution of each body: Rewritten
// (Native, as dstreplay test rewrites it) against Ported (the baseline,
// measured in the same run). Under plain go test, Rewritten runs Go's
// own concurrency inside a run and fails: run it with dstreplay test.
func BenchmarkExec(b *testing.B) {
	for _, c := range []struct {
		name string
		body func(int) int
	}{{"Rewritten", Native}, {"Ported", Ported}} {
		b.Run(c.name, func(b *testing.B) {
			seed := uint64(0)
			for b.Loop() {
				seed++
				res, err := schedtest.Run(schedtest.Options{Seed: seed}, func(*schedtest.T) {
					if got := c.body(100); got != 4950 {
						panic(got)
					}
				})
				if err != nil || res.Failure != nil {
					b.Fatal(err, res.Failure)
				}
			}
		})
	}
}
