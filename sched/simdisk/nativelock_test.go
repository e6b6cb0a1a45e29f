package simdisk_test

import (
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// TestWriteUnderANativeLock: goroutines of a run that log to a file
// through package log, whose Logger holds a lock of Go's own (not the
// scheduler's) around each write. A scheduling point inside the write
// would let another goroutine block on that lock outside the scheduler,
// and the watchdog would stop the run: a write of simdisk's has none.
func TestWriteUnderANativeLock(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := log.New(f, "", 0)
	res, err := schedtest.Explore(schedtest.Options{Seed: 1, Iterations: 20, Strategy: "random"}, func(st *schedtest.T) {
		var wg sched.WaitGroup
		for g := range 3 {
			wg.Go(func() {
				for i := range 20 {
					l.Printf("goroutine %d, line %d", g, i)
				}
			})
		}
		wg.Wait()
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}
