package cli

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dstgo/dst/internal/atomicfile"
	"github.com/dstgo/dst/internal/event"
	"github.com/dstgo/dst/replay"
	"github.com/dstgo/dst/trace"
)

// The html command writes a trace as one self-contained page: the template
// below with the CSS and the viewer's script inline, and the trace's data as
// inline JSON. The script draws the swimlanes on a canvas; everything the
// page needs is in the file, so it opens from disk, offline, and can be
// attached to a bug report.

//go:embed timeline.html
var timelineHTML string

var timelineTmpl = template.Must(template.New("timeline.html").Parse(timelineHTML))

// Bounds on the source embedded in the page, so a trace that touches many
// large files still makes a page of reasonable size.
const (
	sourceContext  = 3         // lines embedded either side of a referenced line
	maxSourceBytes = 256 << 10 // total source text embedded
)

// defaultPageEvents is how many events a page holds unless -events says
// otherwise: the last ones, where a run fails. Memory and the page's size
// grow with the events it holds (about 50 bytes each in the page), not
// with the trace's length.
const defaultPageEvents = 100_000

// runHTML is dstreplay html: it writes the page, prints its path, and exits
// with 0 when it wrote one. A trace cut short or damaged still makes a
// page, of the events that could be read, and the page says so at its top
// (and in its title): the command did what it was asked, so it does not
// fail while leaving the file behind. The page is written atomically:
// never a partial file.
func runHTML(e *env, args []string) int {
	c := lookup("html")
	fs := c.flags(e)
	out := fs.String("o", "", "write to this file (default: the trace's path with the extension .html)")
	maxEvents := fs.Int64("events", defaultPageEvents, "hold at most this many events, the last ones, in the page (0: every event)")
	code := ExitOK
	if !c.parse(fs, args, 1, &code) {
		return code
	}
	in := fs.Arg(0)
	dst := *out
	if dst == "" {
		dst = htmlPath(in)
	}
	if *maxEvents < 0 {
		fmt.Fprintf(e.stderr, "dstreplay html: -events %d: want a number of events, or 0 for every event\n", *maxEvents)
		return ExitUsage
	}
	if filepath.Clean(dst) == filepath.Clean(in) {
		fmt.Fprintf(e.stderr, "dstreplay html: the output %s would overwrite the trace: choose another with -o\n", termSafe(dst))
		return ExitUsage
	}
	r, ok := open(e, "html", in)
	if !ok {
		return ExitUsage
	}
	defer r.Close()
	p := newProgress(e, "html", r.Len())
	tl, readErr := buildTimeline(r, newSourceReader(in), *maxEvents, p.at)
	p.done()
	if err := atomicfile.Write(dst, false, func(w io.Writer) error { return writeTimelinePage(w, tl) }); err != nil {
		fmt.Fprintf(e.stderr, "dstreplay html: %s\n", termSafe(err.Error()))
		return ExitUsage
	}
	fmt.Fprintln(e.stdout, termSafe(dst)) // a trace's name may come with it
	if readErr == nil {
		readErr = r.Truncated
	}
	if readErr != nil {
		// What can be read is worth a page, which says where it stops.
		fmt.Fprintf(e.stderr, "dstreplay html: %s: %s (%s The page says so.)\n", termSafe(in), termSafe(readErr.Error()), tl.shownOf("that could be read"))
	}
	return ExitOK
}

// htmlPath is where the page for the trace at path goes by default: the same
// path with the extension .html.
func htmlPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".html"
}

