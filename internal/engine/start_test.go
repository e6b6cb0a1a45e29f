package engine

import (
	"testing"
	"time"
)

// TestClockStartAfterRealReadings: an exploration's clock starts at the
// start it is given unless the program read a later real time outside a
// run; then just after the latest such reading, whatever order the
// readings came in.
func TestClockStartAfterRealReadings(t *testing.T) {
	saved := realReading.Load()
	t.Cleanup(func() { realReading.Store(saved) })
	realReading.Store(0)

	given := time.Date(2030, time.March, 4, 10, 11, 12, 13, time.UTC)
	if got := ClockStart(time.Time{}); !got.IsZero() {
		t.Fatalf("no reading: ClockStart(zero) = %v, want zero (DefaultStart, unrecorded)", got)
	}
	NoteRealReading(DefaultStart.Add(-time.Hour))
	if got := ClockStart(time.Time{}); !got.IsZero() {
		t.Fatalf("a reading before DefaultStart: ClockStart(zero) = %v, want zero", got)
	}

	later := DefaultStart.Add(500 * 24 * time.Hour).In(time.FixedZone("X", 3600))
	NoteRealReading(later)
	NoteRealReading(later.Add(-time.Minute)) // an earlier reading does not move it back
	want := later.Add(startAfterReading).UTC()
	if got := ClockStart(time.Time{}); !got.Equal(want) || got.Location() != time.UTC {
		t.Fatalf("after a reading at %v: ClockStart(zero) = %v, want %v in UTC", later, got, want)
	}
	if got := ClockStart(DefaultStart); !got.Equal(want) {
		t.Fatalf("ClockStart(DefaultStart) = %v, want %v", got, want)
	}
	if got := ClockStart(given); !got.Equal(given) {
		t.Fatalf("a given start after the readings: ClockStart = %v, want it unchanged (%v)", got, given)
	}
}
