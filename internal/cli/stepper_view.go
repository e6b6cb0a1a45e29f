package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/dstgo/dst/trace"
)

// The stepper's view: what it draws from its model (stepper.go) on each
// frame. Nothing here moves the cursor or changes the model, except the
// caches of source files and of the failure's location.

// Styles.
var (
	styleTitle   = lipgloss.NewStyle().Bold(true)
	styleBad     = lipgloss.NewStyle().Foreground(lipgloss.Color("9")).Bold(true)
	styleDim     = lipgloss.NewStyle().Faint(true)
	styleCurrent = lipgloss.NewStyle().Reverse(true)
	styleRule    = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	stylePreempt = lipgloss.NewStyle().Foreground(lipgloss.Color("5")).Bold(true)
)

// View renders the screen.
func (m *stepper) View() string {
	var lines []string
	add := func(s string) { lines = append(lines, ansi.Truncate(s, m.w, "…")) }
	rule := func(title string) {
		add(styleRule.Render("── " + title + " " + strings.Repeat("─", max(0, m.w-len([]rune(title))-4))))
	}
	for _, l := range m.headerLines() {
		add(l)
	}
	if m.report >= 0 {
		rule("failure report (j/k scroll, any other key closes)")
		for _, l := range m.reportLines()[m.report:] {
			if len(lines) >= m.h-1 {
				break
			}
			add(strings.ReplaceAll(l, "\t", "    "))
		}
		return strings.Join(lines, "\n")
	}
	if m.help {
		rule("keys")
		for _, k := range stepperKeys {
			add(fmt.Sprintf("  %-15s %s", k[0], k[1]))
		}
		add("")
		add(styleDim.Render("  any key closes this help"))
		return strings.Join(lines, "\n")
	}
	src, srcTitle := m.sourceLines(min(max((m.h-20)/4, 0), 3))
	gs := m.goroutineLines()
	fixed := len(lines) + 3 + len(src) + 1 // three rules, the footer
	room := max(m.h-fixed, 6)
	nG := min(len(gs), max(3, room/3))
	nEv := max(room-nG, 3)
	rule("events")
	for _, l := range m.eventLines(nEv) {
		add(l)
	}
	rule(srcTitle)
	for _, l := range src {
		add(l)
	}
	rule(fmt.Sprintf("goroutines (%d)", len(gs)))
	if nG < len(gs) {
		gs = gs[:nG-1]
		gs = append(gs, styleDim.Render(fmt.Sprintf("  … and %d more", len(m.c.Goroutines())-(nG-1))))
	}
	for _, l := range gs {
		add(l)
	}
	if m.h > 1 && len(lines) >= m.h { // a tiny terminal: keep the footer
		lines = lines[:m.h-1]
	}
	add(m.footer())
	return strings.Join(lines, "\n")
}

// headerLines are the two top lines: the test and its outcome; where the
// cursor is.
func (m *stepper) headerLines() []string {
	r := m.c.Reader()
	h := &r.Header
	top := styleTitle.Render(termSafe(h.Test)) + styleDim.Render("  "+termSafe(scheduleOf(h))+"  ")
	switch o := r.Outcome; {
	case o == nil:
		top += styleBad.Render("cut short: no outcome")
	case o.Kind == "pass":
		top += "passed"
	default:
		top += styleBad.Render(termSafe(firstLineOf(outcomeText(o))))
	}
	pos := "before the first event"
	if e, err := m.c.Event(); err == nil {
		pos = fmt.Sprintf("event %d/%d  step %d  %s  g%d", eventNumber(m.c.Index()), m.c.Len(), e.Step, time.Duration(e.Time), e.G)
	}
	pos += fmt.Sprintf("  running g%d  focus g%d", m.c.Running(), m.focused())
	if m.filter != nil {
		ids := make([]int, 0, len(m.filter))
		for g := range m.filter {
			ids = append(ids, int(g))
		}
		slices.Sort(ids)
		pos += "  only " + joinInts(ids, "g")
	}
	return []string{top, pos}
}

func joinInts(ns []int, prefix string) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = prefix + strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// eventLines renders n visible events around the current one, the current
// one marked.
func (m *stepper) eventLines(n int) []string {
	cur := m.c.Index()
	// Collect up to n/2 visible events before, then fill after. The scan
	// is bounded so a filter that hides most events stays responsive.
	const scanLimit = 4 * trace.FrameEvents
	collect := func(from, dir int64) []int64 {
		var out []int64
		for i, seen := from, 0; i >= 0 && i < m.c.Len() && len(out) < n && seen < scanLimit; i, seen = i+dir, seen+1 {
			if e, err := m.c.Peek(i); err == nil && m.visible(&e) {
				out = append(out, i)
			}
		}
		return out
	}
	before, after := collect(cur-1, -1), collect(cur+1, 1)
	// Half the window before the current event, unless the trace ends
	// sooner after it.
	nb := min(len(before), (n-1)/2)
	na := min(len(after), n-1-nb)
	nb = min(len(before), n-1-na)
	before = before[:nb]
	slices.Reverse(before)
	idx := before
	if cur >= 0 {
		idx = append(idx, cur)
	}
	idx = append(idx, after[:na]...)
	var out []string
	width := len(strconv.FormatInt(m.c.Len(), 10))
	for _, i := range idx {
		e, err := m.c.Peek(i)
		if err != nil {
			out = append(out, styleBad.Render(fmt.Sprintf("  %*d  %s", width, eventNumber(i), termSafe(err.Error()))))
			break
		}
		preempt := false
		if e.Kind == trace.KindSwitch {
			preempt, _ = m.c.IsPreemption(i)
		}
		l := fmt.Sprintf("%*d  %s", width, eventNumber(i), eventLine(&e, m.c.Labels(), preempt))
		switch {
		case i == cur:
			out = append(out, styleCurrent.Render("▶ "+l))
		case preempt:
			out = append(out, stylePreempt.Render("  "+l))
		case e.G == m.focused():
			out = append(out, "  "+l)
		default:
			out = append(out, styleDim.Render("  "+l))
		}
	}
	if len(out) == 0 {
		out = append(out, styleDim.Render("  (no events to show)"))
	}
	return out
}

