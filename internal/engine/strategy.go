package engine

import (
	"slices"

	"github.com/dstgo/dst/entropy"
)

// pctState is what the priority strategies keep: PCT's change points, the
// lowest priority handed out, and how long the same goroutine has kept the turn.
type pctState struct {
	changes    []int
	nextChange int
	minPrio    int64
	streak     int
	posSame    []*G // pickPOS's room
}

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
	// POS is partial order sampling (Yuan et al., CAV'18): every pending
	// operation has a random priority and the highest runs; when an
	// operation runs, the goroutine's next one and every pending operation
	// on the same object get fresh priorities. Unlike a random walk it
	// samples orders of dependent operations nearly uniformly. A goroutine
	// that yields goes below every other, as under PCT.
	POS
	// SURW is the selectively uniform random walk (surw.go): a goroutine
	// is picked with a weight equal to the events it has left on a few
	// objects drawn per run, so that the orders of those events are
	// sampled uniformly.
	SURW
)

func (s Strategy) String() string {
	switch s {
	case Random:
		return "random"
	case PCT:
		return "pct"
	case POS:
		return "pos"
	case SURW:
		return "surw"
	}
	return "strategy?"
}

// Keys of the scheduler's own draws.
var (
	keyPick   = entropy.KeyOf("sched.pick")
	keyPrio   = entropy.KeyOf("sched.pct.priority")
	keyChange = entropy.KeyOf("sched.pct.change")
	keyPOS    = entropy.KeyOf("sched.pos.priority")
	faultSalt = entropy.KeyOf("sched.fault")
)

// starveLimit bounds how many consecutive points PCT lets one goroutine run
// while others are runnable, so a goroutine spinning on an atomic does not
// look like a livelock only because of its priority.
const starveLimit = 1000

//go:norace
func (r *Run) startStrategy() {
	if r.cfg.Strategy == SURW {
		r.startSURW()
	}
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
	switch r.cfg.Strategy {
	case PCT:
		g.prio = int64(r.cfg.Depth) + int64(r.src.At(keyPrio).Uint64()>>2)
	case POS:
		g.prio = r.posPriority()
	}
}

// changePoints lowers the running goroutine's priority when the step count
// reaches a PCT change point: the i-th change point sets it to d-1-i, below
// every initial priority.
//
//go:norace
func (r *Run) changePoints(cur *G) {
	for r.nextChange < len(r.changes) && r.steps >= r.changes[r.nextChange] {
		r.setPrio(cur, int64(r.cfg.Depth-1-r.nextChange))
		r.nextChange++
	}
}

//go:norace
func (r *Run) demote(g *G) {
	r.minPrio--
	r.setPrio(g, r.minPrio)
}