// timeline is what the page's script reads: the events as columns, one
// entry per event, and what is derived from them (lanes, wakes, the
// failure). It is the page's inline JSON.
type timeline struct {
	Title   string         `json:"title"`
	Header  []headerItem   `json:"header"`
	Outcome *trace.Outcome `json:"outcome"` // nil when the trace was cut short
	Notice  string         `json:"notice,omitempty"`
	read    int64          // how many events could be read
	// The page holds events First to First+N-1 of the trace (its last
	// ones, when it has more than -events); Omitted says so. Every index
	// below (lanes, wakes, failure, preemptions) is into the page's
	// events: event First+i of the trace is the page's i.
	First   int64           `json:"first"`
	Omitted string          `json:"omitted,omitempty"`
	N       int64           `json:"n"`
	Ev      timelineColumns `json:"ev"`
	Kinds   []string        `json:"kinds"` // names of the kinds, by number
	// An event's text line (as Event.Format writes it) is its step, its
	// goroutine, Times[its time] and Strs[Ev.Text], separated by spaces:
	// the times and the rest repeat, the steps do not.
	Times map[int64]string `json:"times"`
	Strs  []string         `json:"strs"`
	// Locs are the distinct source locations.
	Locs []timelineLoc `json:"locs"`
	// Src holds, by file, the lines around the referenced ones (from the
	// file on disk when the page was made); SrcNote says what was left out,
	// and SrcWhy, by file, why a file's source is not available.
	Src     map[string]map[int]string `json:"src"`
	SrcNote string                    `json:"srcNote,omitempty"`
	SrcWhy  map[string]string         `json:"srcWhy"`
	Lanes   []*timelineLane           `json:"lanes"`
	// Wakes are triples: the wake event, the woken goroutine, and the event
	// where it next starts running (-1: it never does).
	Wakes []int64 `json:"wakes"`
	// Msgs are triples too: a send on a connection, a read that got bytes
	// of it, and how many (messages).
	Msgs []int64 `json:"msgs"`
	// Fail lists the events that show the failure; Select is the one
	// selected when the page opens (-1: none).
	Fail   []int64 `json:"fail"`
	Select int64   `json:"select"`
	// Preempt lists the switches that preempted their goroutine.
	Preempt []int64 `json:"preempt"`
	// Unfired counts the fault points that did not fire, which the page
	// hides until asked.
	Unfired int64 `json:"unfired"`

	failed bool // for the template
}

// timelineColumns are the events' fields as columns.
type timelineColumns struct {
	Kind []int8  `json:"k"` // not uint8: encoding/json writes []uint8 as base64
	Step []int64 `json:"s"`
	G    []int32 `json:"g"`
	Time []int64 `json:"t"`
	Arg  []int64 `json:"a"`
	Text []int32 `json:"x"` // index into timeline.Strs
	Loc  []int32 `json:"l"` // index into timeline.Locs; -1: none
}

// timelineLoc is a source location.
type timelineLoc struct {
	Func string `json:"func"`
	File string `json:"file"`
	Line int    `json:"line"`
}

// timelineLane is one goroutine's swimlane.
type timelineLane struct {
	G      int32  `json:"g"`
	Name   string `json:"name"`
	End    string `json:"end,omitempty"` // its state at the end: "blocked in Mutex#2.Lock", "exited"
	Failed bool   `json:"failed,omitempty"`
	Events int64  `json:"events"` // on the page
	// Runs and Blocked are pairs of event indices [from, to): while the
	// goroutine runs, and while it is blocked (to the wake, or to the end).
	Runs    []int64 `json:"runs"`
	Blocked []int64 `json:"blocked"`

	running   bool
	since     int64 // when it started running
	blockedAt int64 // its block event, -1 when not blocked
	blockedIn string
	exited    bool
	shown     bool   // on the page: it has events there, or is named by them
	node      string // the simulated network's node it sent from, if it sent
}

