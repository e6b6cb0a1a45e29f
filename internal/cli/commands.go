package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/schedule"
	"github.com/dstgo/dst/replay"
	"github.com/dstgo/dst/trace"
)

// open opens a trace for a command, saying why when it cannot.
func open(e *env, cmd, path string) (*trace.Reader, bool) {
	r, err := trace.OpenFile(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay %s: %s\n", cmd, termSafe(err.Error()))
		return nil, false
	}
	return r, true
}

// truncated reports a trace cut short, after whatever could be shown was.
func truncated(e *env, cmd string, r *trace.Reader) int {
	if r.Truncated == nil {
		return ExitOK
	}
	fmt.Fprintf(e.stderr, "dstreplay %s: %s\n", cmd, termSafe(r.Truncated.Error()))
	return ExitFailure
}

// termSafeEnv is e with what is written to its stdout and stderr escaped
// (termSafeWriter): the commands that print a trace's strings write
// through it, whatever each of their formats escapes itself.
func termSafeEnv(e *env) *env {
	return &env{stdout: newTermSafeWriter(e.stdout), stderr: newTermSafeWriter(e.stderr)}
}

func runShow(e *env, args []string) int {
	e = termSafeEnv(e)
	c := lookup("show")
	fs := c.flags(e)
	gs := fs.String("g", "", "only these goroutines (comma-separated ids)")
	from := fs.Int64("from", 0, "only from this step")
	to := fs.Int64("to", -1, "only up to this step (-1: the end)")
	op := fs.String("op", "", "only events of this kind or operation (for example block, switch, Lock, Send)")
	grep := fs.String("grep", "", "only events whose line contains this text")
	faults := fs.Bool("faults", false, "also the fault points that did not fire (hidden by default)")
	code := ExitOK
	if !c.parse(fs, args, 1, &code) {
		return code
	}
	want := map[int32]bool{}
	if *gs != "" {
		for _, s := range strings.Split(*gs, ",") {
			n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "g"))
			if err != nil {
				fmt.Fprintf(e.stderr, "dstreplay show: -g %q: want goroutine ids such as 1,3\n", *gs)
				return ExitUsage
			}
			want[int32(n)] = true
		}
	}
	r, ok := open(e, "show", fs.Arg(0))
	if !ok {
		return ExitUsage
	}
	defer r.Close()
	for _, kv := range headerLines(&r.Header) {
		fmt.Fprintf(e.stdout, "# %s\n", kv)
	}
	labels := map[int32]string{}
	start := int64(0)
	var preempts replay.Preemptions
	if *from > 0 {
		i, err := r.SeekStep(*from)
		if err != nil {
			fmt.Fprintf(e.stderr, "dstreplay show: %s\n", termSafe(err.Error()))
			return ExitFailure
		}
		start = i
		labels, preempts = stateBefore(r, start)
	}
	width := len(strconv.FormatInt(r.Len(), 10))
	fmt.Fprintln(e.stdout, "# event, step, goroutine, virtual time, what")
	hidden := 0
	for i := start; i < r.Len(); i++ {
		ev, err := r.Event(i)
		if err != nil {
			fmt.Fprintf(e.stderr, "dstreplay show: %s\n", termSafe(err.Error()))
			return ExitFailure
		}
		if ev.Kind == trace.KindObject {
			labels[ev.Obj] = trace.ObjectName(ev.Text, ev.Obj)
		}
		preempt, _ := preempts.Next(&ev)
		if *to >= 0 && ev.Step > *to {
			break
		}
		if len(want) > 0 && !want[ev.G] {
			continue
		}
		if *op != "" && !matchesOp(&ev, *op, preempt) {
			continue
		}
		line := eventLine(&ev, labels, preempt)
		if *grep != "" && !strings.Contains(line, *grep) {
			continue
		}
		if !*faults && unfiredFault(&ev) {
			hidden++
			continue
		}
		fmt.Fprintf(e.stdout, "%*d  %s\n", width, eventNumber(i), line)
	}
	if hidden > 0 {
		fmt.Fprintf(e.stdout, "# %d fault points that did not fire are hidden (-faults shows them)\n", hidden)
	}
	if o := r.Outcome; o != nil {
		fmt.Fprintf(e.stdout, "# outcome: %s\n", termSafe(o.Kind))
		if o.Message != "" {
			fmt.Fprintf(e.stdout, "# %s\n", termSafe(o.Message))
		}
	}
	return truncated(e, "show", r)
}

