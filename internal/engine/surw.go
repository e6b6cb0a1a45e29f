package engine

import "github.com/dstgo/dst/entropy"

// SURW, the selectively uniform random walk (Zhao, Wolff, Mathur and
// Roychoudhury, ASPLOS'25; Fray and Shuttle ship it). A random walk that
// picks uniformly among the runnable goroutines at every point does not
// sample interleavings uniformly: a goroutine with few operations left is
// as likely to run next as one with many, so the orders in which a short
// goroutine runs late are rare. Picking each goroutine with a weight equal
// to the events it has left makes every interleaving equally likely; the
// selective walk does so only for the events on a few objects drawn per
// run (the interesting ones), and lets a goroutine run on through its
// other events, so that the orders of the interesting events are uniform
// however many other events surround them.
//
// How many events a goroutine has left is estimated from a profile: the
// events each goroutine (by ID) had, per bucket of objects, in an earlier
// run of the same body (Config.Profile, Outcome.Profile). Without a
// profile every weight is 1.
//
// Its draws are a random walk's: the same uid, a choice among the
// runnable goroutines in the random walk's order (0 the current one, then
// the others by ID), drawn with Weighted, which records the index it
// returns. At a point where the current goroutine runs on it still draws,
// with all the weight on the current one. So a recording of a SURW run
// replays as a random walk, decision for decision, whatever the profile;
// a seed does not reproduce it without the same profile.

// Buckets of objects a profile counts events in: an object's bucket is its
// ID modulo Buckets.
const surwBuckets = 8

// Profile is what a run learnt of how many events its goroutines had: for
// each goroutine, by ID from 1, its scheduling points in each bucket of
// the objects they were on.
type Profile [][surwBuckets]int32

// surwState is SURW's per-run state.
type surwState struct {
	surw      bool  // the strategy is SURW
	surwMask  uint8 // the interesting buckets of this run
	surwRun   int   // consecutive points at which the current goroutine ran on undrawn
	surwSeen  Profile
	surwLeft0 []int32 // per goroutine, by ID from 1: its interesting events in the profile
	surwDone  []int32 // per goroutine: its interesting events so far
	surwW     []uint64
	surwOrder []*G
}

// surwRunLimit bounds how many consecutive points the current goroutine
// runs on through events that are not interesting, so that one spinning on
// an object outside the mask lets the others run.
const surwRunLimit = 100

var keySURW = entropy.KeyOf("sched.surw.mask")

//go:norace
func (r *Run) startSURW() {
	r.surw = true
	v := r.src.At(keySURW).Uint64()
	r.surwMask = uint8(v)
	if r.surwMask == 0 {
		r.surwMask = 1 << (v >> 8 % surwBuckets)
	}
	for _, ev := range r.cfg.Profile {
		n := int32(0)
		for b := range surwBuckets {
			if r.surwMask&(1<<b) != 0 {
				n += ev[b]
			}
		}
		r.surwLeft0 = append(r.surwLeft0, n)
	}
}

//go:norace
func surwBucket(o *Obj) int { return int(o.id) % surwBuckets }

// interesting reports whether an operation on o is one whose order SURW
// makes uniform this run.
//
//go:norace
func (r *Run) interesting(o *Obj) bool {
	return o != nil && r.surwMask&(1<<surwBucket(o)) != 0
}

// surwEvent counts an event of g on o.
//
//go:norace
func (r *Run) surwEvent(g *G, o *Obj) {
	if o == nil {
		return
	}
	for len(r.surwSeen) < g.ID {
		r.surwSeen = append(r.surwSeen, [surwBuckets]int32{})
		r.surwDone = append(r.surwDone, 0)
	}
	r.surwSeen[g.ID-1][surwBucket(o)]++
	if r.interesting(o) {
		r.surwDone[g.ID-1]++
	}
}

// surwLeft is the weight of g: one more than the interesting events the
// profile says it has left.
//
//go:norace
func (r *Run) surwLeft(g *G) uint64 {
	if g.ID > len(r.surwLeft0) {
		return 1
	}
	left := r.surwLeft0[g.ID-1]
	if g.ID <= len(r.surwDone) {
		left -= r.surwDone[g.ID-1]
	}
	return uint64(max(left, 0)) + 1
}

// pickSURW chooses among r.runnable (more than one) as SURW does; cur is
// the goroutine at the point if it can continue.
//
//go:norace
func (r *Run) pickSURW(cur *G, yield bool) *G {
	n := len(r.runnable)
	order := r.surwOrder[:0]
	if cur != nil {
		order = append(order, cur)
	}
	if 8*n < len(r.gs) {
		// Few of the goroutines ever started are runnable.
		for k := range n {
			if g := r.runnableAt(k); g != cur {
				order = append(order, g)
			}
		}
	} else {
		for _, g := range r.gs { // in ID order
			if g != cur && g.ri < n && r.runnable[g.ri] == g {
				order = append(order, g)
			}
		}
	}
	w := r.surwW[:0]
	runOn := cur != nil && !yield && !r.interesting(cur.obj) && r.surwRun < surwRunLimit
	for i, g := range order {
		switch {
		case runOn && i == 0:
			w = append(w, 1)
		case runOn:
			w = append(w, 0)
		case g == cur && yield:
			w = append(w, 1) // a yield lets the others run
		default:
			w = append(w, r.surwLeft(g))
		}
	}
	if runOn {
		r.surwRun++
	} else {
		r.surwRun = 0
	}
	c := r.src.At(keyPick).Weighted(w)
	chosen := order[c]
	for i := range order {
		order[i] = nil
	}
	r.surwOrder, r.surwW = order[:0], w[:0]
	r.choice = int64(r.rank.below(chosen.ID))
	return chosen
}