// buildTimeline reads r's events once and derives the lanes from them much
// as the Perfetto export does: a goroutine runs from the switch to it until
// it blocks, the switch away from it or its exit, and a wake links the
// waker to the woken goroutine's next start. The page holds the last
// maxEvents events (0: all) as columns; the events before them are read
// for the state they leave (object names, who runs, who is blocked) and
// not kept, so memory grows with maxEvents and the goroutines and objects,
// not with the trace. A read error stops the reading: the timeline then
// has the events before it, and the error is returned too. Source comes
// through src.
// progress is told every 4096 events how many were read.
func buildTimeline(r *trace.Reader, src *sourceReader, maxEvents int64, progress func(int64)) (*timeline, error) {
	tl := &timeline{Title: r.Header.Test, Header: htmlHeader(&r.Header), Outcome: r.Outcome, Select: -1, Wakes: []int64{}, Preempt: []int64{},
		Times: map[int64]string{}, Strs: []string{}, Locs: []timelineLoc{}, Src: map[string]map[int]string{}, SrcWhy: map[string]string{}}
	// The kinds in order, up to the first that the trace package does not
	// name.
	for k := trace.Kind(0); k < 255 && !strings.HasPrefix(k.String(), "kind("); k++ {
		tl.Kinds = append(tl.Kinds, k.String())
	}
	total := r.Len()
	first := int64(0) // the first event on the page
	if maxEvents > 0 && total > maxEvents {
		first = total - maxEvents
	}
	tl.First = first
	onPage := false // the event being read is on the page
	lanes := map[int32]*timelineLane{}
	lane := func(g int32) *timelineLane {
		l := lanes[g]
		if l == nil {
			l = &timelineLane{G: g, Name: fmt.Sprintf("g%d", g), blockedAt: -1}
			if g == 0 {
				l.Name = "g0 scheduler"
			}
			lanes[g] = l
		}
		l.shown = l.shown || onPage
		return l
	}
	// pair appends the span [from, to) of trace indices to spans as page
	// indices: cut at the page's start, left out when it ends before it.
	pair := func(l *timelineLane, spans *[]int64, from, to int64) {
		if to <= first {
			return
		}
		*spans = append(*spans, max(from, first)-first, to-first)
		l.shown = true
	}
	strs := map[string]int32{}
	locs := map[trace.Location]int32{}
	labels := map[int32]string{}
	texts := map[int32]string{}  // the objects' names, as their events give them
	pending := map[int32][]int{} // wakes not yet followed by a start, by the woken goroutine (index into Wakes)
	lastPanic := int64(-1)
	var preempts replay.Preemptions
	tl.Msgs = []int64{}
	msgs := messages{pending: map[int32][]ioAt{}, pair: func(send, read ioAt) {
		if send.i >= first { // both on the page
			tl.Msgs = append(tl.Msgs, send.i-first, read.i-first, read.n)
		}
	}}
	start := func(g int32, i int64) {
		l := lane(g)
		l.running, l.since = true, i
		for _, w := range pending[g] {
			tl.Wakes[w+2] = i - first
		}
		delete(pending, g)
	}
	stop := func(l *timelineLane, i int64) {
		if l.running {
			pair(l, &l.Runs, l.since, i)
			l.running = false
		}
	}
	unblock := func(l *timelineLane, i int64) {
		if l.blockedAt >= 0 {
			pair(l, &l.Blocked, l.blockedAt, i)
			l.blockedAt = -1
		}
	}
	var readErr error
	n := total - first // the columns' exact size, so appending never overshoots
	cols := &tl.Ev
	*cols = timelineColumns{Kind: make([]int8, 0, n), Step: make([]int64, 0, n), G: make([]int32, 0, n),
		Time: make([]int64, 0, n), Arg: make([]int64, 0, n), Text: make([]int32, 0, n), Loc: make([]int32, 0, n)}
	read := int64(0) // events read
	r.All(func(i int64, ev trace.Event, err error) bool {
		if err != nil {
			readErr = err
			return false
		}
		if i%4096 == 0 {
			progress(i)
		}
		onPage = i >= first
		if ev.Kind == trace.KindObject {
			labels[ev.Obj] = trace.ObjectName(ev.Text, ev.Obj)
			texts[ev.Obj] = ev.Text
		}
		if ev.Kind == trace.KindIO && event.Op(ev.Op) == event.OpSend {
			if l := lane(ev.G); l.node == "" {
				l.node = senderNode(texts[ev.Obj])
			}
		}
		msgs.add(&ev, i, ev.Time)
		preempt, _ := preempts.Next(&ev)
		if onPage {
			tl.addEvent(&ev, labels, preempt, strs, locs)
			if preempt {
				tl.Preempt = append(tl.Preempt, i-first)
			}
		}

		l := lane(ev.G)
		if onPage {
			l.Events++
		}
		if ev.Kind != trace.KindSwitch && ev.Kind != trace.KindBlock && ev.Kind != trace.KindObject {
			// It is doing something, so no longer blocked (even if no wake
			// said so), and running, even if the scheduler did not switch
			// to it: it carried on after blocking.
			unblock(l, i)
			if !l.running && ev.G != 0 {
				start(ev.G, i)
			}
		}
		switch ev.Kind {
		case trace.KindSwitch:
			stop(l, i)
			start(int32(ev.Arg), i)
		case trace.KindSpawn:
			lane(int32(ev.Arg))
			if ev.G == 0 && ev.Arg == 1 {
				start(1, i) // the body starts running
			}
		case trace.KindWake:
			woken := lane(int32(ev.Arg))
			unblock(woken, i)
			if onPage {
				pending[woken.G] = append(pending[woken.G], len(tl.Wakes))
				tl.Wakes = append(tl.Wakes, i-first, ev.Arg, -1)
			}
		case trace.KindBlock:
			// A blocked goroutine does not run, though the switch away
			// from it may come later (after the clock moves, say).
			stop(l, i)
			l.blockedAt = i
			l.blockedIn = strings.TrimPrefix(eventName(&ev, labels), "block in ")
		case trace.KindExit:
			stop(l, i)
			l.exited = true
		case trace.KindPanic:
			lastPanic = i
		}
		read = i + 1
		return true
	})
	tl.N = max(read-first, 0)

	tl.Lanes = []*timelineLane{}
	gs := make([]int32, 0, len(lanes))
	for g := range lanes {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i] < gs[j] })
	var stuck []stuckAt // the goroutines blocked at the end
	for _, g := range gs {
		l := lanes[g]
		stop(l, read)
		switch {
		case l.blockedAt >= 0 && l.blockedIn == "Crash":
			l.End = "crashed" // its node did (engine G.Crash)
			pair(l, &l.Blocked, l.blockedAt, read)
			l.shown = true
		case l.blockedAt >= 0:
			l.End = "blocked in " + l.blockedIn
			stuck = append(stuck, stuckAt{g, l.blockedAt - first})
			pair(l, &l.Blocked, l.blockedAt, read)
			l.shown = true
		case l.exited:
			l.End = "exited"
		}
		if !l.shown {
			continue // nothing of it on the page
		}
		if l.node != "" {
			l.Name += " · " + l.node
		}
		if l.Runs == nil {
			l.Runs = []int64{}
		}
		if l.Blocked == nil {
			l.Blocked = []int64{}
		}
		tl.Lanes = append(tl.Lanes, l)
	}
	if lastPanic >= first {
		lastPanic -= first
	} else {
		lastPanic = -1
	}
	tl.markFailure(stuck, lastPanic)
	tl.embedSource(src)
	if first > 0 && tl.N > 0 {
		tl.Omitted = fmt.Sprintf("The trace has %d events: this page holds the last %d (events %d to %d); the %d before them are omitted (dstreplay show lists every event; html -events sets how many the page holds).",
			read, tl.N, eventNumber(first), eventNumber(read-1), first)
	}
	tl.read = read
	switch {
	case readErr != nil:
		tl.Notice = fmt.Sprintf("The trace is damaged: %v. %s", readErr, tl.shownOf("before the damage"))
	case r.Truncated != nil:
		tl.Notice = fmt.Sprintf("The trace was cut short: %v. %s", r.Truncated, tl.shownOf("complete"))
	}
	return tl, readErr
}

