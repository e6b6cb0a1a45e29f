package engine

import (
	"fmt"
	"strings"

	"github.com/dstgo/dst/internal/event"
)

// Crash ends the goroutines of g's run that dead reports, as the crash of
// a process ends its threads: none runs again or is woken, no deferred
// call of theirs runs while the run lasts (the teardown unwinds them at
// its end, as it does the goroutines a run leaves behind), and they count
// neither as blocked (a deadlock) nor as left behind (a leak). What they
// held stays held: a lock one of them held blocks whoever takes it next.
// When dead reports g itself, g ends last: Crash does not return to it.
// The run's log names the goroutines. It returns how many ended besides g.
//
//go:norace
func (g *G) Crash(dead func(*G) bool) int {
	r := g.run
	self := false
	var ids []string
	for _, h := range r.gs {
		if h.state == gExited || h.killed || !dead(h) {
			continue
		}
		ids = append(ids, fmt.Sprint(h.ID))
		if h == g {
			self = true
			continue
		}
		if h.state == gRunnable {
			r.removeRunnable(h)
			h.state = gBlocked
		}
		h.killed = true
		h.op, h.obj = OpCrash, nil
		r.live--
		if r.tr != nil {
			r.recordOp(event.KindBlock, h, OpCrash, nil) // where it was
		}
	}
	if len(ids) > 0 {
		g.Log(fmt.Sprintf("crash: goroutine(s) %s end", strings.Join(ids, ", ")))
	}
	r.progressed()
	if self {
		g.die()
	}
	return len(ids)
}

// Crashed reports whether Crash ended g.
//
//go:norace
func (g *G) Crashed() bool { return g.killed }

// die ends g, the running goroutine, as Crash ends the others: it blocks
// for ever (nothing wakes a crashed goroutine), and the run goes on with
// another goroutine, or ends.
//
//go:norace
func (g *G) die() {
	g.killed = true
	g.run.live--
	g.block(OpCrash, nil)
	// block returns only when the run ended with g blocked last (stall):
	// only the teardown resumes g, which unwinds it before it gets here.
	g.run.park(g)
	panic("sched: internal error: a crashed goroutine was resumed")
}

// OnCrashPoint makes f run at each of the run's crash points (CrashPoint),
// in place of what ran there before; nil removes it. Package cluster draws
// there whether the node of the goroutine crashes.
//
//go:norace
func (g *G) OnCrashPoint(f func(*G)) { g.run.crashPoint = f }

// CrashPoint is a point where the process g stands for may crash: before a
// write to a connection or a file, and before a sync, where a crash
// changes what outlives it. The shims call it holding none of their locks.
//
//go:norace
func (g *G) CrashPoint() {
	if f := g.run.crashPoint; f != nil && g.tear == tearNone && !g.run.stopping && !g.killed {
		f(g)
	}
}
