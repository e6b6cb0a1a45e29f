package engine

import (
	"slices"
	"time"
)

// Processes a run starts. A child process runs natively, on real time: a
// test that starts its own binary as peers and waits for them to listen
// (groupcache's TestHTTPPool) polls with sleeps, and on the virtual clock
// those sleeps were over before a peer had even started, so the test
// timed out on a virtual clock that had run through its whole deadline in
// a few milliseconds of real time. So while a process the run started has
// not been waited for, and the body has not returned, the clock passes no
// faster than real time: each advance to a timer first waits as long, in
// real time (pace). What the clock reads stays the run's own, drawn and
// replayed as ever; only the real time a run takes changes.
//
// The leak oracle's time, once the body has returned, is not paced: it
// runs the clock far ahead to see whether what the body left behind ends,
// which in real time would take minutes.

// ProcessEnv is set in the environment of every process a goroutine of a
// run starts (through the overlay's os.StartProcess hook): a test binary
// started so runs its tests natively, once each, as go test does
// (schedtest), since it is a part of its parent's test, which the parent's
// run cannot schedule.
const ProcessEnv = "DST_STARTED_IN_RUN"

// paceSlice is the longest real wait between two counts of progress while
// the clock is paced, well under the watchdog's period.
const paceSlice = 5 * time.Millisecond

type processState struct {
	procs     []int // the processes started and not waited for, by pid
	procsEver bool  // the run started a process
}

// ProcessStarted notes that g started the process pid.
//
//go:norace
func (g *G) ProcessStarted(pid int) {
	r := g.run
	r.procs = append(r.procs, pid)
	r.procsEver = true
}

// ProcessWaited notes that a wait for the process pid returned.
//
//go:norace
func (g *G) ProcessWaited(pid int) {
	r := g.run
	if i := slices.Index(r.procs, pid); i >= 0 {
		r.procs = slices.Delete(r.procs, i, i+1)
	}
}

// StartedProcesses reports whether g's run has started a process.
//
//go:norace
func (g *G) StartedProcesses() bool { return g.run.procsEver }

// pace waits, in real time, as long as an advance of the clock to next
// takes, while the body runs and a process the run started may still run.
// It counts progress every paceSlice, so that the watchdog sees the wait
// as the scheduler's, not as a goroutine that stopped reaching scheduling
// points.
//
//go:norace
func (r *Run) pace(next time.Duration) {
	if len(r.procs) == 0 || r.root.state == gExited || r.stopping {
		return
	}
	var t *time.Timer
	for d := next - r.now; d > 0; d -= paceSlice {
		if t == nil {
			t = time.NewTimer(min(d, paceSlice))
		} else {
			t.Reset(min(d, paceSlice))
		}
		<-t.C
		r.progress++
	}
}
