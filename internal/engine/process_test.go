package engine_test

import (
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// TestProcessPacesTheClock: while a process the run started has not been
// waited for, a sleep on the virtual clock takes as long in real time (a
// peer that the test polls gets the time to start), and the clock reads
// as it would without: only the run's real time changes. Once the process
// has been waited for, and once the body has returned, the clock jumps
// again.
func TestProcessPacesTheClock(t *testing.T) {
	const nap = 60 * time.Millisecond
	var paced, waited, after time.Duration
	var virtual [2]time.Duration
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		g := engine.Current()
		if g.StartedProcesses() {
			st.Error("a run that started nothing says it did")
		}
		g.ProcessStarted(4242)
		if !g.StartedProcesses() {
			st.Error("StartedProcesses is false after ProcessStarted")
		}
		start, v := time.Now(), vtime.Now()
		vtime.Sleep(nap)
		paced, virtual[0] = time.Since(start), vtime.Since(v)
		g.ProcessWaited(4242)
		start, v = time.Now(), vtime.Now()
		vtime.Sleep(nap)
		waited, virtual[1] = time.Since(start), vtime.Since(v)
		g.ProcessStarted(4343) // never waited for: the leak oracle's time is not paced
		g.Go(func() {
			start := time.Now()
			vtime.Sleep(time.Hour)
			after = time.Since(start)
		})
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if paced < nap {
		t.Errorf("a sleep of %v with a process running took %v of real time", nap, paced)
	}
	if waited >= nap {
		t.Errorf("a sleep of %v once the process was waited for took %v of real time", nap, waited)
	}
	if after == 0 || after >= time.Second {
		t.Errorf("a sleep of an hour after the body returned took %v of real time (0: it did not end)", after)
	}
	for i, v := range virtual {
		if v < nap || v > nap+time.Millisecond {
			t.Errorf("sleep %d: the clock moved %v across a sleep of %v", i, v, nap)
		}
	}
}
