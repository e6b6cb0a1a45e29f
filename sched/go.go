package sched

import (
	"runtime"

	"github.com/dstgo/dst/internal/engine"
)

// Go starts f in a new goroutine. Inside a run the goroutine is managed: it
// runs only when the scheduler picks it, and starting it is a scheduling
// point. Outside a run, Go is a plain go statement.
//
// Without -race, managed goroutines are coroutines: the goroutine that
// calls schedtest.Run (or schedtest.Test) runs the schedule, and a switch
// between two managed goroutines is a runtime coroutine switch, a few tens
// of nanoseconds. Such a goroutine must not call runtime.LockOSThread: the
// runtime stops the program at the next switch. Under -race they hand over
// through runtime semaphores instead, which the race detector does not
// take for synchronization. Both make the same decisions from the same
// entropy.
func Go(f func()) {
	if g := engine.Current(); g != nil {
		g.Go(f)
		return
	}
	go f()
}

// Yield is an explicit scheduling point: inside a run the scheduler may let
// another goroutine run. Outside a run it calls runtime.Gosched.
func Yield() {
	if g := engine.Current(); g != nil {
		g.Yield()
		return
	}
	runtime.Gosched()
}

// Fault is a named fault point. Inside a run it draws from the run's entropy
// whether the fault fires, with the probability configured for name
// (Options.Faults, or Options.FaultProbability), and the report of a failing
// run lists the faults that fired. Outside a run, and after StopFaults, it
// reports false: production code never sees an injected fault.
//
//	if sched.Fault("db.commit.timeout") {
//		return ErrTimeout
//	}
func Fault(name string) bool {
	if g := engine.Current(); g != nil {
		return g.Fault(name)
	}
	return false
}

// StopFaults switches every fault point of the current run off from now on,
// so that a test can check that the system makes progress once faults stop.
// Outside a run it does nothing.
func StopFaults() {
	if g := engine.Current(); g != nil {
		g.StopFaults()
	}
}

// Reach marks a point of interest, such as "the retry path ran" or "the
// cache was refilled", for a hunt (Options.Strategy "hunt"): a schedule that
// reaches a mark, or reaches it more often, than any before counts as new
// coverage and is kept to be mutated further. Outside a hunt, and outside
// a run, it does nothing. It is not a scheduling point.
func Reach(name string) {
	if g := engine.Current(); g != nil {
		g.Reach(name)
	}
}
