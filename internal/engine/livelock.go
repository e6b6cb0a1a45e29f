package engine

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Progress, livelock, the step bound, and goroutines left behind.
//
// A run makes progress when a goroutine starts, exits, or blocks and is
// woken (by another goroutine or by a timer, which is how the clock's
// advances count), or takes a spin lock it spun for (a CompareAndSwap that
// swaps after one whose shim told it failed, spin.go): that is what a
// program that does its work does, however many steps the work takes. A
// goroutine that blocks makes progress too, for the livelock window: it
// stopped running, as the workers of a pool do once each got through a
// contended spin lock, however many points the others spun meanwhile (a
// random walk gives the lock's holder about one point in n, so n workers
// take of the order of n² points to get through). A goroutine blocks at
// most once more than it is woken, so blocking cannot hide a livelock: it
// delays the report by a window per goroutine at most. At the step bound a
// block counts as a timer's wake does, not as work: a goroutine that a
// timer woke and that blocks again is a ticker's loop, beside which
// goroutines that spin are still a livelock. A livelock is the absence of
// progress while goroutines keep running and yielding or polling:
// sched.Yield and runtime.Gosched, a TryLock that fails or a select that
// takes its default case (the shims tell those with G.Polled). Those are
// the futile points (Run.spins): goroutines that make them spin, waiting
// for each other.
//
// A run is a livelock when, for a window of scheduling points (a
// hundredth of the step bound, at least livelockWindow, and
// windowPerGoroutine per live goroutine), it made no progress and at least
// one point in spinShare was futile. A goroutine that computes between
// scheduling points without yielding (a loop of 200,000 locked operations,
// a loop of atomic operations) is working, as far as the scheduler can
// tell, not spinning: only the step bound (Config.MaxSteps) stops it. The
// step bound reports a livelock when the run made no progress for the
// window before it (or none but goroutines woken by timers: spinners beside
// a ticker) while its goroutines spun. Otherwise the run outgrew the bound
// while doing its work (a pool test submitting 100,000 tasks, a million
// operations on one goroutine): it is not a failure, and the exploration
// ends there. The run goes on unexplored (pickPast): the running goroutine
// keeps the turn until it blocks, yields, polls and finds nothing, or has
// run pastSlice points, and the turn then passes round the runnable
// goroutines in ID order, as a cooperative scheduler with Go's fairness
// would run the program, drawing nothing. It is bounded by pastFactor times
// the step bound; a run that reaches that went on too long (StepBound),
// whether it kept making progress or worked without it. None of this
// depends on the wall clock: the same schedule ends the same way at the
// same step.
//
// After the body returns, the goroutines it left behind have a budget to
// finish: they may exit or block for good (the leak oracle then names
// those blocked), but goroutines that keep running on timers (a janitor's
// ticker) or keep running at all are left behind as goleak would find
// them: when the clock advanced leftTickLimit times and by leftTime, or
// the run took a window of scheduling points, without one of them
// exiting, the run fails with a leak that names where each runs and where
// it was started.

// progressState is what the livelock and left-behind oracles keep.
type progressState struct {
	progressAt int        // r.steps at the last progress event, a goroutine blocking included
	workAt     int        // r.steps at the last progress event that was neither a timer's (a timer woke or started a goroutine) nor a goroutine blocking
	spins      int        // futile points since then: a Yield (G.Yield), a poll that found nothing (G.Polled, counted at the next point)
	checkAt    int        // the step at which Point next checks the bounds
	epoch      uint32     // progress events so far but timers': a goroutine's spin locations belong to one
	spinLocs   []spinLocs // detail mode: by goroutine ID-1

	// After the body returned: the fewest goroutines left so far, the step
	// and the time at which their number fell to it, and the clock
	// advances since.
	leftMin, leftAt, leftTicks int
	leftSince                  time.Duration
	leftSpent                  bool // the goroutines left ran on timers past their budget

	// bodyAt is the time at which the body returned.
	bodyAt time.Duration

	// pastAt is the step at which the run outgrew the step bound and went
	// on unexplored, 0 while it explores; slice is how many points in a row
	// the running goroutine has had the turn since.
	pastAt, slice int
}

