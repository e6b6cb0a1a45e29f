package simdisk_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simdisk"
)

// BenchmarkWrite is a 128-byte append to a file: Go's own (the baseline),
// and through simdisk inside runs of 1,000 writes each (the crash points,
// the fault checks, and the first write's record of the file), with a sync
// every 100 writes in both.
func BenchmarkWrite(b *testing.B) {
	rec := make([]byte, 128)
	b.Run("native", func(b *testing.B) {
		f, err := os.Create(filepath.Join(b.TempDir(), "log"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		i := 0
		for b.Loop() {
			f.Write(rec)
			if i++; i%100 == 0 {
				f.Sync()
			}
		}
	})
	b.Run("simulated", func(b *testing.B) {
		dir := b.TempDir()
		n := b.N
		b.ResetTimer()
		for n > 0 {
			k := min(n, 1000)
			n -= k
			res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
				f, err := os.Create(filepath.Join(dir, "log"))
				if err != nil {
					st.Fatal(err)
				}
				defer f.Close()
				for i := range k {
					simdisk.Write(f, rec)
					if i%100 == 99 {
						simdisk.Sync(f)
					}
				}
			})
			if err != nil || res.Failure != nil {
				b.Fatal(err, res.Failure)
			}
		}
	})
}