// messages pairs the bytes read on a connection's direction with the
// sends that carried them, by their offsets in the direction's stream:
// pair is called for each send and each read that got bytes of it (n of
// them), for html to draw a line between them and export a flow.
type messages struct {
	pending map[int32][]ioAt // by direction: the sends not read in full, in order
	pair    func(send, read ioAt)
}

// ioAt is a send or a read: its event and goroutine, its time as the
// caller counts it, and its bytes (at, for n).
type ioAt struct {
	i     int64
	g     int32
	ts    int64
	at, n int64
}

// add takes the trace's event i, ev, at the time ts.
func (m *messages) add(ev *trace.Event, i, ts int64) {
	if ev.Kind != trace.KindIO || ev.N <= 0 {
		return
	}
	switch event.Op(ev.Op) {
	case event.OpSend:
		m.pending[ev.Obj] = append(m.pending[ev.Obj], ioAt{i, ev.G, ts, ev.Arg, ev.N})
	case event.OpRecv:
		q, end := m.pending[ev.Obj], ev.Arg+ev.N
		for len(q) > 0 && q[0].at < end {
			s := q[0]
			if from := max(s.at, ev.Arg); from < min(s.at+s.n, end) {
				m.pair(s, ioAt{i, ev.G, ts, from, min(s.at+s.n, end) - from})
			}
			if s.at+s.n > end {
				break // the rest of it is read later
			}
			q = q[1:]
		}
		m.pending[ev.Obj] = q
	}
}

// senderNode is the node of the network that sends on the direction
// simnet names text (its Conn.label): "tcp L → R (F → T)" is F's, and
// "tcp L → R" is L's, a node named by its address; "" for another name.
func senderNode(text string) string {
	if i := strings.LastIndex(text, " ("); i >= 0 && strings.HasSuffix(text, ")") {
		if from, _, ok := strings.Cut(text[i+2:len(text)-1], " → "); ok {
			return from
		}
	}
	_, rest, ok := strings.Cut(text, " ")
	local, _, ok2 := strings.Cut(rest, " → ")
	if !ok || !ok2 {
		return ""
	}
	return local
}