// matchesOp reports whether ev is of kind op, or an op or block event of
// the operation op (an I/O event too: Send, Write); "preempt" matches the switches that are preemptions
// (preempt says whether ev is one).
func matchesOp(ev *trace.Event, op string, preempt bool) bool {
	if ev.Kind.String() == op || preempt && op == preemptWord {
		return true
	}
	switch ev.Kind {
	case trace.KindOp, trace.KindBlock, trace.KindIO:
		return trace.OpName(ev.Op) == op
	}
	return false
}

// labelsBefore collects the object names defined before event end.
func labelsBefore(r *trace.Reader, end int64) map[int32]string {
	labels, _ := stateBefore(r, end)
	return labels
}

// stateBefore reads the events before event end: the object names they
// define, and what tells preemptions apart from there on.
func stateBefore(r *trace.Reader, end int64) (map[int32]string, replay.Preemptions) {
	labels := map[int32]string{}
	var p replay.Preemptions
	for i := int64(0); i < end; i++ {
		ev, err := r.Event(i)
		if err != nil {
			break
		}
		if ev.Kind == trace.KindObject {
			labels[ev.Obj] = trace.ObjectName(ev.Text, ev.Obj)
		}
		p.Next(&ev)
	}
	return labels, p
}

// scheduleOf says what made the recorded schedule: a strategy and its seed,
// or a recording of the values drawn (a shrunk schedule, a replayed one, a
// hunt's input), when no seed reproduces it.
func scheduleOf(h *trace.Header) string {
	switch {
	case slices.Contains(h.Options, trace.EntropySeed):
	case slices.Contains(h.Options, trace.EntropyRecordingThenSeed):
		return fmt.Sprintf("%s, from a recording, then seed %#x", h.Strategy, h.Seed)
	case slices.Contains(h.Options, trace.EntropyRecording),
		h.Seed == 0: // a trace written before the option: a seed of 0 was a recording's
		return h.Strategy + ", from a recording"
	}
	return fmt.Sprintf("%s, seed %#x", h.Strategy, h.Seed)
}

// headerLines is the header as show prints it, a line per field, each
// with its control characters escaped (termSafe).
func headerLines(h *trace.Header) []string {
	lines := []string{"test: " + h.Test}
	if h.Package != "" {
		lines = append(lines, "package: "+h.Package)
	}
	s := "schedule: " + scheduleOf(h)
	if h.Strategy == engine.PCT.String() {
		s += fmt.Sprintf(", depth %d over %d steps", h.Depth, h.PCTSteps)
	}
	lines = append(lines, s, fmt.Sprintf("go: %s %s/%s", h.GoVersion, h.GOOS, h.GOARCH))
	for _, o := range h.Options {
		if !schedule.IsEntropyOption(o) { // the schedule line says it
			lines = append(lines, "option: "+o)
		}
	}
	for i, l := range lines {
		lines[i] = termSafe(l)
	}
	return lines
}

// wait is a goroutine blocked from one event until it was woken.
type wait struct {
	g          int32
	what       string
	from, to   int64 // steps
	start, end int64 // virtual times
}

// maxListedPreemptions bounds the preemptions the summary names: a shrunk
// failure has a few, an unshrunk one may have thousands.
const maxListedPreemptions = 20

// maxListedWaits is how many of the longest waits the summary lists.
const maxListedWaits = 5

// longestWaits keeps the n longest waits offered to it, in order: longer
// first, then by goroutine, then in the order offered. It holds n waits,
// however many are offered.
type longestWaits struct {
	n     int
	waits []wait
}

// before reports whether a is listed before b.
func (a wait) before(b wait) bool {
	if a.to-a.from != b.to-b.from {
		return a.to-a.from > b.to-b.from
	}
	return a.g < b.g
}

func (l *longestWaits) add(w wait) {
	// After every wait it does not come before: a tie keeps the order
	// offered, as a stable sort would.
	i := len(l.waits)
	for i > 0 && w.before(l.waits[i-1]) {
		i--
	}
	if i >= l.n {
		return
	}
	l.waits = slices.Insert(l.waits, i, w)
	if len(l.waits) > l.n {
		l.waits = l.waits[:l.n]
	}
}

