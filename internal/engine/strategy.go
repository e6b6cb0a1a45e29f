package engine

import (
	"slices"

	"github.com/dstgo/dst/entropy"
)

// Strategy decides which runnable goroutine continues at a scheduling point.
// Every decision it makes is drawn from the run's entropy source.
type Strategy uint8

const (
	// Random picks uniformly among the runnable goroutines at every point.
	Random Strategy = iota + 1
	// PCT gives goroutines random priorities, always runs the highest, and
	// lowers the running goroutine's priority at d-1 random steps
	// (Burckhardt et al., ASPLOS'10): a bug of depth d is found with
	// probability at least 1/(n·k^(d-1)) per run.
	PCT
)

func (s Strategy) String() string {
	switch s {
	case Random:
		return "random"
	case PCT:
		return "pct"
	}
	return "strategy?"
}

// Keys of the scheduler's own draws.
var (
	keyPick   = entropy.KeyOf("sched.pick")
	keyPrio   = entropy.KeyOf("sched.pct.priority")
	keyChange = entropy.KeyOf("sched.pct.change")
	faultSalt = entropy.KeyOf("sched.fault")
)

// starveLimit bounds how many consecutive points PCT lets one goroutine run
// while others are runnable, so a goroutine spinning on an atomic does not
// look like a livelock only because of its priority.
const starveLimit = 1000

//go:norace
func (r *Run) startStrategy() {
	if r.cfg.Strategy != PCT {
		return
	}
	// d-1 distinct steps in [1, PCTSteps], drawn without replacement: the
	// k-th draw picks a rank among the steps not taken yet.
	n := min(r.cfg.Depth-1, r.cfg.PCTSteps)
	for i := range n {
		c := r.src.At(keyChange).IntRange(1, r.cfg.PCTSteps-i)
		for _, taken := range r.changes { // sorted
			if taken <= c {
				c++
			}
		}
		r.changes = append(r.changes, c)
		slices.Sort(r.changes)
	}
}

//go:norace
func (r *Run) spawned(g *G) {
	if r.cfg.Strategy == PCT {
		g.prio = int64(r.cfg.Depth) + int64(r.src.At(keyPrio).Uint64()>>2)
	}
}

// changePoints lowers the running goroutine's priority when the step count
// reaches a PCT change point: the i-th change point sets it to d-1-i, below
// every initial priority.
//
//go:norace
func (r *Run) changePoints(cur *G) {
	for r.nextChange < len(r.changes) && r.steps >= r.changes[r.nextChange] {
		cur.prio = int64(r.cfg.Depth - 1 - r.nextChange)
		r.nextChange++
	}
}

//go:norace
func (r *Run) demote(g *G) {
	r.minPrio--
	g.prio = r.minPrio
}

// pick chooses among r.runnable, which is not empty. cur is the goroutine at
// the scheduling point if it can continue, nil if it blocked or exited.
//
//go:norace
func (r *Run) pick(cur *G, yield bool) *G {
	if r.cfg.Strategy != PCT {
		r.choice = 0
		if len(r.runnable) > 1 {
			r.choice = int64(r.src.At(keyPick).Choice(len(r.runnable)))
		}
		return r.runnable[r.choice]
	}
	if cur != nil && yield {
		r.demote(cur)
	}
	best := r.highest()
	if cur != nil && best == cur {
		r.streak++
		if r.streak > starveLimit {
			r.demote(cur)
			best = r.highest()
		}
	}
	if best != cur {
		r.streak = 0
	}
	return best
}

//go:norace
func (r *Run) highest() *G {
	best, at := r.runnable[0], 0
	for i, g := range r.runnable[1:] {
		if g.prio > best.prio {
			best, at = g, i+1
		}
	}
	r.choice = int64(at)
	return best
}
