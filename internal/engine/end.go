package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// endState is what the run reports and how it ends: the failure, the logs
// and faults, who claimed the end, and the channels the semaphore handoff
// tears the run down through.
type endState struct {
	pending  *Failure // recorded by failNow, reported when its goroutine has exited
	stopping bool     // a failure is pending: no more switches
	failure  *Failure
	errors   []string // the body's reported errors (t.Error), for a failure at the end

	// What the body reported besides failing, and the values it drew
	// (when the harness observes them).
	logs     []string
	draws    []string
	faults   []FaultEvent
	faultOff bool

	ended     atomic.Int32 // finish (endedByRun) or the watchdog (endedByWatchdog) claimed the end
	abandoned atomic.Bool  // the watchdog gave up on the running goroutine
	closed    atomic.Bool  // the run is over; its objects may be rebound (markClosed)
	overMu    sync.Mutex   // guards over and overRan
	over      []func()     // to run once the run is over (Obj.WhenRunOver)
	overRan   bool
	external  atomic.Pointer[Failure]
	done      chan struct{}
	ack       chan *G // teardown: each goroutine says it is done
	drain     int     // scheduling points reached after the run's end was decided

	errorAt    []string // where each error was reported (shortLoc), for the failure's place
	firstCheck Location // where the first was, in full (Failure.Check)

	// The functions marked as test helpers (G.Helper), skipped when a
	// failure is placed. A mutex: any goroutine of the run marks them,
	// with no happens-before edge between them under -race.
	helperMu sync.Mutex
	helpers  []string

	// Under -race: the race detector's count of races when the running
	// goroutine last reached a scheduling point, the goroutine that made
	// the first racy access, the report, and whether the run had already
	// failed another way then (datarace.go).
	racesSeen int
	raceG     int
	raceText  string
	raceLate  bool
}

// Who claimed the end of a run (Run.ended).
const (
	endedByRun int32 = iota + 1
	endedByWatchdog
)

// wait blocks the harness until the run ends, and returns the goroutine
// the watchdog gave up on, if it did.
//
//go:norace
func (r *Run) wait() *G {
	<-r.done
	return r.stuck
}

// fireWatchdog ends the run on behalf of the goroutine that stopped
// reaching scheduling points, unless the run ended at the same moment.
//
//go:norace
func (r *Run) fireWatchdog() {
	if coroutines && (r.unwinding.Load() || r.ended.Load() == endedByWatchdog) {
		// A deferred call blocks the unwinding, or the home was not parked
		// when the watchdog gave up on the run: Execute returns, and the
		// rest is unwound if the goroutine ever returns.
		r.tryRescue()
		return
	}
	if !r.ended.CompareAndSwap(0, endedByWatchdog) {
		return // the run ended meanwhile
	}
	if !coroutines {
		r.gone = make(chan struct{}) // before abandoned: the goroutine that leaves closes it
	}
	r.abandoned.Store(true)
	r.tr = nil // the trace ends here
	g := r.cur
	r.stuck = g
	stack := goroutineStack(g.goid)
	_, frames := splitFrames(stack)
	in := calledAt(frames)
	if in != "" {
		in = " in " + in
	}
	advice := "use the sched shims for everything that blocks, or raise -dst.watchdog"
	switch pkg, all := unrewrittenDependency(stack); {
	case pkg != "" && all:
		advice = fmt.Sprintf("%s blocks outside the scheduler because the rewrite refused it (dstreplay test "+
			"printed why when it started)", pkg)
	case pkg != "":
		advice = fmt.Sprintf("%s blocks outside the scheduler because dstreplay test did not rewrite it: "+
			"-rewrite=%s runs it on the scheduler", pkg, pkg)
	}
	r.failure = &Failure{
		Kind: Watchdog,
		G:    g.ID,
		Step: r.steps,
		Message: fmt.Sprintf("watchdog: goroutine %d ran for %v without reaching a scheduling point%s: "+
			"it is blocked outside the scheduler (a native channel, a sync.Mutex, time.Sleep, I/O, code that is "+
			"not rewritten) or spinning without calling into sched; %s",
			g.ID, max(r.wdStalled, r.cfg.Watchdog).Round(time.Millisecond), in, advice),
		Stack:      renumber(userStack(stack, false), g.ID),
		Goroutines: r.snapshot(),
	}
	if coroutines {
		r.tryRescue()
		return
	}
	close(r.done)
}