const (
	// livelockWindow is the least number of scheduling points without
	// progress that makes a livelock: the step bound of earlier versions,
	// so that a real livelock costs a run what it did.
	livelockWindow = 100_000
	// windowPerGoroutine widens the window with the goroutines alive:
	// goroutines that spin while another works to release them each take
	// a point per round.
	windowPerGoroutine = 1_000
	// windowShare: the window is at least this fraction of the step bound,
	// which is how a test that does more work between blocking operations
	// raises it (-dst.maxsteps).
	windowShare = 100
	// spinShare: at least one point in spinShare of the stretch without
	// progress was futile, for the stretch to be a livelock.
	spinShare = 16
	// leftTickLimit and leftTime are how many times the clock may advance,
	// and by how much, after the body returned without any goroutine left
	// behind exiting: it takes both to make a leak. A second is about as
	// long as goleak waits for goroutines to exit.
	leftTickLimit = 100
	leftTime      = time.Second
	// maxSpinLocs is how many recent distinct locations a goroutine's
	// report lists, in detail mode.
	maxSpinLocs = 8
	// pastFactor: a run that outgrew the step bound while working goes on
	// unexplored until it reaches pastFactor times the bound.
	pastFactor = 10
	// pastSlice is how many scheduling points in a row a goroutine keeps
	// the turn, unexplored, while others can run: Go preempts one that has
	// run for 10 ms, some hundreds of thousands of operations; a shorter
	// slice costs a switch per slice, and lets others run sooner.
	pastSlice = 100
)

// DefaultMaxSteps is the step bound when Config.MaxSteps is 0: where the
// exploration of a run that works for longer ends (pastFactor times it
// stops a run that never ends).
const DefaultMaxSteps = 2_000_000

// bound is the step at which checkBounds next decides: the step bound
// while the run explores, pastFactor times it once the run went past it.
//
//go:norace
func (r *Run) bound() int {
	if r.pastAt != 0 {
		return r.cfg.MaxSteps * pastFactor
	}
	return r.cfg.MaxSteps
}

// window is the number of scheduling points without progress after which
// a spinning run is a livelock, and after which goroutines left behind by
// the body are a leak.
//
//go:norace
func (r *Run) window() int {
	return max(livelockWindow, windowPerGoroutine*r.live, r.cfg.MaxSteps/windowShare)
}

// progressed notes a progress event: a goroutine started, exited, or was
// woken.
//
//go:norace
func (r *Run) progressed() {
	r.progressAt, r.spins = r.steps, 0
	if !r.firing {
		r.workAt = r.steps
		r.epoch++
	}
}

// blocked notes that a goroutine blocked: progress for the livelock window
// (progressAt), not work (workAt).
//
//go:norace
func (r *Run) blocked() {
	r.progressAt, r.spins = r.steps, 0
}

// leftBehind notes, when the body has returned, that the goroutines left
// number r.live: a new low starts their budget afresh.
//
//go:norace
func (r *Run) leftBehind(g *G) {
	if g == r.root {
		r.bodyAt = r.now
	}
	if g == r.root || r.live < r.leftMin {
		r.leftMin, r.leftAt, r.leftTicks, r.leftSince = r.live, r.steps, 0, r.now
	}
}

// advanceIdle advances the clock for a run in which no goroutine can run
// (see advance), unless the body has returned and the goroutines it left
// have run on timers for leftTickLimit advances and leftTime without any
// exiting: they are left behind, and the stall that follows reports them.
//
//go:norace
func (r *Run) advanceIdle() bool {
	if r.root.state != gExited {
		return r.advance()
	}
	if r.leftTicks >= leftTickLimit && r.now-r.leftSince >= leftTime {
		r.leftSpent = true
		return false
	}
	if !r.advance() {
		return false
	}
	r.leftTicks++
	return true
}