// runSummary is dstreplay summary. It reads the events once, keeping
// counts, the first maxListedPreemptions preemptions and the
// maxListedWaits longest waits, and state by goroutine and by object (who
// is blocked, objects' names), never the events: its memory does not grow
// with the trace's length.
func runSummary(e *env, args []string) int {
	e = termSafeEnv(e)
	c := lookup("summary")
	fs := c.flags(e)
	code := ExitOK
	if !c.parse(fs, args, 1, &code) {
		return code
	}
	r, ok := open(e, "summary", fs.Arg(0))
	if !ok {
		return ExitUsage
	}
	defer r.Close()
	perG, perOp := map[int32]int{}, map[string]int{}
	labels := map[int32]string{}
	blocked := map[int32]wait{}
	waits := longestWaits{n: maxListedWaits}
	switches := 0
	var preempts replay.Preemptions
	var preemptions []string // the first maxListedPreemptions
	nPreemptions := 0
	var lastStep, lastTime int64
	var readErr error
	p := newProgress(e, "summary", r.Len())
	r.All(func(i int64, ev trace.Event, err error) bool {
		if err != nil {
			readErr = err
			return false
		}
		if i%4096 == 0 {
			p.at(i)
		}
		lastStep, lastTime = ev.Step, ev.Time
		if p, before := preempts.Next(&ev); p {
			if nPreemptions < maxListedPreemptions {
				preemptions = append(preemptions, preemptionText(i, &ev, before, labels))
			}
			nPreemptions++
		}
		perG[ev.G]++
		switch ev.Kind {
		case trace.KindObject:
			labels[ev.Obj] = trace.ObjectName(ev.Text, ev.Obj)
		case trace.KindOp:
			perOp[trace.OpName(ev.Op)]++
		case trace.KindBlock:
			what := trace.OpName(ev.Op)
			if l, ok := labels[ev.Obj]; ok {
				what = l + "." + what
			}
			blocked[ev.G] = wait{g: ev.G, what: what, from: ev.Step, start: ev.Time}
		case trace.KindWake:
			if w, ok := blocked[int32(ev.Arg)]; ok {
				w.to, w.end = ev.Step, ev.Time
				waits.add(w)
				delete(blocked, int32(ev.Arg))
			}
		case trace.KindSwitch:
			switches++
		}
		return true
	})
	p.done()
	h := &r.Header
	fmt.Fprintf(e.stdout, "%s (%s)\n", termSafe(h.Test), termSafe(scheduleOf(h)))
	if o := r.Outcome; o != nil {
		fmt.Fprintf(e.stdout, "outcome: %s\n", termSafe(outcomeText(o)))
	} else {
		fmt.Fprintf(e.stdout, "outcome: unknown (the trace was cut short)\n")
	}
	fmt.Fprintf(e.stdout, "events: %d over %d steps and %v of virtual time\n", r.Len(), lastStep, time.Duration(lastTime))
	fmt.Fprintf(e.stdout, "switches: %d, of which preemptions: %d\n", switches, nPreemptions)
	for _, p := range preemptions {
		fmt.Fprintf(e.stdout, "  %s\n", p)
	}
	if n := nPreemptions - len(preemptions); n > 0 {
		fmt.Fprintf(e.stdout, "  … and %d more (dstreplay show -op %s lists them all)\n", n, preemptWord)
	}
	fmt.Fprintf(e.stdout, "\nevents per goroutine:\n")
	for _, g := range sortedKeys(perG) {
		name := fmt.Sprintf("g%d", g)
		if g == 0 {
			name = "scheduler"
		}
		fmt.Fprintf(e.stdout, "  %-10s %d\n", name, perG[g])
	}
	fmt.Fprintf(e.stdout, "\noperations:\n")
	for _, op := range sortedKeys(perOp) {
		fmt.Fprintf(e.stdout, "  %-10s %d\n", termSafe(op), perOp[op])
	}
	stillBlocked := make([]int32, 0, len(blocked))
	for g := range blocked {
		stillBlocked = append(stillBlocked, g)
	}
	slices.Sort(stillBlocked)
	for _, g := range stillBlocked { // still blocked at the end
		w := blocked[g]
		w.to, w.end = lastStep, lastTime
		w.what += " (never woken)"
		waits.add(w)
	}
	if len(waits.waits) > 0 {
		fmt.Fprintf(e.stdout, "\nlongest waits:\n")
		for _, w := range waits.waits {
			fmt.Fprintf(e.stdout, "  g%d in %s: steps %d to %d (%d steps, %v)\n", w.g, termSafe(w.what), w.from, w.to, w.to-w.from, time.Duration(w.end-w.start))
		}
	}
	if o := r.Outcome; o != nil && o.Report != "" {
		fmt.Fprintf(e.stdout, "\nfailure:\n%s\n", indent(termSafeText(o.Report)))
	}
	if readErr != nil {
		fmt.Fprintf(e.stderr, "dstreplay summary: %s\n", termSafe(readErr.Error()))
		return ExitFailure
	}
	return truncated(e, "summary", r)
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
