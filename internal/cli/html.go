package cli

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dstgo/dst/internal/atomicfile"
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
	maxSourceFile  = 4 << 20   // larger files are not read
)

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
	code := ExitOK
	if !c.parse(fs, args, 1, &code) {
		return code
	}
	in := fs.Arg(0)
	dst := *out
	if dst == "" {
		dst = htmlPath(in)
	}
	if filepath.Clean(dst) == filepath.Clean(in) {
		fmt.Fprintf(e.stderr, "dstreplay html: the output %s would overwrite the trace: choose another with -o\n", dst)
		return ExitUsage
	}
	r, ok := open(e, "html", in)
	if !ok {
		return ExitUsage
	}
	defer r.Close()
	tl, readErr := buildTimeline(r)
	if err := atomicfile.Write(dst, false, func(w io.Writer) error { return writeTimelinePage(w, tl) }); err != nil {
		fmt.Fprintf(e.stderr, "dstreplay html: %v\n", err)
		return ExitUsage
	}
	fmt.Fprintln(e.stdout, dst)
	if readErr == nil {
		readErr = r.Truncated
	}
	if readErr != nil {
		// What can be read is worth a page, which says where it stops.
		fmt.Fprintf(e.stderr, "dstreplay html: %s: %v (the page shows the %d events before it, and says so)\n", in, readErr, tl.N)
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
	Title   string          `json:"title"`
	Header  []headerItem    `json:"header"`
	Outcome *trace.Outcome  `json:"outcome"` // nil when the trace was cut short
	Notice  string          `json:"notice,omitempty"`
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
	// file on disk when the page was made); SrcNote says what was left out.
	Src     map[string]map[int]string `json:"src"`
	SrcNote string                    `json:"srcNote,omitempty"`
	Lanes   []*timelineLane           `json:"lanes"`
	// Wakes are triples: the wake event, the woken goroutine, and the event
	// where it next starts running (-1: it never does).
	Wakes []int64 `json:"wakes"`
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
	Events int64  `json:"events"`
	// Runs and Blocked are pairs of event indices [from, to): while the
	// goroutine runs, and while it is blocked (to the wake, or to the end).
	Runs    []int64 `json:"runs"`
	Blocked []int64 `json:"blocked"`

	running   bool
	since     int64 // when it started running
	blockedAt int64 // its block event, -1 when not blocked
	blockedIn string
	exited    bool
}

