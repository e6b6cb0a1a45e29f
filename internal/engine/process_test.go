package engine_test

import (
	"fmt"
	"os/exec"
	"runtime"
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

// TestKilledProcessAwaited: a run ends only once a process it killed and
// did not wait for has exited, and leaves it to be reaped by its Wait; one
// it killed and waited for, or never killed, it does not wait for. (The
// process here is a sleep noted as killed, so that it outlives the body by
// long enough to measure; SIGKILL's is a moment.)
func TestKilledProcessAwaited(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux tells whether a child has exited without reaping it")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip(err)
	}
	const nap = 300 * time.Millisecond
	for _, c := range []struct {
		name          string
		killed, waits bool
	}{{"killed", true, false}, {"killed and waited for", true, true}, {"never killed", false, false}} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now() // the sleep ends nap after this, or later
			cmd := exec.Command(sleep, fmt.Sprint(nap.Seconds()))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
				g := engine.Current()
				g.ProcessStarted(cmd.Process.Pid)
				if c.killed {
					g.ProcessKilled(cmd.Process.Pid)
				}
				if c.waits {
					g.ProcessWaited(cmd.Process.Pid)
				}
			})
			took := time.Since(start)
			if err != nil || res.Failure != nil {
				t.Fatalf("%v %v", err, res.Failure)
			}
			if awaited := c.killed && !c.waits; awaited != (took >= nap) {
				t.Errorf("the run took %v with a process of %v left running; want it awaited: %v", took, nap, awaited)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("the process's own Wait after the run: %v", err)
			}
		})
	}
}