// teardown ends every goroutine the run left parked, one at a time, each
// with runtime.Goexit so that its deferred calls run. In race builds every
// goroutine first publishes its history, so that deferred calls running in
// this artificial order are not reported as races against each other.
//
//go:norace
func (r *Run) teardown() {
	var gs []*G
	for _, g := range r.gs {
		if g.state != gExited {
			gs = append(gs, g)
		}
	}
	if len(gs) == 0 {
		return
	}
	r.ack = make(chan *G, 2*len(gs))
	timeout := r.cfg.Watchdog
	if timeout <= 0 {
		timeout = unwindLimit
	}
	if RaceEnabled {
		for _, g := range gs {
			r.tearDown(g, tearSync, timeout)
		}
	}
	for _, g := range gs {
		r.tearDown(g, tearExit, timeout)
	}
}

//go:norace
func (r *Run) tearDown(g *G, mode uint8, timeout time.Duration) {
	g.tear = mode
	r.cur = g // its deferred calls run as a managed goroutine of the run
	semrelease(&g.sema, false, 0)
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case done := <-r.ack:
			if done == g {
				return
			}
			// A late ack from a goroutine whose turn timed out.
		case <-t.C:
			return // a deferred call blocked outside the scheduler; leave it
		}
	}
}

// renumber gives a stack's header ("goroutine 23 [sleep]:") the run's
// number for the goroutine, which the rest of a report uses, instead of the
// runtime's.
func renumber(stack string, id int) string {
	rest, ok := strings.CutPrefix(stack, "goroutine ")
	if i := strings.Index(rest, " ["); ok && i >= 0 {
		return fmt.Sprintf("goroutine %d%s", id, rest[i:])
	}
	return stack
}

// goroutineStack returns the stack of the goroutine with the given id, from
// a dump of all goroutines.
func goroutineStack(id int64) string {
	for _, s := range splitStacks(allStacks()) {
		if s.id == id {
			return s.text
		}
	}
	return ""
}

func allStacks() []byte {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// unrewrittenDependency is, for the stack of a goroutine blocked outside
// the scheduler, the package of a module at a version (a dependency, from
// the module cache) whose code blocks, when the process runs code that
// dstreplay test rewrote but not that package: its channels and locks are
// Go's, so the run cannot see what would wake it. It is "" otherwise. all
// says that dstreplay test rewrote every dependency it could (-rewrite=...,
// its default): the package is one the rewrite refused.
func unrewrittenDependency(stack string) (pkg string, all bool) {
	marker := os.Getenv("DST_REWRITTEN") // "1", or dstreplay test's flags: "-wrap -rewrite=...,a/...,b"
	if marker == "" || !nativeBlocked(stack) {
		return "", false
	}
	if header, _ := splitFrames(stack); strings.Contains(header, "[syscall") || strings.Contains(header, "[IO wait") {
		return "", false // I/O blocks rewritten code too: the dependency may well be rewritten
	}
	patterns := RewritePatterns(marker)
	_, frames := splitFrames(stack)
	for _, fr := range frames {
		l, ok := userFrame(fr)
		if !ok {
			continue
		}
		if pkg := funcPackage(l.Func); strings.Contains(filepath.ToSlash(l.File), "@v") && !matchesNamed(patterns, pkg) {
			return pkg, slices.Contains(patterns, "...")
		}
		return "", false // the user's own code, rewritten, blocks natively
	}
	return "", false
}

// RewritePatterns are the -rewrite patterns of dstreplay test's flags as
// it gives them to the test binary in DST_REWRITTEN (marker: "-wrap
// -rewrite=...,a/...,b").
func RewritePatterns(marker string) []string {
	for f := range strings.FieldsSeq(marker) {
		if v, ok := strings.CutPrefix(f, "-rewrite="); ok {
			return strings.Split(v, ",")
		}
	}
	return nil
}

// matchesNamed reports whether one of the patterns, other than "..."
// (every dependency, bar those the rewrite refused), matches pkg.
func matchesNamed(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if lit, wild := strings.CutSuffix(p, "/..."); wild && (pkg == lit || strings.HasPrefix(pkg, lit+"/")) || p == pkg {
			return true
		}
	}
	return false
}
