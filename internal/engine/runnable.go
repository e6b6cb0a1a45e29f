package engine

// The runnable set. A strategy's decisions refer to the runnable goroutines
// in ID order: a random walk's choice is a rank among them (fromChoice),
// PCT and POS run the one of highest priority, the lowest ID among equals,
// and a switch records the rank of the goroutine it chose. Waking, blocking,
// exiting and picking cost O(log n) for n goroutines, not O(n), so that a
// run of many goroutines that keep blocking and waking is not quadratic:
//
//   - Run.runnable holds the runnable goroutines in no particular order
//     (G.ri is a goroutine's index there): a goroutine joins at the end and
//     leaves by taking the last one's place. Its length is how many are
//     runnable; iterating it visits each once.
//   - Run.rank counts them by ID in a Fenwick tree, for a goroutine's rank
//     and the goroutine of a given rank.
//   - Run.prios, under PCT and POS, is a binary heap of them by priority,
//     highest first, then by ID (G.hi is a goroutine's index there).

// rankTree is a Fenwick tree over goroutine IDs 1..size (size a power of
// two, doubled as IDs grow) counting the runnable ones: t[i] counts those
// with an ID in (i - i&-i, i].
type rankTree struct {
	t []int32 // t[0] unused
}

//go:norace
func (f *rankTree) size() int {
	if len(f.t) == 0 {
		return 0
	}
	return len(f.t) - 1
}

// grow makes room for ID id. The nodes of the old size keep their ranges;
// of the new nodes, those at a power of two count everything below them,
// the old IDs, and the others count only new IDs, none yet.
//
//go:norace
func (f *rankTree) grow(id int) {
	old := f.size()
	total := int32(0)
	if old > 0 {
		total = f.t[old]
	}
	n := max(old, 8)
	for n < id {
		n *= 2
	}
	if n+1 <= cap(f.t) {
		f.t = f.t[:n+1]
	} else {
		t := make([]int32, n+1, 2*n+1)
		for i := 1; i <= old; i++ {
			t[i] = f.t[i]
		}
		f.t = t
	}
	for i := old + 1; i <= n; i++ {
		f.t[i] = 0
	}
	for p := max(old, 1) * 2; p <= n; p *= 2 {
		f.t[p] = total
	}
}

// add adds d to the count of ID id.
//
//go:norace
func (f *rankTree) add(id int, d int32) {
	if id > f.size() {
		f.grow(id)
	}
	for i := id; i < len(f.t); i += i & -i {
		f.t[i] += d
	}
}

// below counts the runnable goroutines with an ID lower than id.
//
//go:norace
func (f *rankTree) below(id int) int {
	s := int32(0)
	for i := min(id-1, f.size()); i > 0; i -= i & -i {
		s += f.t[i]
	}
	return int(s)
}

// find is the ID of the runnable goroutine of rank k (0-based), which
// exists.
//
//go:norace
func (f *rankTree) find(k int) int {
	n := f.size()
	pos, rem := 0, int32(k+1)
	for step := n; step > 0; step >>= 1 {
		if next := pos + step; next <= n && f.t[next] < rem {
			pos = next
			rem -= f.t[next]
		}
	}
	return pos + 1
}

// addRunnable makes g runnable: its priority, under PCT and POS, is set.
//
//go:norace
func (r *Run) addRunnable(g *G) {
	g.ri = len(r.runnable)
	r.runnable = append(r.runnable, g)
	r.rank.add(g.ID, 1)
	if r.prioOrder() {
		g.hi = len(r.prios)
		r.prios = append(r.prios, g)
		r.prioUp(g.hi)
	}
}

//go:norace
func (r *Run) removeRunnable(g *G) {
	s := r.runnable
	i := g.ri
	if i >= len(s) || s[i] != g {
		return
	}
	last := len(s) - 1
	if i != last {
		s[i] = s[last]
		s[i].ri = i
	}
	s[last] = nil
	r.runnable = s[:last]
	r.rank.add(g.ID, -1)
	if h := r.prios; g.hi < len(h) && h[g.hi] == g {
		i, last := g.hi, len(h)-1
		if i != last {
			h[i] = h[last]
			h[i].hi = i
		}
		h[last] = nil
		r.prios = h[:last]
		if i < last {
			r.prioFix(i)
		}
	}
}

// runnableAt is the runnable goroutine of rank k in ID order.
//
//go:norace
func (r *Run) runnableAt(k int) *G {
	return r.gs[r.rank.find(k)-1]
}

// prioOrder reports whether the strategy runs the goroutine of highest
// priority, so that r.prios is kept.
//
//go:norace
func (r *Run) prioOrder() bool {
	return r.cfg.Strategy == PCT || r.cfg.Strategy == POS
}

// setPrio sets g's priority, keeping r.prios in order.
//
//go:norace
func (r *Run) setPrio(g *G, p int64) {
	g.prio = p
	if h := r.prios; g.hi < len(h) && h[g.hi] == g {
		r.prioFix(g.hi)
	}
}

// before reports whether a runs before b: a higher priority, or the same
// and a lower ID.
//
//go:norace
func before(a, b *G) bool {
	return a.prio > b.prio || a.prio == b.prio && a.ID < b.ID
}

//go:norace
func (r *Run) prioFix(i int) {
	if !r.prioDown(i) {
		r.prioUp(i)
	}
}

//go:norace
func (r *Run) prioUp(i int) {
	h := r.prios
	g := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !before(g, h[p]) {
			break
		}
		h[i] = h[p]
		h[i].hi = i
		i = p
	}
	h[i] = g
	g.hi = i
}

// prioDown moves the goroutine at i down to its place and reports whether
// it moved.
//
//go:norace
func (r *Run) prioDown(i int) bool {
	h := r.prios
	g := h[i]
	start := i
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && before(h[c+1], h[c]) {
			c++
		}
		if !before(h[c], g) {
			break
		}
		h[i] = h[c]
		h[i].hi = i
		i = c
	}
	h[i] = g
	g.hi = i
	return i != start
}

// sortByID sorts s by ID, in place (a heapsort: the sort package's
// accesses would be reported to the race detector, and run state is shared
// without happens-before edges).
//
//go:norace
func sortByID(s []*G) {
	for i := len(s)/2 - 1; i >= 0; i-- {
		siftByID(s, i, len(s))
	}
	for end := len(s) - 1; end > 0; end-- {
		s[0], s[end] = s[end], s[0]
		siftByID(s, 0, end)
	}
}

//go:norace
func siftByID(s []*G, i, n int) {
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && s[c+1].ID > s[c].ID {
			c++
		}
		if s[c].ID <= s[i].ID {
			return
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
}