// buildTimeline reads r's events once, into columns, and derives the lanes
// from them much as the Perfetto export does: a goroutine runs from the
// switch to it until it blocks, the switch away from it or its exit, and a
// wake links the waker to the woken goroutine's next start. A read error stops the
// reading: the timeline then has the events before it, and the error is
// returned too.
func buildTimeline(r *trace.Reader) (*timeline, error) {
	tl := &timeline{Title: r.Header.Test, Header: htmlHeader(&r.Header), Outcome: r.Outcome, Select: -1, Wakes: []int64{}, Preempt: []int64{},
		Times: map[int64]string{}, Strs: []string{}, Locs: []timelineLoc{}, Src: map[string]map[int]string{}}
	// The kinds in order, up to the first that the trace package does not
	// name.
	for k := trace.Kind(0); k < 255 && !strings.HasPrefix(k.String(), "kind("); k++ {
		tl.Kinds = append(tl.Kinds, k.String())
	}
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
		return l
	}
	strs := map[string]int32{}
	locs := map[trace.Location]int32{}
	labels := map[int32]string{}
	pending := map[int32][]int{} // wakes not yet followed by a start, by the woken goroutine (index into Wakes)
	lastPanic := int64(-1)
	var preempts replay.Preemptions
	start := func(g int32, i int64) {
		l := lane(g)
		l.running, l.since = true, i
		for _, w := range pending[g] {
			tl.Wakes[w+2] = i
		}
		delete(pending, g)
	}
	stop := func(l *timelineLane, i int64) {
		if l.running {
			l.Runs = append(l.Runs, l.since, i)
			l.running = false
		}
	}
	unblock := func(l *timelineLane, i int64) {
		if l.blockedAt >= 0 {
			l.Blocked = append(l.Blocked, l.blockedAt, i)
			l.blockedAt = -1
		}
	}
	var readErr error
	n := r.Len() // the columns' exact size, so appending never overshoots
	cols := &tl.Ev
	*cols = timelineColumns{Kind: make([]int8, 0, n), Step: make([]int64, 0, n), G: make([]int32, 0, n),
		Time: make([]int64, 0, n), Arg: make([]int64, 0, n), Text: make([]int32, 0, n), Loc: make([]int32, 0, n)}
	r.All(func(i int64, ev trace.Event, err error) bool {
		if err != nil {
			readErr = err
			return false
		}
		if ev.Kind == trace.KindObject {
			labels[ev.Obj] = trace.ObjectName(ev.Text, ev.Obj)
		}
		preempt, _ := preempts.Next(&ev)
		if preempt {
			tl.Preempt = append(tl.Preempt, i)
		}
		if unfiredFault(&ev) {
			tl.Unfired++
		}
		// The line is "step gN time rest": rest repeats, and so do times.
		line := strings.TrimPrefix(eventLine(&ev, labels, preempt), fmt.Sprintf("%d g%d ", ev.Step, ev.G))
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
		cols.Kind = append(cols.Kind, int8(ev.Kind))
		cols.Step = append(cols.Step, ev.Step)
		cols.G = append(cols.G, ev.G)
		cols.Time = append(cols.Time, ev.Time)
		cols.Arg = append(cols.Arg, ev.Arg)
		cols.Text = append(cols.Text, x)
		cols.Loc = append(cols.Loc, li)

		l := lane(ev.G)
		l.Events++
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
			pending[woken.G] = append(pending[woken.G], len(tl.Wakes))
			tl.Wakes = append(tl.Wakes, i, ev.Arg, -1)
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
		tl.N = i + 1
		return true
	})

	tl.Lanes = []*timelineLane{}
	gs := make([]int32, 0, len(lanes))
	for g := range lanes {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i] < gs[j] })
	var stuck []int64 // the block events of the goroutines blocked at the end
	for _, g := range gs {
		l := lanes[g]
		stop(l, tl.N)
		switch {
		case l.blockedAt >= 0:
			l.End = "blocked in " + l.blockedIn
			stuck = append(stuck, l.blockedAt)
			l.Blocked = append(l.Blocked, l.blockedAt, tl.N)
		case l.exited:
			l.End = "exited"
		}
		if l.Runs == nil {
			l.Runs = []int64{}
		}
		if l.Blocked == nil {
			l.Blocked = []int64{}
		}
		tl.Lanes = append(tl.Lanes, l)
	}
	tl.markFailure(stuck, lastPanic)
	tl.embedSource()
	switch {
	case readErr != nil:
		tl.Notice = fmt.Sprintf("The trace is damaged: %v. Shown: the %d events before the damage.", readErr, tl.N)
	case r.Truncated != nil:
		tl.Notice = fmt.Sprintf("The trace was cut short: %v. Shown: its %d complete events.", r.Truncated, tl.N)
	}
	return tl, readErr
}

// markFailure chooses the events that show how the run failed: the block
// events of the goroutines blocked forever (a deadlock or a leak), the
// panic, or else the last event.
func (tl *timeline) markFailure(stuck []int64, lastPanic int64) {
	o := tl.Outcome
	tl.Fail = []int64{}
	if o == nil || o.Kind == "pass" || tl.N == 0 {
		if tl.N > 0 && o == nil {
			tl.Select = tl.N - 1 // where the trace stops
		}
		return
	}
	tl.failed = true
	switch {
	case (o.Kind == "deadlock" || o.Kind == "leak") && len(stuck) > 0:
		tl.Fail = stuck
	case o.Kind == "panic" && lastPanic >= 0:
		tl.Fail = []int64{lastPanic}
	default:
		tl.Fail = []int64{tl.N - 1}
	}
	sort.Slice(tl.Fail, func(i, j int) bool { return tl.Fail[i] < tl.Fail[j] })
	tl.Select = tl.Fail[len(tl.Fail)-1]
	for _, l := range tl.Lanes {
		for _, i := range tl.Fail {
			if tl.Ev.G[i] == l.G {
				l.Failed = true
			}
		}
	}
}

// embedSource copies into the page the lines around each referenced source
// line, from the files as they are on disk now, within maxSourceBytes.
func (tl *timeline) embedSource() {
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
		lines, err := readLines(file)
		if err != nil {
			continue // not on this machine: the page shows the location only
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

// readLines reads a source file's lines, refusing files too large to be
// source.
func readLines(file string) ([]string, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxSourceFile {
		return nil, fmt.Errorf("%s: %d bytes, more than %d", file, st.Size(), maxSourceFile)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), nil
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
	p := timelinePage{Title: tl.Title, Header: tl.Header, Failed: tl.failed, Notice: tl.Notice, Cut: tl.Notice != "", Data: template.JS(data.String())}
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
		p.Stats = fmt.Sprintf("%d events over %d steps and %v of virtual time", n, tl.Ev.Step[last], time.Duration(tl.Ev.Time[last]))
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