// checkBounds is reached by Point at r.checkAt: it fails the run at the
// step bound, for a livelock, or for goroutines left behind that keep
// running, and otherwise sets the next check.
//
//go:norace
func (r *Run) checkBounds(g *G) {
	w := r.window()
	quiet := r.steps - r.progressAt
	left := r.root.state == gExited
	switch {
	case r.steps > r.bound():
		f := r.boundFailure(quiet, w)
		if f.Kind == StepBound && r.pastAt == 0 {
			r.pastAt, r.slice = r.steps, 0 // it works: go on, unexplored
			break
		}
		g.failNow(r.stoppedAt(g, f))
	case left && r.steps-r.leftAt >= w:
		r.leftRunning(g, r.steps-r.leftAt)
	case quiet >= w && r.spins*spinShare >= quiet:
		if left {
			r.leftRunning(g, quiet)
		}
		g.failNow(r.stoppedAt(g, r.livelockFailure(quiet, false)))
	}
	next := min(r.bound()+1, r.progressAt+w)
	if left {
		next = min(next, r.leftAt+w)
	}
	if next <= r.steps {
		// No progress for the window, but too few futile points: look
		// again once a few more were possible.
		next = r.steps + max(1, w/spinShare)
	}
	r.checkAt = next
}

// boundFailure is the failure of a run that reached the step bound: a
// livelock if it made no progress for the window before it (or half the
// bound, when the bound is smaller than the window), or none but timers
// waking goroutines (spinners beside a ticker), while its goroutines spun;
// else a run that went on too long (StepBound), making progress or
// working without it.
//
//go:norace
func (r *Run) boundFailure(quiet, w int) *Failure {
	long := min(w, r.cfg.MaxSteps/2)
	stuck := r.steps - r.workAt
	spinning := r.spins*spinShare >= quiet
	switch {
	case (quiet >= long || stuck >= long) && spinning:
		return r.livelockFailure(stuck, true)
	case stuck >= long:
		return &Failure{Kind: StepBound, Place: r.placesOf("running", false), Message: fmt.Sprintf(
			"step bound: the run reached %d scheduling points without ending%s, and made no progress in its last %d "+
				"(no goroutine blocked and was woken, started or exited) while %d goroutine(s) kept running without "+
				"yielding or polling: a loop that computes for ever or busy-waits on memory without yielding, or more "+
				"work than the bound (raise it with -dst.maxsteps)",
			r.bound(), r.pastNote(), stuck, len(r.runnable))}
	}
	// No place: which goroutines can run at the bound is chance, in a run
	// that keeps blocking and waking.
	return &Failure{Kind: StepBound, Message: fmt.Sprintf(
		"step bound: the run reached %d scheduling points without ending%s, though it kept making progress "+
			"(goroutines blocked and were woken, started or exited; the last time at step %d): an endless loop "+
			"that blocks and wakes (a poller whose condition never comes, a server nobody stops), or a test that "+
			"needs more steps: raise the bound with -dst.maxsteps",
		r.bound(), r.pastNote(), r.progressAt)}
}

// pastNote says, in a failure at the bound, that the run went on
// unexplored past the step bound.
//
//go:norace
func (r *Run) pastNote() string {
	if r.pastAt == 0 {
		return ""
	}
	return fmt.Sprintf(" (its exploration ended at the step bound of %d, %d times less; it went on unexplored, "+
		"each goroutine running until it blocked, yielded or polled, or for %d points)", r.cfg.MaxSteps, pastFactor, pastSlice)
}

// pickPast chooses the goroutine that runs next once the run has gone on
// past the step bound, unexplored, drawing nothing: cur keeps the turn
// unless it yields, its last operation polled and found nothing, or it has
// had pastSlice points in a row; then the first runnable goroutine after
// the one that ran, in ID order, round the set.
//
//go:norace
func (r *Run) pickPast(cur *G, yield bool) *G {
	if cur != nil && !yield && cur.poll != pollIdle && r.slice < pastSlice {
		r.slice++
		return cur
	}
	r.slice = 0
	from := r.cur.ID
	if cur != nil {
		from = cur.ID
	}
	k := r.rank.below(from + 1)
	if k == len(r.runnable) {
		k = 0
	}
	return r.runnableAt(k)
}

