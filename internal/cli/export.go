package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/dstgo/dst/trace"
)

// traceEvent is one entry of the Chrome trace-event format, which Perfetto
// and chrome://tracing open.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"` // microseconds
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int32          `json:"tid"`
	S    string         `json:"s,omitempty"`
	ID   *int64         `json:"id,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

func runExport(e *env, args []string) int {
	c := lookup("export")
	fs := c.flags(e)
	format := fs.String("format", "perfetto", "the output format: perfetto (Chrome trace-event JSON)")
	out := fs.String("o", "", "write to this file instead of stdout")
	code := ExitOK
	if !c.parse(fs, args, 1, &code) {
		return code
	}
	if *format != "perfetto" {
		fmt.Fprintf(e.stderr, "dstreplay export: unknown format %q: want perfetto\n", *format)
		return ExitUsage
	}
	r, ok := open(e, "export", fs.Arg(0))
	if !ok {
		return ExitUsage
	}
	defer r.Close()
	evs, err := r.ReadAll()
	if err != nil && len(evs) == 0 {
		fmt.Fprintf(e.stderr, "dstreplay export: %v\n", err)
		return ExitFailure
	}
	w := e.stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(e.stderr, "dstreplay export: %v\n", err)
			return ExitUsage
		}
		defer f.Close()
		w = f
	}
	if err := writePerfetto(w, &r.Header, evs, r.Outcome); err != nil {
		fmt.Fprintf(e.stderr, "dstreplay export: %v\n", err)
		return ExitFailure
	}
	return truncated(e, "export", r)
}

// writePerfetto converts events to trace-event JSON. Time is the virtual
// clock's: events at one instant (most of a run is at one) are placed a
// nanosecond apart in their order, so each has its place and the clock's
// jumps show as gaps. The step and the exact virtual time are in each
// event's args. A goroutine's track has a slice while it runs, and one
// while it is blocked, named by what it waits for.
func writePerfetto(w io.Writer, h *trace.Header, evs []trace.Event, o *trace.Outcome) error {
	var out []traceEvent
	labels := map[int32]string{}
	at := make([]int64, len(evs)+1) // each event's place, in nanoseconds; then the end
	for i, ev := range evs {
		at[i] = ev.Time
		if i > 0 && at[i] <= at[i-1] {
			at[i] = at[i-1] + 1
		}
	}
	if n := len(evs); n > 0 {
		at[n] = at[n-1] + 1
	}
	us := func(ns int64) float64 { return float64(ns) / 1000 }
	// One goroutine runs at a time: cur (none when -1), since when.
	cur, since := int32(-1), int64(0)
	seen := map[int32]bool{}
	type wait struct {
		since int64
		what  string
	}
	blocked := map[int32]wait{}
	pendingFlow := map[int32][]int64{} // flows from wakes, by the woken goroutine
	flowID := int64(0)
	slice := func(name string, g int32, from, to int64) {
		d := us(max(to-from, 1))
		out = append(out, traceEvent{Name: name, Cat: "sched", Ph: "X", Ts: us(from), Dur: &d, Pid: 1, Tid: g})
	}
	stop := func(ts int64) {
		if cur >= 0 {
			slice("running", cur, since, ts)
			cur = -1
		}
	}
	start := func(g int32, ts int64) {
		stop(ts)
		cur, since = g, ts
		for _, id := range pendingFlow[g] {
			id := id
			out = append(out, traceEvent{Name: "wake", Cat: "flow", Ph: "f", Bp: "e", Ts: us(ts), Pid: 1, Tid: g, ID: &id})
		}
		delete(pendingFlow, g)
	}
	for i, ev := range evs {
		ts := at[i]
		seen[ev.G] = true
		args := map[string]any{"step": ev.Step, "time_ns": ev.Time}
		if ev.Loc.File != "" {
			args["at"] = fmt.Sprintf("%s:%d", filepath.Base(ev.Loc.File), ev.Loc.Line)
			args["func"] = ev.Loc.Func
		}
		if ev.G > 0 && ev.G != cur && ev.Kind != trace.KindSwitch && ev.Kind != trace.KindExit {
			// It runs without a switch to it: a timer woke it while every
			// goroutine was blocked.
			start(ev.G, ts)
		}
		switch ev.Kind {
		case trace.KindObject:
			labels[ev.Obj] = trace.ObjectName(ev.Text, ev.Obj)
			continue
		case trace.KindSwitch:
			seen[int32(ev.Arg)] = true
			start(int32(ev.Arg), ts)
			continue
		case trace.KindSpawn:
			seen[int32(ev.Arg)] = true
			if ev.G == 0 && ev.Arg == 1 {
				start(1, ts) // the body starts running
			}
		case trace.KindWake:
			flowID++
			id := flowID
			out = append(out, traceEvent{Name: "wake", Cat: "flow", Ph: "s", Ts: us(ts), Pid: 1, Tid: ev.G, ID: &id})
			pendingFlow[int32(ev.Arg)] = append(pendingFlow[int32(ev.Arg)], id)
			if b, ok := blocked[int32(ev.Arg)]; ok {
				slice(b.what, int32(ev.Arg), b.since, ts)
				delete(blocked, int32(ev.Arg))
			}
		case trace.KindExit:
			if ev.G == cur {
				stop(ts)
			}
		case trace.KindBlock:
			if ev.G == cur {
				stop(ts + 1) // the block is its last event until it runs again
			}
			blocked[ev.G] = wait{since: ts + 1, what: eventName(&ev, labels)}
		}
		out = append(out, traceEvent{Name: eventName(&ev, labels), Cat: ev.Kind.String(), Ph: "i", S: "t", Ts: us(ts), Pid: 1, Tid: ev.G, Args: args})
	}
	end := at[len(evs)]
	stop(end)
	for _, g := range slices.Sorted(maps.Keys(blocked)) { // blocked to the end of the run
		slice(blocked[g].what+" (to the end)", g, blocked[g].since, end+1)
	}
	// Names for the process and the goroutines' tracks.
	name := "dst: " + h.Test
	if o != nil {
		name += " (" + o.Kind + ")"
	}
	out = append(out, traceEvent{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": name}})
	gs := make([]int32, 0, len(seen))
	for g := range seen {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i] < gs[j] })
	for _, g := range gs {
		n := fmt.Sprintf("goroutine %d", g)
		if g == 0 {
			n = "scheduler (timers)"
		}
		out = append(out, traceEvent{Name: "thread_name", Ph: "M", Pid: 1, Tid: g, Args: map[string]any{"name": n}})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Ts < out[j].Ts })
	enc := json.NewEncoder(w)
	return enc.Encode(map[string]any{"traceEvents": out, "displayTimeUnit": "ms"})
}

func eventName(ev *trace.Event, labels map[int32]string) string {
	switch ev.Kind {
	case trace.KindOp, trace.KindBlock:
		n := trace.OpName(ev.Op)
		if l, ok := labels[ev.Obj]; ok {
			n = l + "." + n
		}
		if ev.Kind == trace.KindBlock {
			n = "block in " + n
		}
		return n
	case trace.KindFault, trace.KindLog, trace.KindPanic:
		return ev.Kind.String() + ": " + ev.Text
	}
	return ev.Kind.String()
}