// shownOf says which of the events that could be read, which what
// describes, the page shows.
func (tl *timeline) shownOf(what string) string {
	switch {
	case tl.N == tl.read:
		return fmt.Sprintf("Shown: the %d events %s.", tl.read, what)
	case tl.N == 0:
		return fmt.Sprintf("Shown: none of the %d events %s, which come before the page's first (html -events 0 holds them all).", tl.read, what)
	}
	return fmt.Sprintf("Shown: the last %d of the %d events %s.", tl.N, tl.read, what)
}

// addEvent adds ev to the page's events.
func (tl *timeline) addEvent(ev *trace.Event, labels map[int32]string, preempt bool, strs map[string]int32, locs map[trace.Location]int32) {
	if unfiredFault(ev) {
		tl.Unfired++
	}
	// The line is "step gN time rest": rest repeats, and so do times.
	line := strings.TrimPrefix(eventLine(ev, labels, preempt), fmt.Sprintf("%d g%d ", ev.Step, ev.G))
	ts, rest, _ := strings.Cut(line, " ")
	if _, ok := tl.Times[ev.Time]; !ok {
		tl.Times[ev.Time] = ts
	}
	x, ok := strs[rest]
	if !ok {
		x = int32(len(tl.Strs))
		strs[rest] = x
		tl.Strs = append(tl.Strs, rest)
	}
	li := int32(-1)
	if ev.Loc.File != "" {
		if li, ok = locs[ev.Loc]; !ok {
			li = int32(len(tl.Locs))
			locs[ev.Loc] = li
			tl.Locs = append(tl.Locs, timelineLoc{ev.Loc.Func, ev.Loc.File, ev.Loc.Line})
		}
	}
	cols := &tl.Ev
	cols.Kind = append(cols.Kind, int8(ev.Kind))
	cols.Step = append(cols.Step, ev.Step)
	cols.G = append(cols.G, ev.G)
	cols.Time = append(cols.Time, ev.Time)
	cols.Arg = append(cols.Arg, ev.Arg)
	cols.Text = append(cols.Text, x)
	cols.Loc = append(cols.Loc, li)
}

// stuckAt is a goroutine blocked at the end, and its block event on the
// page (negative: before the page).
type stuckAt struct {
	g  int32
	at int64
}

// markFailure chooses the events that show how the run failed: the block
// events of the goroutines blocked forever (a deadlock or a leak), the
// panic, or else the last event; lastPanic is the last panic on the page
// (-1: none).
func (tl *timeline) markFailure(stuck []stuckAt, lastPanic int64) {
	o := tl.Outcome
	tl.Fail = []int64{}
	if o == nil || o.Kind == "pass" || tl.N == 0 {
		if tl.N > 0 && o == nil {
			tl.Select = tl.N - 1 // where the trace stops
		}
		return
	}
	tl.failed = true
	failedG := map[int32]bool{}
	switch {
	case (o.Kind == "deadlock" || o.Kind == "leak") && len(stuck) > 0:
		for _, s := range stuck {
			failedG[s.g] = true
			if s.at >= 0 {
				tl.Fail = append(tl.Fail, s.at)
			}
		}
		if len(tl.Fail) == 0 { // they blocked before the page's events
			tl.Fail = []int64{tl.N - 1}
		}
	case o.Kind == "panic" && lastPanic >= 0:
		tl.Fail = []int64{lastPanic}
	default:
		tl.Fail = []int64{tl.N - 1}
	}
	sort.Slice(tl.Fail, func(i, j int) bool { return tl.Fail[i] < tl.Fail[j] })
	tl.Select = tl.Fail[len(tl.Fail)-1]
	for _, i := range tl.Fail {
		failedG[tl.Ev.G[i]] = true
	}
	for _, l := range tl.Lanes {
		l.Failed = failedG[l.G]
	}
}