// livelockFailure is the failure of a run that made no progress for quiet
// scheduling points while its goroutines kept running; atBound says the
// step bound stopped it.
//
//go:norace
func (r *Run) livelockFailure(quiet int, atBound bool) *Failure {
	n := len(r.runnable)
	what := fmt.Sprintf("livelock: %d goroutine(s) kept running for %d scheduling points without progress", n, quiet)
	if atBound {
		what = fmt.Sprintf("livelock: the run reached the step bound of %d scheduling points, with no progress in the last %d, "+
			"while %d goroutine(s) kept running", r.bound(), quiet, n) + r.pastNote()
	}
	timers := ""
	if r.progressAt > r.workAt {
		timers = ", but for goroutines that timers woke"
	}
	return &Failure{Kind: Livelock, Place: r.placesOf("spinning", false), Message: what + fmt.Sprintf(
		" (none blocked and was woken, started or exited%s; %d of the last %d points were a Yield or a poll that "+
			"found nothing): they spin, waiting for each other; the report shows where each spun. A test that does "+
			"that much work between two blocking operations needs a larger bound (-dst.maxsteps: the window is a "+
			"hundredth of it)",
		timers, r.spins, r.steps-r.progressAt)}
}

// leftRunning fails the run, from a scheduling point of g, for goroutines
// that the body left behind and that ran for steps scheduling points
// without any of them exiting, unless every one is ignored (then the run
// ends there and passes).
//
//go:norace
func (r *Run) leftRunning(g *G, steps int) {
	leaked := r.unignored()
	if len(leaked) == 0 {
		g.endNow(r.endOfBody())
	}
	g.failNow(r.stoppedAt(g, &Failure{Kind: Leak, Place: r.placesOf("running", true), Message: fmt.Sprintf(
		"leak: the test body returned but %d goroutine(s) are still running: they ran for %d scheduling points "+
			"and none exited%s; goleak would report them as unexpected goroutines: stop them before the test "+
			"returns, or ignore a known one (Options.IgnoreTopFunction, -dst.ignoretop)",
		len(leaked), steps, r.spinNote())}))
}

// stoppedAt marks f as the failure of g, which an oracle stops at a
// scheduling point where Go would have let it go on.
func (r *Run) stoppedAt(g *G, f *Failure) *Failure {
	f.G, f.stopped = g.ID, true
	return f
}

// spinNote says, for goroutines left behind that keep running, whether they
// spin.
//
//go:norace
func (r *Run) spinNote() string {
	if q := r.steps - r.progressAt; q > 0 && r.spins*spinShare >= q {
		return fmt.Sprintf(" (%d of the last %d points were a Yield or a poll that found nothing: they spin)", r.spins, q)
	}
	return ""
}

// endOfBody is the failure of a run whose body returned and whose
// goroutines left behind are all ignored: none, or the errors the body
// reported.
//
//go:norace
func (r *Run) endOfBody() *Failure {
	if len(r.errors) > 0 {
		return &Failure{Kind: TestFailed, Message: strings.Join(r.errors, "\n"), Place: places(r.errorAt), Check: r.firstCheck}
	}
	return nil
}

// endNow ends the run with f (nil: it passes) from a scheduling point of
// g: g leaves with runtime.Goexit and no goroutine runs again.
//
//go:norace
func (g *G) endNow(f *Failure) {
	if f != nil {
		g.failNow(f)
	}
	g.run.stopping = true
	g.fatal = true
	runtime.Goexit()
}

// placesOf is where the goroutines that can run (with blocked, every
// goroutine alive) are, as a failure's place: each one's function (the
// outermost of the user's on its stack, where it loops, which does not
// depend on the point it stopped at), each once, sorted, after what they
// do ("spinning in f, g").
//
//go:norace
func (r *Run) placesOf(doing string, blocked bool) string {
	stacks := r.stacksByID()
	var ps []string
	for _, g := range r.gs {
		if g.state == gExited || g.killed || g.state == gBlocked && !blocked {
			continue
		}
		if l := outermostUser(stacks[g.goid]); l != nil {
			ps = append(ps, shortFunc(l.Func))
		}
	}
	if len(ps) == 0 {
		return ""
	}
	return doing + " in " + places(ps)
}

