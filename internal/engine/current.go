package engine

import (
	"sync"
	"sync/atomic"

	"github.com/petermattis/goid"
)

// The runs in progress in this process. A managed goroutine runs user code
// only while it is its run's current goroutine, so finding the caller's G is
// a scan of each active run's current goroutine: no per-goroutine registry,
// and nothing on the path that would give the race detector a happens-before
// edge between two goroutines of one run.
var (
	activeMu sync.Mutex
	active   atomic.Pointer[[]*Run]
)

func addActive(r *Run) {
	activeMu.Lock()
	defer activeMu.Unlock()
	p := active.Load()
	if p == nil {
		// The common case, one run at a time: the run's own one-element
		// list, allocated with it.
		r.self[0] = r
		active.Store(&r.selfList)
		return
	}
	runs := append(append([]*Run(nil), *p...), r)
	active.Store(&runs)
}

func removeActive(r *Run) {
	activeMu.Lock()
	defer activeMu.Unlock()
	p := active.Load()
	if p == nil {
		return
	}
	var runs []*Run
	for _, x := range *p {
		if x != r {
			runs = append(runs, x)
		}
	}
	if len(runs) == 0 {
		active.Store(nil)
		return
	}
	active.Store(&runs)
}

// Current returns the managed goroutine that is calling, or nil when the
// caller is not a goroutine of a run in progress (production code, or a
// goroutine started with a plain go statement). With no run in progress it
// is one atomic load, inlined into the shims.
func Current() *G {
	p := active.Load()
	if p == nil {
		return nil
	}
	return current(p)
}

//go:norace
func current(p *[]*Run) *G {
	id := goid.Get()
	for _, r := range *p {
		if c := r.cur; c != nil && c.goid == id {
			return c
		}
	}
	return nil
}
