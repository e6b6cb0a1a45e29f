package rewrite

import (
	"strings"
	"testing"
)

// TestOSSimEdit: every hook goes into this Go's os, each hooked method
// becoming a wrapper of the original, renamed on the same line.
func TestOSSimEdit(t *testing.T) {
	all := ""
	for _, text := range checkEdit(t, osSim) {
		all += text
	}
	for _, renamed := range []string{"func (f *File) dstWrite(b []byte)", "func (f *File) dstWriteAt(b []byte, off int64)", "func (f *File) dstSync() error {"} {
		if !strings.Contains(all, renamed) {
			t.Errorf("no %s", renamed)
		}
	}
}

// TestOSHooks runs sched/simdisk's tests with the hooks in this Go's
// package os, with and without the race detector.
func TestOSHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds package os and what imports it, twice")
	}
	testWith(t, overlayOf(t, osSim), "../../sched/simdisk", ".", "DST_OS_HOOKED=1")
}

// TestTimeSimEdit: every hook goes into this Go's time.
func TestTimeSimEdit(t *testing.T) {
	all := ""
	for _, text := range checkEdit(t, timeSim) {
		all += text
	}
	if !strings.Contains(all, "func (t *Timer) Stop() bool { if !t.initTimer && dstTimer != nil") {
		t.Error("Timer.Stop has no hook")
	}
}

// TestTimeHooks runs sched/native's timer tests with the hooks in this
// Go's time, with and without the race detector.
func TestTimeHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds package time and what imports it, twice")
	}
	testWith(t, overlayOf(t, timeSim), "../../sched/native", "^(TestTimerThroughAnInterface|TestTimer|TestTicker|TestAfterFunc)", "DST_TIME_HOOKED=1")
}
