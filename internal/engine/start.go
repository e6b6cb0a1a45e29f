package engine

import (
	"sync/atomic"
	"time"
)

// Time never runs backwards for the program under test. Code under the
// scheduler that reads the clock outside any run (a package's init, a
// TestMain, a test that runs natively) reads the real clock, which is later
// than DefaultStart: gobreaker's tests make a breaker in init whose expiry
// is real now + 30s, and a run whose clock started at DefaultStart would
// never reach it. So such readings are noted (NoteRealReading), and an
// exploration's clock starts just after the latest of them (ClockStart)
// when that is later than the start it was given. Code that never reads
// the clock outside a run gets the given start exactly, and its runs are
// the same in every process; code that does gets a start that depends on
// when it read the real clock, as its behaviour in Go does, and the start
// is recorded in the run's trace.

// realReading is the latest real instant, in Unix nanoseconds, that code
// under the scheduler read outside a run; 0: none.
var realReading atomic.Int64

// startAfterReading is how long after the latest real reading a moved start
// is: a test begins some time after its package's init.
const startAfterReading = time.Millisecond

// NoteRealReading notes that code under the scheduler read t from the real
// clock outside a run.
func NoteRealReading(t time.Time) {
	ns := t.UnixNano()
	for {
		old := realReading.Load()
		if ns <= old || realReading.CompareAndSwap(old, ns) {
			return
		}
	}
}

// ForgetRealReadings forgets the real readings noted so far: for tests
// that read the real clock outside a run and must not move the clock of
// the runs after them.
func ForgetRealReadings() { realReading.Store(0) }

// ClockStart is where an exploration's clock starts, given the start it
// was configured with (zero: DefaultStart): that start, or, when code
// under the scheduler read a later real time outside a run, just after the
// latest such reading, in UTC. The result is zero when it is the zero
// given, so that a default start stays unrecorded.
func ClockStart(given time.Time) time.Time {
	ns := realReading.Load()
	if ns == 0 {
		return given
	}
	moved := time.Unix(0, ns).Add(startAfterReading).UTC()
	base := given
	if base.IsZero() {
		base = DefaultStart
	}
	if !moved.After(base) {
		return given
	}
	return moved
}
