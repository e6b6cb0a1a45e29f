package replay

import (
	"fmt"
	"slices"

	"github.com/dstgo/dst/trace"
)

// Cursor walks a trace one event at a time, forward and back, and knows the
// state of every goroutine at the event it is on. Moving to any event costs
// at most one frame's worth of events from the nearest checkpoint.
type Cursor struct {
	r     *trace.Reader
	pos   int64 // the current event; -1 before the first
	state state
	// labels names objects. An object's name never changes once its
	// KindObject event is seen, so one map serves every position and moving
	// back costs the same however many objects the trace has.
	labels map[int32]string
	// checkpoints[k] is the state after event k*checkpointEvery - 1.
	checkpoints []state
	// undo holds what the last events up to pos changed, the latest last.
	undo []change
}

const checkpointEvery = trace.FrameEvents

// GoroutineState is what a goroutine is doing at a point of a trace.
type GoroutineState struct {
	ID     int32
	Parent int32
	State  string // "running", "runnable", "blocked", "exited"
	Op     string // its last operation, or what it is blocked in
	Obj    string // on what object
	Loc    trace.Location
}

type state struct {
	gs     map[int32]*GoroutineState
	labels map[int32]string // shared with the cursor and every checkpoint
	cur    int32
}

func (s *state) clone() state {
	c := state{gs: make(map[int32]*GoroutineState, len(s.gs)), labels: s.labels, cur: s.cur}
	for k, v := range s.gs {
		g := *v
		c.gs[k] = &g
	}
	return c
}

func newState(labels map[int32]string) state {
	return state{gs: map[int32]*GoroutineState{1: {ID: 1, State: "running"}}, labels: labels, cur: 1}
}

func (s *state) g(id int32) *GoroutineState {
	g, ok := s.gs[id]
	if !ok {
		g = &GoroutineState{ID: id, State: "runnable"}
		s.gs[id] = g
	}
	return g
}

// change is what one event changed in a state: the running goroutine
// before it, and up to two goroutines as they were. Undoing it moves the
// cursor back one event at the cost of one.
type change struct {
	cur int32
	n   int
	ids [2]int32
	had [2]bool // the goroutine existed
	was [2]GoroutineState
}

// save records goroutine id as it is, before the event changes it.
func (s *state) save(ch *change, id int32) {
	for j := range ch.n {
		if ch.ids[j] == id {
			return
		}
	}
	g, ok := s.gs[id]
	ch.ids[ch.n], ch.had[ch.n] = id, ok
	if ok {
		ch.was[ch.n] = *g
	}
	ch.n++
}

// undo reverts the event that made ch.
func (s *state) undo(ch *change) {
	for j := ch.n - 1; j >= 0; j-- {
		if ch.had[j] {
			*s.gs[ch.ids[j]] = ch.was[j]
		} else {
			delete(s.gs, ch.ids[j])
		}
	}
	s.cur = ch.cur
}

// apply moves s past e, saving what it changes in ch.
func (s *state) apply(e *trace.Event, ch *change) {
	ch.cur, ch.n = s.cur, 0
	label := func(obj int32) string {
		if l, ok := s.labels[obj]; ok {
			return l
		}
		if obj == 0 {
			return ""
		}
		return fmt.Sprintf("obj#%d", obj)
	}
	switch e.Kind {
	case trace.KindObject:
		s.labels[e.Obj] = trace.ObjectName(e.Text, e.Obj)
	case trace.KindSpawn:
		s.save(ch, int32(e.Arg))
		c := s.g(int32(e.Arg))
		c.Parent = e.G
		if c.State != "running" { // the run's first goroutine starts running
			c.State = "runnable"
		}
	case trace.KindOp:
		s.save(ch, e.G)
		g := s.g(e.G)
		g.Op, g.Obj, g.Loc = trace.OpName(e.Op), label(e.Obj), e.Loc
	case trace.KindBlock:
		s.save(ch, e.G)
		g := s.g(e.G)
		g.State, g.Op, g.Obj, g.Loc = "blocked", trace.OpName(e.Op), label(e.Obj), e.Loc
	case trace.KindWake:
		s.save(ch, int32(e.Arg))
		if g := s.g(int32(e.Arg)); g.State == "blocked" {
			g.State = "runnable"
		}
	case trace.KindSwitch:
		s.save(ch, e.G)
		s.save(ch, int32(e.Arg))
		if g := s.g(e.G); g.State == "running" {
			g.State = "runnable"
		}
		s.g(int32(e.Arg)).State = "running"
		s.cur = int32(e.Arg)
	case trace.KindExit:
		s.save(ch, e.G)
		s.g(e.G).State = "exited"
	}
}

// Open opens the trace file at path and places the cursor before its first
// event.
func Open(path string) (*Cursor, error) {
	r, err := trace.OpenFile(path)
	if err != nil {
		return nil, err
	}
	labels := map[int32]string{}
	return &Cursor{r: r, pos: -1, labels: labels, state: newState(labels), checkpoints: []state{newState(labels)}}, nil
}

// Close closes the trace file.
func (c *Cursor) Close() error { return c.r.Close() }

// Reader is the trace the cursor walks (its header, outcome, events).
func (c *Cursor) Reader() *trace.Reader { return c.r }

// Len is the number of events.
func (c *Cursor) Len() int64 { return c.r.Len() }

