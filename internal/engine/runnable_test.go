package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRunnableSetMatchesSortedSlice drives the runnable set (runnable.go)
// with random spawns, wakes, blocks and priority changes and checks it
// against the sorted slice it replaced: the goroutine of every rank, every
// goroutine's rank, and the goroutine of highest priority (lowest ID among
// equals).
func TestRunnableSetMatchesSortedSlice(t *testing.T) {
	for _, strategy := range []Strategy{Random, PCT} {
		rng := rand.New(rand.NewPCG(1, uint64(strategy)))
		r := &Run{cfg: Config{Strategy: strategy}}
		r.gs, r.runnable = r.gsBuf[:0], r.runnableBuf[:0]
		r.rank.t, r.prios = r.rankBuf[:0], r.priosBuf[:0]
		var model []*G // runnable, sorted by ID
		for step := range 20000 {
			switch op := rng.IntN(10); {
			case op < 2 && len(r.gs) < 3000: // spawn
				g := &G{ID: len(r.gs) + 1, run: r, prio: rng.Int64N(50)}
				r.gs = append(r.gs, g)
				r.addRunnable(g)
				model = append(model, g)
			case op < 5 && len(r.gs) > 0: // wake
				g := r.gs[rng.IntN(len(r.gs))]
				g.state = gBlocked
				if i, found := slices.BinarySearchFunc(model, g.ID, func(x *G, id int) int { return x.ID - id }); !found {
					r.wake(g)
					model = slices.Insert(model, i, g)
				} else {
					g.state = gRunnable
				}
			case op < 8 && len(model) > 0: // block or exit
				i := rng.IntN(len(model))
				r.removeRunnable(model[i])
				model = slices.Delete(model, i, i+1)
			case len(r.gs) > 0: // a new priority, runnable or not
				r.setPrio(r.gs[rng.IntN(len(r.gs))], rng.Int64N(50))
			}
			if len(r.runnable) != len(model) {
				t.Fatalf("%v step %d: %d runnable, want %d", strategy, step, len(r.runnable), len(model))
			}
			if step%97 != 0 && len(model) > 40 {
				continue
			}
			for k, g := range model {
				if got := r.runnableAt(k); got != g {
					t.Fatalf("%v step %d: rank %d holds %d, want %d", strategy, step, k, got.ID, g.ID)
				}
				if got := r.indexOf(g); got != k {
					t.Fatalf("%v step %d: goroutine %d has rank %d, want %d", strategy, step, g.ID, got, k)
				}
			}
			if strategy == PCT && len(model) > 0 {
				best := model[0]
				for _, g := range model[1:] {
					if g.prio > best.prio {
						best = g
					}
				}
				if got := r.highest(); got != best || r.choice != int64(slices.Index(model, best)) {
					t.Fatalf("step %d: highest %d (rank %d), want %d", step, got.ID, r.choice, best.ID)
				}
			}
		}
	}
}

func TestSortByID(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for n := range 40 {
		var s []*G
		for _, id := range rng.Perm(n) {
			s = append(s, &G{ID: id + 1})
		}
		sortByID(s)
		for i, g := range s {
			if g.ID != i+1 {
				t.Fatalf("n=%d: position %d holds %d", n, i, g.ID)
			}
		}
	}
}
