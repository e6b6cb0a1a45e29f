package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

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
	// In unsigned arithmetic, so that the most negative time has its
	// magnitude too.
	u, sign := uint64(m), ""
	if m < 0 {
		u, sign = -u, "-"
	}
	return []byte(fmt.Sprintf("%s%d.%03d", sign, u/1000, u%1000)), nil
}

// addSat is a+b, held at the ends of int64 rather than wrapping around:
// the times of a trace are its own, up to math.MaxInt64.
func addSat(a, b int64) int64 {
	c := a + b
	if (c > a) == (b > 0) {
		return c
	}
	if b > 0 {
		return math.MaxInt64
	}
	return math.MinInt64
}

// subSat is a-b, held at the ends of int64.
func subSat(a, b int64) int64 {
	c := a - b
	if (a^b)&(a^c) >= 0 {
		return c
	}
	if a >= 0 {
		return math.MaxInt64
	}
	return math.MinInt64
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
	if r.Len() > 0 {
		// A trace whose first frame cannot be read makes no file.
		if _, err := r.Event(0); err != nil {
			fmt.Fprintf(e.stderr, "dstreplay export: %v\n", err)
			return ExitFailure
		}
	}
	w := e.stdout
	var f *os.File
	if *out != "" {
		var err error
		if f, err = os.Create(*out); err != nil {
			fmt.Fprintf(e.stderr, "dstreplay export: %v\n", err)
			return ExitUsage
		}
		defer f.Close()
		w = f
	}
	p := newProgress(e, "export", r.Len())
	readErr, err := writePerfetto(w, r, p.at)
	p.done()
	if err == nil && f != nil {
		err = f.Close()
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay export: %v\n", err)
		return ExitFailure
	}
	if readErr != nil {
		// What was written is valid, and holds the events before it.
		fmt.Fprintf(e.stderr, "dstreplay export: %v\n", readErr)
		return ExitFailure
	}
	return truncated(e, "export", r)
}

// maxPendingFlows bounds the wakes of one goroutine waiting for it to run,
// each an arrow to draw when it does: a goroutine woken again and again
// and never run has arrows for its first wakes only, not a list as long as
// the trace.
const maxPendingFlows = 64

