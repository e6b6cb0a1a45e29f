package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dstgo/dst/trace"
)

// What the commands that list events (show, the stepper, html, export,
// summary, diff) share, so that they agree: how events are numbered, how a
// preemption reads, which events are hidden unless asked for.

// eventNumber is how every command numbers event i of a trace (its index):
// from 1, as the stepper, which people meet first, always has.
func eventNumber(i int64) int64 { return i + 1 }

// preemptWord replaces "switch" in the line of a switch that preempted its
// goroutine: in a bug that needs one preemption, that switch is the bug.
const preemptWord = "preempt"

// eventLine is e's text line (Event.Format), saying "preempt" for a switch
// that is a preemption, with its control characters escaped (termSafe):
// labels, messages and locations come from the trace.
func eventLine(e *trace.Event, labels map[int32]string, preempt bool) string {
	l := e.Format(labels)
	if preempt && e.Kind == trace.KindSwitch {
		l = strings.Replace(l, " "+trace.KindSwitch.String()+" ", " "+preemptWord+" ", 1)
	}
	return termSafe(l)
}

// unfiredFault reports whether e is a fault point that did not fire: a
// draw that changed nothing, which listings hide unless asked, since a
// run with faults draws them at every fault point.
func unfiredFault(e *trace.Event) bool { return e.Kind == trace.KindFault && e.Arg == 0 }

// preemptionText describes a preemption: the switch e, event i, and the
// preempted goroutine's last event before it (nil if none), with labels
// naming objects: "step 7 (event 16): g2 preempted before Mutex#3.Lock at
// bodies_test.go:18; g3 ran".
func preemptionText(i int64, e, before *trace.Event, labels map[int32]string) string {
	s := fmt.Sprintf("step %d (event %d): g%d preempted", e.Step, eventNumber(i), e.G)
	if before != nil && before.Kind == trace.KindOp {
		what := trace.OpName(before.Op)
		if l, ok := labels[before.Obj]; ok {
			what = l + "." + what
		}
		s += " before " + what
	}
	if before != nil && before.Loc.File != "" {
		s += fmt.Sprintf(" at %s:%d", filepath.Base(before.Loc.File), before.Loc.Line)
	}
	return termSafe(s + fmt.Sprintf("; g%d ran", e.Arg))
}