// Index is the current event's index, -1 before the first.
func (c *Cursor) Index() int64 { return c.pos }

// Event returns the current event.
func (c *Cursor) Event() (trace.Event, error) {
	if c.pos < 0 {
		return trace.Event{}, fmt.Errorf("replay: the cursor is before the first event")
	}
	return c.r.Event(c.pos)
}

// Next moves to the next event and reports whether there was one.
func (c *Cursor) Next() (bool, error) {
	if c.pos+1 >= c.r.Len() {
		return false, nil
	}
	return true, c.Goto(c.pos + 1)
}

// Prev moves to the previous event and reports whether there was one.
func (c *Cursor) Prev() (bool, error) {
	if c.pos < 0 {
		return false, nil
	}
	return true, c.Goto(c.pos - 1)
}

// Goto moves to event i (-1: before the first). Moving back undoes the
// events passed, one at a time, within a frame's worth of the furthest
// point reached; further back it restarts from the nearest checkpoint.
// Either way a move of one event costs the same anywhere in the trace.
func (c *Cursor) Goto(i int64) error {
	if i < -1 || i >= c.r.Len() {
		return fmt.Errorf("replay: event %d out of range (%d events)", i, c.r.Len())
	}
	if i < c.pos && c.pos-i <= int64(len(c.undo)) {
		for ; c.pos > i; c.pos-- {
			c.state.undo(&c.undo[len(c.undo)-1])
			c.undo = c.undo[:len(c.undo)-1]
		}
		return nil
	}
	if i < c.pos || i-c.pos > checkpointEvery {
		// Restart from the last checkpoint at or before i.
		k := min(int((i+1)/checkpointEvery), len(c.checkpoints)-1)
		c.state = c.checkpoints[k].clone()
		c.pos = int64(k)*checkpointEvery - 1
		c.undo = c.undo[:0]
	}
	for c.pos < i {
		e, err := c.r.Event(c.pos + 1)
		if err != nil {
			return err
		}
		if len(c.undo) == 2*checkpointEvery { // keep the last frame's worth
			c.undo = append(c.undo[:0], c.undo[checkpointEvery:]...)
		}
		c.undo = append(c.undo, change{})
		c.state.apply(&e, &c.undo[len(c.undo)-1])
		c.pos++
		if (c.pos+1)%checkpointEvery == 0 && int((c.pos+1)/checkpointEvery) == len(c.checkpoints) {
			c.checkpoints = append(c.checkpoints, c.state.clone())
		}
	}
	return nil
}

// GotoStep moves to the first event at or after scheduling step n.
func (c *Cursor) GotoStep(n int64) error {
	i, err := c.r.SeekStep(n)
	if err != nil {
		return err
	}
	return c.Goto(min(i, c.r.Len()-1))
}

// NextOf moves to the next event of goroutine g and reports whether there
// was one; the cursor stays put when there is none.
func (c *Cursor) NextOf(g int32) (bool, error) {
	return c.Seek(1, func(e *trace.Event) bool { return e.G == g })
}

// PrevOf moves to the previous event of goroutine g, as NextOf.
func (c *Cursor) PrevOf(g int32) (bool, error) {
	return c.Seek(-1, func(e *trace.Event) bool { return e.G == g })
}

// Seek moves to the nearest event after the current one (dir > 0) or
// before it (dir < 0) for which match is true, and reports whether there
// was one; the cursor stays put when there is none. Object names defined
// by the events it passes are known to Label and Labels when match runs.
func (c *Cursor) Seek(dir int, match func(*trace.Event) bool) (bool, error) {
	return c.SeekIndex(dir, func(_ int64, e *trace.Event) bool { return match(e) })
}

// SeekIndex is Seek with a match that is also given the event's index.
func (c *Cursor) SeekIndex(dir int, match func(int64, *trace.Event) bool) (bool, error) {
	step := int64(1)
	if dir < 0 {
		step = -1
	}
	for i := c.pos + step; i >= 0 && i < c.r.Len(); i += step {
		e, err := c.Peek(i)
		if err != nil {
			return false, err
		}
		if match(i, &e) {
			return true, c.Goto(i)
		}
	}
	return false, nil
}

// Goroutines returns the state of every goroutine after the current event,
// by id.
func (c *Cursor) Goroutines() []GoroutineState {
	out := make([]GoroutineState, 0, len(c.state.gs))
	for _, g := range c.state.gs {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b GoroutineState) int { return int(a.ID - b.ID) })
	return out
}

// Running is the goroutine running after the current event.
func (c *Cursor) Running() int32 { return c.state.cur }

// Label names object obj as far as the cursor has seen ("Mutex#3").
func (c *Cursor) Label(obj int32) string { return c.labels[obj] }

// Peek returns event i without moving the cursor; an object the event
// defines becomes known to Label and Labels.
func (c *Cursor) Peek(i int64) (trace.Event, error) {
	e, err := c.r.Event(i)
	if err == nil && e.Kind == trace.KindObject {
		c.labels[e.Obj] = trace.ObjectName(e.Text, e.Obj)
	}
	return e, err
}

// Labels names the objects the cursor has seen, by id, as trace.Event's
// Format takes them. The map belongs to the cursor: read it, do not keep it
// across moves.
func (c *Cursor) Labels() map[int32]string { return c.labels }
