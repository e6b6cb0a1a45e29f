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
// A process the run killed (os.Kill) and has not waited for is waited
// for, without being reaped, when the run ends: SIGKILL is delivered at
// once, but the process dies a moment later, and until then it holds what
// it held. A test that starts a peer on a port it picks and kills it when
// it returns (defer cmd.Process.Kill()) picks the same port in the next
// schedule (a simulated listener on port 0 is given the same one in every
// run), and the next schedule's dials reached the dying peer of the last,
// whose connections were then reset. The wait is bounded (killWait): a
// process in an uninterruptible sleep may outlast it.
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

// killWait bounds how long the end of a run waits for a process it killed
// to exit.
const killWait = 5 * time.Second

type processState struct {
	procs     []int // the processes started and not waited for, by pid
	killed    []int // those of procs the run sent SIGKILL
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
	if i := slices.Index(r.killed, pid); i >= 0 {
		r.killed = slices.Delete(r.killed, i, i+1)
	}
}

// ProcessKilled notes that g sent SIGKILL to the process pid; one the run
// did not start, or has waited for, is not the run's to wait for.
//
//go:norace
func (g *G) ProcessKilled(pid int) {
	r := g.run
	if slices.Contains(r.procs, pid) && !slices.Contains(r.killed, pid) {
		r.killed = append(r.killed, pid)
	}
}

// awaitKilled waits until each process the run killed and did not wait for
// has exited, or killWait has passed, leaving it to be reaped by whoever
// waits for it.
//
//go:norace
func (r *Run) awaitKilled() {
	deadline := time.Now().Add(killWait)
	for _, pid := range r.killed {
		for !exited(pid) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	r.killed = nil
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