// embedSource copies into the page the lines around each referenced source
// line, as src reads them from the files on disk now, within
// maxSourceBytes; for a file src does not read, the page says why.
func (tl *timeline) embedSource(src *sourceReader) {
	want := map[string][]int{}
	for _, loc := range tl.Locs {
		want[loc.File] = append(want[loc.File], loc.Line)
	}
	files := make([]string, 0, len(want))
	for f := range want {
		files = append(files, f)
	}
	sort.Strings(files)
	total := 0
	var skipped []string
	for _, file := range files {
		lines, err := src.lines(file)
		if err != nil {
			tl.SrcWhy[file] = sourceNotAvailable(err) // the page shows the location and this
			continue
		}
		got := map[int]string{}
		for _, at := range want[file] {
			for n := max(at-sourceContext, 1); n <= min(at+sourceContext, len(lines)); n++ {
				if _, ok := got[n]; ok {
					continue
				}
				if total+len(lines[n-1]) > maxSourceBytes {
					skipped = append(skipped, filepath.Base(file))
					break
				}
				got[n] = lines[n-1]
				total += len(lines[n-1])
			}
		}
		if len(got) > 0 {
			tl.Src[file] = got
		}
	}
	if len(skipped) > 0 {
		tl.SrcNote = fmt.Sprintf("source embedded up to %d KiB: some lines of %s left out", maxSourceBytes>>10, strings.Join(dedup(skipped), ", "))
	}
}

func dedup(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// timelinePage is what the template shows without the script: the header,
// the outcome and the notice; the script draws the rest from Data.
type timelinePage struct {
	Title   string
	Cut     bool // the trace was cut short or is damaged: the notice says how
	Header  []headerItem
	Outcome string // the kind and the message
	Report  string
	Failed  bool
	Stats   string
	Notice  string
	Omitted string // events left out of the page
	Data    template.JS
}

// writeTimelinePage writes tl as a page. Its JSON is written with
// encoding/json's HTML escaping, so no string in it can close the script
// element that holds it.
func writeTimelinePage(w io.Writer, tl *timeline) error {
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(tl); err != nil {
		return fmt.Errorf("encoding the timeline: %w", err)
	}
	p := timelinePage{Title: tl.Title, Header: tl.Header, Failed: tl.failed, Notice: tl.Notice, Omitted: tl.Omitted, Cut: tl.Notice != "", Data: template.JS(data.String())}
	switch o := tl.Outcome; {
	case o == nil:
		p.Outcome = "unknown: the trace was cut short before the run's end"
	case o.Message == "" || strings.HasPrefix(o.Message, o.Kind):
		p.Outcome = firstNonEmpty(o.Message, o.Kind)
		p.Report = o.Report
	default:
		p.Outcome = o.Kind + ": " + o.Message
		p.Report = o.Report
	}
	if p.Report == p.Outcome {
		p.Report = ""
	}
	if n := tl.N; n > 0 {
		last := n - 1
		p.Stats = fmt.Sprintf("%d events over %d steps and %v of virtual time", tl.First+n, tl.Ev.Step[last], time.Duration(tl.Ev.Time[last]))
	} else {
		p.Stats = "no events"
	}
	return timelineTmpl.Execute(w, p)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// headerItem is one item of the page's header line; Title, when set, is
// what it shortens (shown on hover).
type headerItem struct {
	Text  string `json:"text"`
	Title string `json:"title,omitempty"`
}

// htmlHeader is the header as the page shows it: as show prints it, except
// that the fault points' probabilities, one option each, are one item.
func htmlHeader(h *trace.Header) []headerItem {
	var items []headerItem
	var faults []string
	var probs []float64
	for _, l := range headerLines(h) {
		opt, ok := strings.CutPrefix(l, "option: fault.")
		if !ok {
			items = append(items, headerItem{Text: l})
			continue
		}
		faults = append(faults, opt)
		if _, v, ok := strings.Cut(opt, "="); ok {
			if p, err := strconv.ParseFloat(v, 64); err == nil {
				probs = append(probs, p)
			}
		}
	}
	if len(faults) == 0 {
		return items
	}
	text := fmt.Sprintf("faults: %d points", len(faults))
	if len(faults) == 1 {
		text = "fault: " + faults[0]
	} else if len(probs) == len(faults) {
		lo, hi := slices.Min(probs), slices.Max(probs)
		if lo == hi {
			text += fmt.Sprintf(", each with probability %v", lo)
		} else {
			text += fmt.Sprintf(", probabilities %v to %v", lo, hi)
		}
	}
	return append(items, headerItem{Text: text, Title: strings.Join(faults, "\n")})
}
