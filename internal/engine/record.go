package engine

import "github.com/dstgo/dst/internal/event"

// Recording the run's events into its trace buffer.

// event returns an event of kind k by goroutine g (nil: the scheduler
// itself, as when a timer fires) at the current step and time.
//
//go:norace
func (r *Run) event(k event.Kind, g *G) event.Event {
	return event.Event{Kind: k, Step: int64(r.steps), Time: int64(r.now), G: gid(g)}
}

//go:norace
func (r *Run) record(e event.Event) { r.tr.Add(&e) }

//go:norace
func (r *Run) recordOp(k event.Kind, g *G, op Op, o *Obj) {
	var obj int32
	if o != nil {
		obj = o.id
	}
	r.tr.AddOp(k, int64(r.steps), int32(g.ID), int64(r.now), uint8(op), obj, (*event.Location)(g.at))
}

//go:norace
func (r *Run) recordSwitch(from, to *G) {
	r.tr.AddSwitch(int64(r.steps), gid(from), int64(r.now), int32(to.ID), r.choice, int64(len(r.runnable)))
}

// gid is g's id in events; 0 for the scheduler itself.
//
//go:norace
func gid(g *G) int32 {
	if g == nil {
		return 0
	}
	return int32(g.ID)
}