// pick chooses among r.runnable, which is not empty. cur is the goroutine at
// the scheduling point if it can continue, nil if it blocked or exited.
//
//go:norace
func (r *Run) pick(cur *G, yield bool) *G {
	if r.pastAt != 0 {
		return r.pickPast(cur, yield) // past the step bound (livelock.go)
	}
	if r.cfg.Strategy == POS {
		if cur != nil && yield {
			// A yield lets the others run, as Gosched does in Go: without
			// this, goroutines that spin (a CompareAndSwap, then Gosched)
			// redraw their priorities above a lower one's forever, and a
			// runnable goroutine they wait for (a sleeper holding their
			// lock) never runs.
			r.demote(cur)
		}
		return r.transcribe(cur, r.pickPOS())
	}
	if r.surw {
		return r.transcribe(cur, r.pickSURW(cur, yield))
	}
	if r.cfg.Scripted {
		return r.transcribe(cur, r.pickScripted(cur, yield))
	}
	if r.cfg.Strategy != PCT {
		c := 0
		if len(r.runnable) > 1 {
			c = r.src.At(keyPick).Choice(len(r.runnable))
		}
		// walkTo's body, inline: it is too big to be inlined, and this
		// is every random-walk decision.
		k := r.fromChoice(cur, c)
		r.choice = int64(k)
		if cur != nil && c == 0 {
			return r.transcribe(cur, cur)
		}
		return r.transcribe(cur, r.runnableAt(k))
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
	return r.transcribe(cur, best)
}

// highest is the runnable goroutine of highest priority, the lowest ID
// among equals; r.choice is its rank.
//
//go:norace
func (r *Run) highest() *G {
	best := r.prios[0]
	r.choice = int64(r.rank.below(best.ID))
	return best
}

//go:norace
func (r *Run) posPriority() int64 {
	return int64(r.src.At(keyPOS).Uint64() >> 1)
}

// pickPOS runs the goroutine whose pending operation has the highest
// priority, then redraws the priorities its operation affects: its own next
// one, and those of goroutines waiting to operate on the same object.
//
//go:norace
func (r *Run) pickPOS() *G {
	best := r.highest()
	if o := best.obj; o != nil {
		// In ID order, as the priorities are drawn one after the other.
		same := r.posSame[:0]
		for _, g := range r.runnable {
			if g != best && g.obj == o {
				same = append(same, g)
			}
		}
		sortByID(same)
		for i, g := range same {
			r.setPrio(g, r.posPriority())
			same[i] = nil
		}
		r.posSame = same[:0]
	}
	r.setPrio(best, r.posPriority())
	return best
}

// walkTo is the goroutine a random walk's choice c picks, noting its rank
// in r.choice (for the scripted walk; pick has it inline).
//
//go:norace
func (r *Run) walkTo(cur *G, c int) *G {
	k := r.fromChoice(cur, c)
	r.choice = int64(k)
	if cur != nil && c == 0 {
		return cur
	}
	return r.runnableAt(k)
}

// A random walk's choice c among n runnable goroutines means: 0, the current
// goroutine continues (when it can); otherwise the others in ID order. So a
// recording whose choices are all 0 never preempts, and a shrinker that
// lowers choices removes preemptions.

// fromChoice maps choice c to a rank among the runnable goroutines in ID
// order (runnable.go). cur is the goroutine at the point if it can
// continue, else nil.
//
//go:norace
func (r *Run) fromChoice(cur *G, c int) int {
	if cur == nil {
		return c
	}
	k := r.indexOf(cur)
	switch {
	case c == 0:
		return k
	case c <= k:
		return c - 1
	}
	return c
}

// toChoice is the inverse of fromChoice: the choice that picks g.
//
//go:norace
func (r *Run) toChoice(cur, g *G) int {
	j := r.indexOf(g)
	if cur == nil {
		return j
	}
	k := r.indexOf(cur)
	switch {
	case j == k:
		return 0
	case j < k:
		return j + 1
	}
	return j
}

// indexOf is g's rank among the runnable goroutines in ID order (0 if it
// is not runnable).
//
//go:norace
func (r *Run) indexOf(g *G) int {
	if i := g.ri; i < len(r.runnable) && r.runnable[i] == g {
		return r.rank.below(g.ID)
	}
	return 0
}

// transcribe notes, with Config.Transcribe, the random-walk choice that makes
// the same decision as the strategy just did, and returns the chosen one.
//
//go:norace
func (r *Run) transcribe(cur, chosen *G) *G {
	if r.cfg.Transcribe && len(r.runnable) > 1 {
		r.transcript = append(r.transcript, uint64(r.toChoice(cur, chosen)))
	}
	return chosen
}

// StrategyUID reports whether u is one of the uids the strategies draw
// their decisions from (a random walk's choices, PCT's priorities and change
// points, POS's priorities, SURW's interesting objects), as opposed to
// faults, timers and the body's own draws, which are the same whichever
// strategy runs.
func StrategyUID(u entropy.UID) bool {
	switch u.Key() {
	case keyPick, keyPrio, keyChange, keyPOS, keySURW:
		return true
	}
	return false
}

// The keys of the values the rewrite's shims draw in place of Go's own
// randomness: math/rand's global functions and the orders of map ranges
// (package sched/native).
var (
	KeyRand     = entropy.KeyOf("math/rand")
	KeyMapOrder = entropy.KeyOf("map range")
	// KeyPoolEmptied: whether a garbage collection emptied a sync.Pool
	// (sched.Pool) before a Get.
	KeyPoolEmptied = entropy.KeyOf("sched.pool.emptied")
)

// GoRandomUID reports whether u is one of the uids drawn in place of what Go
// leaves to chance in a program of one goroutine: math/rand's values, the
// orders of map ranges and what the garbage collector keeps of a sync.Pool
// (KeyRand, KeyMapOrder, KeyPoolEmptied), how much time passes between
// two readings of the clock, in native work and while polling, and the
// order of timers due at the same time. Neither the strategy's decisions
// nor the faults injected (clock faults included) nor a test's own values.
func GoRandomUID(u entropy.UID) bool {
	switch u.Key() {
	case KeyRand, KeyMapOrder, KeyPoolEmptied, keyReadings, keyNativeStep, keyNativeTime, keySpin, keyTimerOrder:
		return true
	}
	return false
}
