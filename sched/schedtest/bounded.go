package schedtest

import (
	"fmt"
	"slices"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/schedule"
)

// The bounded strategy: a systematic search over the schedules with at most
// Options.Preemptions preemptions, after Musuvathi and Qadeer's iterative
// context bounding (CHESS) and loom's preemption bound. Most concurrency
// bugs need only a few preemptions, and a small test has few schedules
// within such a bound: running them all proves the test has no failure
// there, which no number of random schedules does.
//
// Each schedule is a scripted random walk (engine/script.go): the choices
// of the schedule before, up to a decision taken another way, then each
// decision's default (no preemption). The search is a depth-first walk of
// the tree of decisions that keeps no state but the last run's decisions:
// the next schedule changes the deepest decision that has an alternative
// left within the bound. The other draws of a run (timers due at the same
// instant, map orders, faults, math/rand) come from the exploration's
// seed: the proof holds for those values.

// defaultPreemptions is Options.Preemptions when none is given.
const defaultPreemptions = 2

// boundedExplore runs the schedules within the bound until one fails, the
// budget is spent, or none is left (x.exhausted).
func boundedExplore(o Options, name string, tb tbase, body func(*T), logf func(string, ...any)) exploration {
	x := exploration{base: o.Seed}
	if x.base == 0 {
		x.base = randomSeed()
	}
	bound := max(o.Preemptions, 0)
	start := time.Now()
	failedBefore := tb != nil && tb.Failed()
	script := []int{}
	for i := 0; i < o.Iterations; i++ {
		if x.stopEarly(o, i, start) {
			break
		}
		x.s = plan{index: i, Schedule: schedule.Schedule{Strategy: engine.Random, Seed: x.base}, script: script}
		x.res, x.note = x.s.run(o, name, tb, body)
		x.noteNatives(x.res)
		x.n++
		x.res.Schedule = x.n
		if logf != nil {
			logf("sched: schedule %d (%s): %s", x.n, x.s.describe(x.res), outcome(x.res))
		}
		if x.res.Failure != nil {
			break
		}
		if !failedBefore && tb != nil && tb.Failed() {
			x.outerFailed = true
			break
		}
		br := x.res.branches
		for j, c := range script {
			if j >= len(br) || br[j].Choice != c {
				x.err = fmt.Errorf("the bounded search stopped at schedule %d: its run did not make the decisions of the schedule "+
					"before it up to the one changed (decision %d of %d): the test depends on something the scheduler does not "+
					"control (map iteration order, time.Now, goroutines started with a plain go statement, package-level state)",
					x.n, j+1, len(script))
				x.elapsed = time.Since(start)
				return x
			}
		}
		next, ok := nextScript(br, bound)
		if !ok {
			x.exhausted = true
			break
		}
		script = next
	}
	x.res.Exhausted = x.exhausted
	x.elapsed = time.Since(start)
	return x
}

// nextScript is the script of the schedule after the run whose decisions
// were br: the deepest decision with an alternative left within the bound
// takes it, and those after it their defaults. Each decision's
// alternatives are tried in one order: its default, then the others from
// choice 0 up. ok is false when no decision has one left.
func nextScript(br []engine.Branch, bound int) (next []int, ok bool) {
	used := make([]int, len(br)+1) // used[i]: the preemptions of the decisions before i
	for i, b := range br {
		used[i+1] = used[i] + preemptionCost(b, b.Choice)
	}
	for i := len(br) - 1; i >= 0; i-- {
		b := br[i]
		for c := range alternativesAfter(b) {
			if used[i]+preemptionCost(b, c) <= bound {
				next = make([]int, i+1)
				for j := range i {
					next[j] = br[j].Choice
				}
				next[i] = c
				return next, true
			}
		}
	}
	return nil, false
}

// alternativesAfter yields the choices of b that come after b.Choice in
// the order the search tries them: b.Default, then 0, 1, ... without it.
func alternativesAfter(b engine.Branch) func(func(int) bool) {
	return func(yield func(int) bool) {
		order := make([]int, 0, b.N)
		order = append(order, b.Default)
		for c := range b.N {
			if c != b.Default {
				order = append(order, c)
			}
		}
		i := slices.Index(order, b.Choice)
		for _, c := range order[i+1:] {
			if !yield(c) {
				return
			}
		}
	}
}

// preemptionCost is 1 when choice c of b preempts a goroutine that could
// have gone on.
func preemptionCost(b engine.Branch, c int) int {
	if b.Preempts && c != 0 {
		return 1
	}
	return 0
}

// boundedNote says what a bounded search that found nothing proved, or how
// far it got.
func boundedNote(o Options, x exploration) string {
	within := "no preemption"
	switch k := max(o.Preemptions, 0); k {
	case 0:
	case 1:
		within = "at most 1 preemption"
	default:
		within = fmt.Sprintf("at most %d preemptions", k)
	}
	if x.exhausted {
		return fmt.Sprintf("all %d schedules with %s ran and passed: no schedule within the bound fails "+
			"(with the other draws, such as timers due together, map orders and faults, from seed %#x)", x.n, within, x.base)
	}
	return fmt.Sprintf("%d schedules with %s ran and passed; the search did not finish within the budget "+
		"(raise -dst.iters or -dst.time, or lower -dst.preemptions)", x.n, within)
}