// sourceLines renders the source around the current event's location,
// with ctx lines either side, and the section's title.
func (m *stepper) sourceLines(ctx int) ([]string, string) {
	e, err := m.c.Event()
	loc := e.Loc
	if err != nil || loc.File == "" {
		// An event without a location (a switch, a wake): show where its
		// goroutine is.
		for _, g := range m.c.Goroutines() {
			if err == nil && g.ID == e.G && g.Loc.File != "" {
				loc = g.Loc
			}
		}
	}
	title := ""
	if m.c.Index() == m.c.Len()-1 {
		// At the end, the line where the test reported its failure, when
		// its message names one: the last event is the scheduling point
		// before it.
		if f := m.failureLoc(); f != nil {
			loc = *f
			title = fmt.Sprintf("%s:%d (where the test failed)", filepath.Base(loc.File), loc.Line)
		}
	}
	if loc.File == "" {
		return []string{styleDim.Render("  (no source location for this event)")}, "source"
	}
	if title == "" {
		title = fmt.Sprintf("%s:%d (%s)", filepath.Base(loc.File), loc.Line, loc.Func)
	}
	title = termSafe(title)
	text, err := m.src.lines(loc.File)
	if err != nil {
		return []string{styleDim.Render("  (" + sourceNotAvailable(err) + ": " + termSafe(loc.File) + ")")}, title
	}
	var out []string
	for n := max(loc.Line-ctx, 1); n <= min(loc.Line+ctx, len(text)); n++ {
		l := fmt.Sprintf("%5d  %s", n, termSafe(strings.ReplaceAll(text[n-1], "\t", "    ")))
		if n == loc.Line {
			out = append(out, styleCurrent.Render("▶"+l))
		} else {
			out = append(out, " "+l)
		}
	}
	return out, title
}

// failedAt finds "file.go:12" in a failure's message.
var failedAt = regexp.MustCompile(`([\w.-]+\.go):(\d+)`)

// failureLoc is where the run's failure was reported, as its message says
// ("store_test.go:144: lost content"), with the file's path taken from the
// trace's own locations; nil when the message names no line or the trace
// no such file.
func (m *stepper) failureLoc() *trace.Location {
	if m.failLocDone {
		return m.failLoc
	}
	m.failLocDone = true
	o := m.c.Reader().Outcome
	if o == nil || o.Kind == "pass" {
		return nil
	}
	match := failedAt.FindStringSubmatch(o.Message)
	if match == nil {
		return nil
	}
	line, _ := strconv.Atoi(match[2])
	found := func(file string) bool {
		if filepath.Base(file) == match[1] {
			m.failLoc = &trace.Location{File: file, Line: line}
			return true
		}
		return false
	}
	for _, g := range m.c.Goroutines() {
		if found(g.Loc.File) {
			return m.failLoc
		}
	}
	r := m.c.Reader()
	for i := r.Len() - 1; i >= 0 && i >= r.Len()-50_000; i-- { // the end is where it is likely
		e, err := r.Event(i)
		if err != nil {
			break
		}
		if found(e.Loc.File) {
			break
		}
	}
	return m.failLoc
}

// goroutineLines renders every goroutine's state, the focused one marked.
func (m *stepper) goroutineLines() []string {
	var out []string
	f := m.focused()
	for _, g := range m.c.Goroutines() {
		mark := "  "
		if g.ID == f {
			mark = "* "
		}
		l := fmt.Sprintf("%sg%-4d %-9s", mark, g.ID, g.State)
		if g.Op != "" {
			l += " " + g.Op
			if g.Obj != "" {
				l += " " + g.Obj
			}
		}
		if g.Loc.File != "" {
			l += fmt.Sprintf(" at %s:%d", filepath.Base(g.Loc.File), g.Loc.Line)
		}
		l = termSafe(l)
		switch g.State {
		case "blocked":
			l = styleBad.Render(l)
		case "exited":
			l = styleDim.Render(l)
		}
		out = append(out, l)
	}
	return out
}

// footer is the prompt being typed, the status, or the key hints.
func (m *stepper) footer() string {
	switch {
	case m.input != inputNone:
		return inputPrompts[m.input] + m.text + "█"
	case m.status != "" && m.statusBad:
		return styleBad.Render(m.status)
	case m.status != "":
		return m.status
	}
	return styleDim.Render("j/k step · J/K focused goroutine · g step · f failure · r report · / search · F filter · ? help · q quit")
}

// reportLines is the failure's full report, by line; none for a pass or
// a trace cut short.
func (m *stepper) reportLines() []string {
	o := m.c.Reader().Outcome
	if o == nil || o.Report == "" {
		return nil
	}
	lines := strings.Split(strings.TrimRight(o.Report, "\n"), "\n")
	for i, l := range lines {
		lines[i] = termSafeText(l) // keeps tabs, which View expands
	}
	return lines
}

// outcomeName is how the run ended, in a word; "" when the trace does not
// say.
func outcomeName(o *trace.Outcome) string {
	if o == nil {
		return ""
	}
	return o.Kind
}

// outcomeText is the outcome as one message.
func outcomeText(o *trace.Outcome) string {
	switch {
	case o.Message == "":
		return o.Kind
	case strings.HasPrefix(o.Message, o.Kind):
		return o.Message
	}
	return o.Kind + ": " + o.Message
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
