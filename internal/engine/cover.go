package engine

import "runtime"

// coverState is what interleaving coverage remembers between points: the
// last point's site and goroutine, and the transcript of decisions.
type coverState struct {
	lastSite   uint64
	lastG      int32
	transcript []uint64
}

// Interleaving coverage: what a fuzz loop learns from a run without compiler
// instrumentation. The scheduler counts features into Config.Cover, a map of
// CoverSize saturating hit counters indexed by a feature's hash, in the
// manner of AFL's edge map:
//
//   - a site: an operation on an object, the object named by where the run
//     first used it (its bind site), so the same Mutex gives the same sites
//     in every run;
//   - a handoff: two sites executed back to back by different goroutines,
//     which is what an interleaving is made of;
//   - a blocked pair: two sites where goroutines were blocked at once;
//   - the fault points that fired and the user's reach marks, by name.
//
// Feature hashes depend on program counters, so they are comparable within
// one binary only: a fuzz loop recomputes its corpus's coverage on start.

// CoverSize is the length of a coverage map. A power of two.
const CoverSize = 1 << 15

const coverMask = CoverSize - 1

// Hash tags keep the kinds of feature apart.
const (
	tagSite uint64 = iota + 1
	tagHandoff
	tagBlocked
	tagFault
	tagReach
	tagSpawn
)

//go:norace
func mix(a, b uint64) uint64 {
	h := (a ^ b*0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

// hit counts feature h.
//
//go:norace
func (r *Run) hit(h uint64) {
	c := &r.cfg.Cover[h&coverMask]
	if *c != 255 {
		*c++
	}
}

// siteOf is the coverage identity of op on o.
//
//go:norace
func siteOf(op Op, o *Obj) uint64 {
	s := mix(tagSite, uint64(op))
	if o != nil {
		s = mix(s, o.site)
	}
	return s
}

// coverPoint counts g reaching op on o: its site, and a handoff when the
// previous point was another goroutine's.
//
//go:norace
func (r *Run) coverPoint(g *G, op Op, o *Obj) {
	s := siteOf(op, o)
	g.site = s
	r.hit(s)
	if r.lastG != int32(g.ID) {
		r.hit(mix(mix(tagHandoff, r.lastSite), s))
	}
	r.lastSite, r.lastG = s, int32(g.ID)
}

// coverBlock counts g blocking beside every goroutine already blocked.
//
//go:norace
func (r *Run) coverBlock(g *G) {
	for _, h := range r.gs {
		if h == g || h.state != gBlocked {
			continue
		}
		a, b := g.site, h.site
		if a > b {
			a, b = b, a
		}
		r.hit(mix(mix(tagBlocked, a), b))
	}
}

// coverName counts a named event (a fault that fired, a reach mark).
//
//go:norace
func (r *Run) coverName(tag uint64, name string) {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 0x100000001b3
	}
	r.hit(mix(tag, h))
}

// Reach counts a user's reachability mark, such as "the retry path ran",
// as a coverage feature. It is not a scheduling point.
//
//go:norace
func (g *G) Reach(name string) {
	if g.run.cfg.Cover != nil && g.tear == tearNone {
		g.run.coverName(tagReach, name)
	}
}

// bindSite returns the identity of where the current object is being bound:
// a hash of the first few return addresses above the shim. It costs a stack
// walk (about half a microsecond), paid only with coverage on.
func bindSite() uint64 {
	var pcs [8]uintptr
	n := runtime.Callers(3, pcs[:])
	h := uint64(tagSpawn)
	for _, pc := range pcs[:n] {
		h = mix(h, uint64(pc))
	}
	return h
}
