package native_test

import (
	"math/rand"
	"strconv"
	"testing"

	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
)

// The shims against what they stand for, measured in the same run: "go" is
// Go's own (math/rand's global function, a range over the map), "shim" the
// shim inside a run, where it draws from the run's entropy and records.
//
//	go test -run '^$' -bench . -benchmem ./sched/native/

// inRun runs body once inside a run, failing b if the run fails.
func inRun(b *testing.B, body func()) {
	b.Helper()
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) { body() })
	if err != nil {
		b.Fatal(err)
	}
	if res.Failure != nil {
		b.Fatal(res.Failure)
	}
}

// inRuns calls f b.N times inside runs of at most 1<<16 calls each, timing
// only the calls: a run's recording grows with its draws, as in a test,
// without one run holding them all.
func inRuns(b *testing.B, f func()) {
	const batch = 1 << 16
	b.StopTimer()
	for done := 0; done < b.N; {
		n := min(b.N-done, batch)
		inRun(b, func() {
			b.StartTimer()
			for range n {
				f()
			}
			b.StopTimer()
		})
		done += n
	}
}

var sinkInt int64

// BenchmarkRandInt63n: rand.Int63n(1<<60), as ristretto's TestTreeBasic
// draws two million times.
func BenchmarkRandInt63n(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		for range b.N {
			sinkInt += rand.Int63n(1 << 60)
		}
	})
	b.Run("shim", func(b *testing.B) {
		inRuns(b, func() { sinkInt += native.Rand().Int63n(1 << 60) })
	})
}

// BenchmarkRandIntn: rand.Intn(1000), a bounded draw.
func BenchmarkRandIntn(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		for range b.N {
			sinkInt += int64(rand.Intn(1000))
		}
	})
	b.Run("shim", func(b *testing.B) {
		inRuns(b, func() { sinkInt += int64(native.Rand().Intn(1000)) })
	})
}

// BenchmarkMapRange ranges over maps of 100,000 integer and string keys
// (ristretto's TestTreeBasic ranges over a million): ns/op is per map
// range, per-key is per entry.
func BenchmarkMapRange(b *testing.B) {
	const n = 100_000
	ints := make(map[uint64]uint64, n)
	strs := make(map[string]int, n)
	r := rand.New(rand.NewSource(1))
	for len(ints) < n {
		k := r.Uint64()
		ints[k] = k
		strs[strconv.FormatUint(k, 36)] = len(strs)
	}
	type point struct{ x, y int }
	structs := make(map[point]int, n/10)
	for i := range n / 10 {
		structs[point{i, -i}] = i
	}
	bench := func(name string, size int, rangeGo, rangeShim func() int) {
		b.Run(name+"/go", func(b *testing.B) {
			for range b.N {
				sinkInt += int64(rangeGo())
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/key")
		})
		b.Run(name+"/shim", func(b *testing.B) {
			inRun(b, func() {
				b.ResetTimer()
				for range b.N {
					sinkInt += int64(rangeShim())
				}
				b.StopTimer()
			})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/key")
		})
	}
	bench("uint64", n, func() (c int) {
		for k, v := range ints {
			c += int(k ^ v)
		}
		return c
	}, func() (c int) {
		for k, v := range native.Map(ints) {
			c += int(k ^ v)
		}
		return c
	})
	bench("string", n, func() (c int) {
		for k, v := range strs {
			c += len(k) + v
		}
		return c
	}, func() (c int) {
		for k, v := range native.Map(strs) {
			c += len(k) + v
		}
		return c
	})
	bench("struct", n/10, func() (c int) {
		for k, v := range structs {
			c += k.x + v
		}
		return c
	}, func() (c int) {
		for k, v := range native.Map(structs) {
			c += k.x + v
		}
		return c
	})
}