// writePerfetto writes r's events as trace-event JSON, event by event as it
// reads them: its memory grows with the goroutines and objects of the
// trace, not with its events. readErr is the error that stopped reading
// (what was written before it is a whole JSON document), err one writing.
// progress, when not nil, is called every few thousand events with how
// many were read.
//
// Time is the virtual time: the trace-event format's ts is in microseconds,
// so an event at virtual time t nanoseconds is at t/1000. Many events share
// one instant (the clock moves only when every goroutine is blocked), so
// each event is placed at least a nanosecond after the one before it:
// events keep their order and each has its own place, at most a few
// nanoseconds (one per event at that instant) after its virtual time, which
// each event's args give exactly, with its number and step. A goroutine's
// track has a "running" slice while it runs and a "blocked" slice from when
// it blocks until it is woken (or runs again, or the trace ends). Slices
// are written when they end, so the entries are not in time order, which
// the format does not ask for.
func writePerfetto(w io.Writer, r *trace.Reader, progress func(int64)) (readErr, err error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	entries := 0
	put := func(te traceEvent) {
		if err != nil {
			return
		}
		b, merr := json.Marshal(te)
		if merr != nil {
			err = fmt.Errorf("event %q at %d: %w", te.Name, te.Ts, merr)
			return
		}
		if entries > 0 {
			bw.WriteString(",\n")
		}
		entries++
		bw.Write(b)
	}
	bw.WriteString(`{"displayTimeUnit":"ns","traceEvents":[` + "\n")
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
		d := micros(max(subSat(to, from), 1))
		put(traceEvent{Name: name, Cat: cat, Ph: "X", Ts: micros(from), Dur: &d, Pid: 1, Tid: g})
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
			put(traceEvent{Name: "wake", Cat: "flow", Ph: "f", Bp: "e", Ts: micros(ts), Pid: 1, Tid: g, ID: &id})
		}
		delete(pendingFlow, g)
	}
	var preempts replay.Preemptions
	ts := int64(-1) // nanoseconds
	// Messages on simulated connections: a flow from each send to each
	// read that got bytes of it.
	msgs := messages{pending: map[int32][]ioAt{}, pair: func(send, read ioAt) {
		flowID++
		id := flowID
		put(traceEvent{Name: "message", Cat: "flow", Ph: "s", Ts: micros(send.ts), Pid: 1, Tid: send.g, ID: &id})
		put(traceEvent{Name: "message", Cat: "flow", Ph: "f", Bp: "e", Ts: micros(read.ts), Pid: 1, Tid: read.g, ID: &id})
	}}
	n := int64(0)
	r.All(func(i int64, ev trace.Event, rerr error) bool {
		if rerr != nil {
			readErr = rerr
			return false
		}
		if progress != nil && i%4096 == 0 && i > 0 {
			progress(i)
		}
		n = i + 1
		ts = max(ev.Time, addSat(ts, 1))
		seen[ev.G] = true
		args := map[string]any{"event": eventNumber(i), "step": ev.Step, "time_ns": ev.Time}
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
		msgs.add(&ev, i, ts)
		switch ev.Kind {
		case trace.KindObject:
			labels[ev.Obj] = trace.ObjectName(ev.Text, ev.Obj)
			return err == nil
		case trace.KindSwitch:
			seen[int32(ev.Arg)] = true
			start(int32(ev.Arg), ts)
			if !preempt {
				return err == nil
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
			woken := int32(ev.Arg)
			if len(pendingFlow[woken]) < maxPendingFlows {
				flowID++
				id := flowID
				put(traceEvent{Name: "wake", Cat: "flow", Ph: "s", Ts: micros(ts), Pid: 1, Tid: ev.G, ID: &id})
				pendingFlow[woken] = append(pendingFlow[woken], id)
			}
			unblock(woken, ts)
		case trace.KindExit:
			if ev.G == cur {
				stop(ts)
			}
		case trace.KindBlock:
			if ev.G == cur {
				stop(addSat(ts, 1)) // the block is its last event until it runs again
			}
			blocked[ev.G] = blockedSince{addSat(ts, 1), strings.TrimPrefix(name, "block in ")}
		}
		if unfiredFault(&ev) {
			return err == nil // a draw that changed nothing, at every fault point; its args would say only that
		}
		put(traceEvent{Name: name, Cat: ev.Kind.String(), Ph: "i", S: "t", Ts: micros(ts), Pid: 1, Tid: ev.G, Args: args})
		return err == nil
	})
	if progress != nil && n > 0 {
		progress(n)
	}
	end := addSat(ts, 1)
	stop(end)
	stuck := make([]int32, 0, len(blocked))
	for g := range blocked {
		stuck = append(stuck, g)
	}
	slices.Sort(stuck)
	for _, g := range stuck { // blocked at the end
		b := blocked[g]
		slice("blocked in "+b.what+" (never woken)", "blocked", g, b.ts, max(end, addSat(b.ts, 1)))
	}
	// Names for the process and the goroutines' tracks.
	name := "dst: " + r.Header.Test
	if o := r.Outcome; o != nil {
		name += " (" + o.Kind + ")"
	}
	put(traceEvent{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": name}})
	gs := make([]int32, 0, len(seen))
	for g := range seen {
		gs = append(gs, g)
	}
	slices.Sort(gs)
	for _, g := range gs {
		n := fmt.Sprintf("goroutine %d", g)
		if g == 0 {
			n = "scheduler (timers)"
		}
		put(traceEvent{Name: "thread_name", Ph: "M", Pid: 1, Tid: g, Args: map[string]any{"name": n}})
	}
	if err != nil {
		return readErr, err
	}
	bw.WriteString("\n]}\n")
	return readErr, bw.Flush()
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
	case trace.KindIO:
		return fmt.Sprintf("%s %s: %d bytes", trace.OpName(ev.Op), labels[ev.Obj], ev.N)
	}
	return ev.Kind.String()
}

// progress reports on stderr how far a long read has come: nothing for its
// first second, then a line at most every second, so that a trace of
// millions of events does not look like a hang.
type progress struct {
	e           *env
	cmd         string
	total       int64
	start, last time.Time
	shown       bool
}

// progressEvery is how often a progress line may come, and how long a
// read goes before the first.
var progressEvery = time.Second

func newProgress(e *env, cmd string, total int64) *progress {
	now := time.Now()
	return &progress{e: e, cmd: cmd, total: total, start: now, last: now}
}

// at says that n events of the total are read.
func (p *progress) at(n int64) {
	now := time.Now()
	if now.Sub(p.last) < progressEvery || p.total <= 0 {
		return
	}
	p.last, p.shown = now, true
	fmt.Fprintf(p.e.stderr, "dstreplay %s: %d of %d events (%d%%)\n", p.cmd, n, p.total, n*100/p.total)
}

// done ends the report, saying how long the read took, when it showed any.
func (p *progress) done() {
	if p.shown {
		fmt.Fprintf(p.e.stderr, "dstreplay %s: done in %.1fs\n", p.cmd, time.Since(p.start).Seconds())
	}
}
