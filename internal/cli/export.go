package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/dstgo/dst/replay"
	"github.com/dstgo/dst/trace"
)

// traceEvent is one entry of the Chrome trace-event format, which Perfetto
// and chrome://tracing open.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   micros         `json:"ts"`
	Dur  *micros        `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int32          `json:"tid"`
	S    string         `json:"s,omitempty"`
	ID   *int64         `json:"id,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// micros is a time in nanoseconds, written in the microseconds the
// trace-event format counts in, exactly: 1234 is 1.234.
type micros int64

func (m micros) MarshalJSON() ([]byte, error) {
	if m < 0 {
		return []byte(fmt.Sprintf("-%d.%03d", -m/1000, -m%1000)), nil
	}
	return []byte(fmt.Sprintf("%d.%03d", m/1000, m%1000)), nil
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
// time: the trace-event format's ts is in microseconds, so an event at
// virtual time t nanoseconds is at t/1000. Many events share one instant
// (the clock moves only when every goroutine is blocked), so each event is
// placed at least a nanosecond after the one before it: events keep their
// order and each has its own place, at most a few nanoseconds (one per
// event at that instant) after its virtual time, which each event's args
// give exactly, with its number and step. A goroutine's track has a
// "running" slice while it runs and a "blocked" slice from when it blocks
// until it is woken (or runs again, or the trace ends).
func writePerfetto(w io.Writer, h *trace.Header, evs []trace.Event, o *trace.Outcome) error {
	var out []traceEvent
	labels := map[int32]string{}
	// One goroutine runs at a time: cur (none when -1), since when.
	cur, since := int32(-1), int64(0)
	seen := map[int32]bool{}
	pendingFlow := map[int32][]int64{} // flows from wakes, by the woken goroutine
	flowID := int64(0)
	type blockedSince struct {
		ts   int64
		what string
	}
	blocked := map[int32]blockedSince{}
	slice := func(name, cat string, g int32, from, to int64) {
		d := micros(max(to-from, 1))
		out = append(out, traceEvent{Name: name, Cat: cat, Ph: "X", Ts: micros(from), Dur: &d, Pid: 1, Tid: g})
	}
	stop := func(ts int64) {
		if cur >= 0 {
			slice("running", "sched", cur, since, ts)
			cur = -1
		}
	}
	unblock := func(g int32, ts int64) {
		if b, ok := blocked[g]; ok {
			slice("blocked in "+b.what, "blocked", g, b.ts, ts)
			delete(blocked, g)
		}
	}
	start := func(g int32, ts int64) {
		stop(ts)
		unblock(g, ts)
		cur, since = g, ts
		for _, id := range pendingFlow[g] {
			id := id
			out = append(out, traceEvent{Name: "wake", Cat: "flow", Ph: "f", Bp: "e", Ts: micros(ts), Pid: 1, Tid: g, ID: &id})
		}
		delete(pendingFlow, g)
	}
	var preempts replay.Preemptions
	ts := int64(-1) // nanoseconds
	for i, ev := range evs {
		ts = max(ev.Time, ts+1)
		seen[ev.G] = true
		args := map[string]any{"event": eventNumber(int64(i)), "step": ev.Step, "time_ns": ev.Time}
		if ev.Loc.File != "" {
			args["at"] = fmt.Sprintf("%s:%d", filepath.Base(ev.Loc.File), ev.Loc.Line)
			args["func"] = ev.Loc.Func
		}
		preempt, _ := preempts.Next(&ev)
		if ev.G > 0 && ev.G != cur && ev.Kind != trace.KindSwitch && ev.Kind != trace.KindExit {
			// It runs without a switch to it: a timer woke it while every
			// goroutine was blocked.
			start(ev.G, ts)
		}
		name := eventName(&ev, labels)
		switch ev.Kind {
		case trace.KindObject:
			labels[ev.Obj] = trace.ObjectName(ev.Text, ev.Obj)
			continue
		case trace.KindSwitch:
			seen[int32(ev.Arg)] = true
			start(int32(ev.Arg), ts)
			if !preempt {
				continue
			}
			// A preemption is worth a mark on the preempted goroutine's
			// track: in a bug that needs one, it is the bug.
			name = fmt.Sprintf("%s: g%d could have gone on, g%d ran", preemptWord, ev.G, ev.Arg)
		case trace.KindSpawn:
			seen[int32(ev.Arg)] = true
			if ev.G == 0 && ev.Arg == 1 {
				start(1, ts) // the body starts running
			}
		case trace.KindWake:
			flowID++
			id := flowID
			out = append(out, traceEvent{Name: "wake", Cat: "flow", Ph: "s", Ts: micros(ts), Pid: 1, Tid: ev.G, ID: &id})
			pendingFlow[int32(ev.Arg)] = append(pendingFlow[int32(ev.Arg)], id)
			unblock(int32(ev.Arg), ts)
		case trace.KindExit:
			if ev.G == cur {
				stop(ts)
			}
		case trace.KindBlock:
			if ev.G == cur {
				stop(ts + 1) // the block is its last event until it runs again
			}
			blocked[ev.G] = blockedSince{ts + 1, strings.TrimPrefix(name, "block in ")}
		}
		if unfiredFault(&ev) {
			continue // a draw that changed nothing, at every fault point; its args would say only that
		}
		out = append(out, traceEvent{Name: name, Cat: ev.Kind.String(), Ph: "i", S: "t", Ts: micros(ts), Pid: 1, Tid: ev.G, Args: args})
	}
	end := ts + 1
	stop(end)
	stuck := make([]int32, 0, len(blocked))
	for g := range blocked {
		stuck = append(stuck, g)
	}
	slices.Sort(stuck)
	for _, g := range stuck { // blocked at the end
		b := blocked[g]
		slice("blocked in "+b.what+" (never woken)", "blocked", g, b.ts, max(end, b.ts+1))
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
	return enc.Encode(map[string]any{"traceEvents": out, "displayTimeUnit": "ns"})
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
