package simdisk_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simdisk"
	"github.com/dstgo/dst/vtime"
)

var shared, sink int

// raceBodies share a variable between two goroutines that write files:
// different files, which Go's file system does not order (the race
// detector reports it under go test -race); and a writer and a crash of
// what it wrote, which must not make simdisk's own state race.
var raceBodies = map[string]func(*schedtest.T){
	"files": func(st *schedtest.T) {
		dir := st.TempDir()
		a, _ := os.Create(filepath.Join(dir, "a"))
		b, _ := os.Create(filepath.Join(dir, "b"))
		defer a.Close()
		defer b.Close()
		var wg sched.WaitGroup
		wg.Go(func() { shared = 1; simdisk.Write(a, []byte("a")); simdisk.Sync(a) })
		// B writes after A has, in every schedule: the clock moves only
		// when A is done. Only the disk could order the two.
		wg.Go(func() { vtime.Sleep(time.Millisecond); simdisk.Write(b, []byte("b")); simdisk.Sync(b); sink = shared })
		wg.Wait()
	},
	"crash": func(st *schedtest.T) {
		dir := st.TempDir()
		var wg sched.WaitGroup
		wg.Go(func() {
			f, _ := os.Create(filepath.Join(dir, "log"))
			simdisk.Write(f, []byte("synced"))
			simdisk.Sync(f)
			simdisk.Write(f, []byte(", not synced"))
			f.Close()
		})
		wg.Go(func() {
			vtime.Sleep(time.Millisecond)
			if err := simdisk.Crash(dir); err != nil {
				st.Error(err)
			}
		})
		wg.Wait()
	},
}

// TestChildRaceEdges is the child TestRaceEdges runs.
func TestChildRaceEdges(t *testing.T) {
	testutil.RaceChild(t, schedtest.Options{Iterations: 30, Seed: 1, Strategy: "random"}, raceBodies)
}

// TestRaceEdges (under -race): the race detector sees the disk as Go's.
// Two goroutines that race on a variable while writing different files
// are found racing, and a crash of what another goroutine wrote races on
// nothing of simdisk's. Regression: simdisk's lock, a sched.Mutex that
// every write took, ordered every writer after every other, and the race
// between the writers passed.
func TestRaceEdges(t *testing.T) {
	testutil.RaceChildren(t, "TestChildRaceEdges", map[string]bool{"files": true, "crash": false})
}
