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
	// checkpoints[k] is the state after event k*checkpointEvery - 1.
	checkpoints []state
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
	labels map[int32]string
	cur    int32
}

func (s *state) clone() state {
	c := state{gs: make(map[int32]*GoroutineState, len(s.gs)), labels: make(map[int32]string, len(s.labels)), cur: s.cur}
	for k, v := range s.gs {
		g := *v
		c.gs[k] = &g
	}
	for k, v := range s.labels {
		c.labels[k] = v
	}
	return c
}

func newState() state {
	return state{gs: map[int32]*GoroutineState{1: {ID: 1, State: "running"}}, labels: map[int32]string{}, cur: 1}
}

func (s *state) g(id int32) *GoroutineState {
	g, ok := s.gs[id]
	if !ok {
		g = &GoroutineState{ID: id, State: "runnable"}
		s.gs[id] = g
	}
	return g
}

func (s *state) apply(e *trace.Event) {
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
		c := s.g(int32(e.Arg))
		c.Parent, c.State = e.G, "runnable"
	case trace.KindOp:
		g := s.g(e.G)
		g.Op, g.Obj, g.Loc = trace.OpName(e.Op), label(e.Obj), e.Loc
	case trace.KindBlock:
		g := s.g(e.G)
		g.State, g.Op, g.Obj, g.Loc = "blocked", trace.OpName(e.Op), label(e.Obj), e.Loc
	case trace.KindWake:
		if g := s.g(int32(e.Arg)); g.State == "blocked" {
			g.State = "runnable"
		}
	case trace.KindSwitch:
		if g := s.g(e.G); g.State == "running" {
			g.State = "runnable"
		}
		s.g(int32(e.Arg)).State = "running"
		s.cur = int32(e.Arg)
	case trace.KindExit:
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
	return &Cursor{r: r, pos: -1, state: newState(), checkpoints: []state{newState()}}, nil
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

// Goto moves to event i (-1: before the first).
func (c *Cursor) Goto(i int64) error {
	if i < -1 || i >= c.r.Len() {
		return fmt.Errorf("replay: event %d out of range (%d events)", i, c.r.Len())
	}
	if i < c.pos || i-c.pos > checkpointEvery {
		// Restart from the last checkpoint at or before i.
		k := min(int((i+1)/checkpointEvery), len(c.checkpoints)-1)
		c.state = c.checkpoints[k].clone()
		c.pos = int64(k)*checkpointEvery - 1
	}
	for c.pos < i {
		e, err := c.r.Event(c.pos + 1)
		if err != nil {
			return err
		}
		c.state.apply(&e)
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
func (c *Cursor) NextOf(g int32) (bool, error) { return c.seekOf(g, 1) }

// PrevOf moves to the previous event of goroutine g, as NextOf.
func (c *Cursor) PrevOf(g int32) (bool, error) { return c.seekOf(g, -1) }

func (c *Cursor) seekOf(g int32, dir int64) (bool, error) {
	for i := c.pos + dir; i >= 0 && i < c.r.Len(); i += dir {
		e, err := c.r.Event(i)
		if err != nil {
			return false, err
		}
		if e.G == g {
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
func (c *Cursor) Label(obj int32) string { return c.state.labels[obj] }