// stacksByID is every goroutine's stack, by the runtime's goroutine id.
// The watchdog does not count the time it takes (seconds, for a run of
// 20,000 goroutines): it is the engine's, not the goroutine's.
//
//go:norace
func (r *Run) stacksByID() map[int64]string {
	r.reporting.Store(true)
	defer func() {
		r.progress++ // the watchdog measures from here, not from before
		r.reporting.Store(false)
	}()
	stacks := map[int64]string{}
	for _, s := range splitStacks(allStacks()) {
		stacks[s.id] = s.text
	}
	return stacks
}

// outermostUser is the last frame of a goroutine's stack text that is the
// user's: the function the goroutine runs.
func outermostUser(stack string) *Location {
	_, frames := splitFrames(stack)
	for i := len(frames) - 1; i >= 0; i-- {
		if l, ok := userFrame(frames[i]); ok {
			return &l
		}
	}
	return nil
}

// spinLocs is, in detail mode, the recent distinct locations of a
// goroutine's scheduling points since the run last made progress (epoch),
// the most recent last. It is kept beside the goroutines, not in G: a
// goroutine's struct stays within its size class.
type spinLocs struct {
	epoch uint32
	at    []*Location
}

// noteSpin keeps, in detail mode, the recent distinct locations of g's
// scheduling points since the run last made progress other than by
// timers, for the report of a livelock.
//
//go:norace
func (r *Run) noteSpin(g *G) {
	for len(r.spinLocs) < g.ID {
		r.spinLocs = append(r.spinLocs, spinLocs{})
	}
	s := &r.spinLocs[g.ID-1]
	if s.epoch != r.epoch {
		s.epoch = r.epoch
		s.at = s.at[:0]
	}
	if g.at == nil {
		return
	}
	for i, l := range s.at {
		if *l == *g.at {
			copy(s.at[i:], s.at[i+1:])
			s.at[len(s.at)-1] = l
			return
		}
	}
	if len(s.at) == maxSpinLocs {
		copy(s.at, s.at[1:])
		s.at = s.at[:maxSpinLocs-1]
	}
	s.at = append(s.at, g.at)
}

// spinsOf is where g reached scheduling points since the run last made
// progress (detail mode), the most recent last; nil unless the run made
// none for a while.
//
//go:norace
func (r *Run) spinsOf(g *G) []Location {
	if g.ID > len(r.spinLocs) || r.steps-r.workAt < spinReportMin {
		return nil
	}
	s := &r.spinLocs[g.ID-1]
	if s.epoch != r.epoch {
		return nil
	}
	var out []Location
	for _, l := range s.at {
		out = append(out, *l)
	}
	return out
}

// spinReportMin is how long a run must have made no progress for a report
// to list where its goroutines spun.
const spinReportMin = 1_000

// ignored reports whether the goroutine whose stack is given is one the
// leak oracle ignores: its top function (the first of the code under test,
// or of the standard library, above the tool's frames) is one of
// Config.IgnoreTop, or any of its functions is one of Config.IgnoreAny,
// as goleak's IgnoreTopFunction and IgnoreAnyFunction decide.
func (r *Run) ignored(stack string) bool {
	if len(r.cfg.IgnoreTop) == 0 && len(r.cfg.IgnoreAny) == 0 {
		return false
	}
	_, frames := splitFrames(stack)
	top := true
	for _, fr := range frames {
		fn, file, _, ok := parseFrame(fr)
		if !ok || ours(file, fn) {
			continue
		}
		if top && slices.Contains(r.cfg.IgnoreTop, fn) || slices.Contains(r.cfg.IgnoreAny, fn) {
			return true
		}
		top = false
	}
	return false
}

// unignored is the goroutines alive that the leak oracle does not ignore.
//
//go:norace
func (r *Run) unignored() []*G {
	var stacks map[int64]string
	if len(r.cfg.IgnoreTop) > 0 || len(r.cfg.IgnoreAny) > 0 {
		stacks = r.stacksByID()
	}
	var out []*G
	for _, g := range r.gs {
		if g.state == gExited || g.killed || stacks != nil && r.ignored(stacks[g.goid]) {
			continue
		}
		out = append(out, g)
	}
	return out
}
