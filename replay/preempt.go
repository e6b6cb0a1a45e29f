package replay

import "github.com/dstgo/dst/trace"

// A preemption is a switch away from a goroutine that could have gone on:
// its last event before the switch is an operation it reached (a
// scheduling point), not a block and not its exit. That is what the engine
// counts as one (Outcome.Preemptions): a switch made at a scheduling point,
// rather than after the goroutine blocked or exited. Events of the
// scheduler itself (timers firing, wakes they cause) may come between a
// goroutine's last event and the switch; they do not change what it was
// doing.

// preempts reports whether a switch away from a goroutine whose last event
// was of kind last is a preemption.
func preempts(last trace.Kind) bool { return last != trace.KindBlock && last != trace.KindExit }

// Preemptions follows a trace read in order, event by event, and says
// which switches are preemptions. Its zero value is ready for the first
// event.
type Preemptions struct {
	last map[int32]*trace.Event // each goroutine's last event other than a switch away
}

// Next takes the trace's next event e, and reports whether it is a
// preemption; if it is, before is the preempted goroutine's last event (its
// operation, with the location it has in a detailed trace), or nil when it
// had none.
func (p *Preemptions) Next(e *trace.Event) (preempt bool, before *trace.Event) {
	if p.last == nil {
		p.last = map[int32]*trace.Event{}
	}
	if e.Kind == trace.KindSwitch {
		l := p.last[e.G]
		if l == nil {
			return true, nil
		}
		return preempts(l.Kind), l
	}
	if l := p.last[e.G]; l != nil {
		*l = *e
	} else {
		c := *e
		p.last[e.G] = &c
	}
	return false, nil
}

// IsPreemption reports whether event i of r is a switch that preempted its
// goroutine, as Preemptions does, looking back from i for the goroutine's
// last event (a few events back: the switch follows it closely). before is
// that event, as for Preemptions.Next.
func IsPreemption(r *trace.Reader, i int64) (preempt bool, before *trace.Event, err error) {
	e, err := r.Event(i)
	if err != nil || e.Kind != trace.KindSwitch {
		return false, nil, err
	}
	for j := i - 1; j >= 0; j-- {
		p, err := r.Event(j)
		if err != nil {
			return false, nil, err
		}
		if p.G == e.G {
			return preempts(p.Kind), &p, nil
		}
	}
	return true, nil, nil
}

// IsPreemption reports whether event i is a switch that preempted its
// goroutine (see the package function IsPreemption).
func (c *Cursor) IsPreemption(i int64) (bool, error) {
	ok, _, err := IsPreemption(c.r, i)
	return ok, err
}
