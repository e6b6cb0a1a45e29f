package engine

// A scripted random walk, for a systematic search (package schedtest's
// "bounded" strategy): the run takes its random-walk choices from
// Config.Script as far as it reaches, and past it the default of each
// decision, and it reports every decision it made (Outcome.Branches), so
// that a search can enumerate the schedules one decision at a time. Its
// decisions are still drawn from the source, with all the weight on the
// one the script makes (Weighted records the index), so that its
// recording is a random walk's and replays decision for decision.

// scriptState is a scripted run's: the decisions so far, and room for the
// weights of the next.
type scriptState struct {
	branches []Branch
	scriptW  []uint64
}

// Branch is one decision of a scripted run: how many goroutines were
// runnable, the choice taken (a random walk's: 0 the goroutine at the
// point, then the others by ID), the choice a script that ends before it
// takes, and whether taking another one preempts a goroutine that could
// have gone on.
type Branch struct {
	N, Choice, Default int
	// Preempts: the goroutine at the point could continue and did not
	// yield, so that any choice but 0 preempts it. A goroutine that
	// blocked, exited or yielded leaves the choice free.
	Preempts bool
}

// defaultChoice is the choice a scripted run makes past its script: the
// goroutine at the point goes on, unless it yielded, when the next one by
// ID after it runs (round robin, so that goroutines that spin on a yield
// let each of the others run); when it blocked, the runnable goroutine of
// lowest ID.
func defaultChoice(cur *G, yield bool, rank, n int) int {
	if cur == nil || !yield {
		return 0
	}
	if rank+1 < n {
		return rank + 1 // the choice of rank rank+1, in fromChoice's order
	}
	return 1
}

// pickScripted is pick for a scripted run, among more than one runnable
// goroutine.
//
//go:norace
func (r *Run) pickScripted(cur *G, yield bool) *G {
	n := len(r.runnable)
	rank := 0
	if cur != nil {
		rank = r.indexOf(cur)
	}
	b := Branch{N: n, Default: defaultChoice(cur, yield, rank, n), Preempts: cur != nil && !yield}
	b.Choice = b.Default
	if i := len(r.branches); i < len(r.cfg.Script) && r.cfg.Script[i] < n {
		b.Choice = r.cfg.Script[i]
	}
	w := r.scriptW[:0]
	for i := range n {
		w = append(w, uint64(b2i(i == b.Choice)))
	}
	c := r.src.At(keyPick).Weighted(w)
	r.scriptW = w[:0]
	r.branches = append(r.branches, b)
	return r.walkTo(cur, c)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
