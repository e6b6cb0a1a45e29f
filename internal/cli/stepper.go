package cli

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"

	"github.com/dstgo/dst/replay"
	"github.com/dstgo/dst/trace"
)

// stepperKeys is the stepper's key help, shown by ? and in the footer's
// short form.
var stepperKeys = [][2]string{
	{"j ↓ n space", "next event"},
	{"k ↑ p", "previous event"},
	{"J ]", "next event of the focused goroutine"},
	{"K [", "previous event of the focused goroutine"},
	{"tab shift+tab", "focus the next or previous goroutine"},
	{"g", "go to a step"},
	{"home end", "the first or the last event"},
	{"f", "jump to the failure (where the run ended)"},
	{"/", "search: g3 (a goroutine), Lock or block (an operation), a file, any text"},
	{". ,", "the next or previous match of the last search"},
	{"F", "show only some goroutines' events (1,3; empty: all)"},
	{"r", "the failure's report: every goroutine's state and stack"},
	{"?", "this help"},
	{"q ctrl+c", "quit"},
}

// interactive reports whether dstreplay talks to a person: stdin and
// stdout are both terminals.
func interactive(stdout io.Writer) bool {
	f, ok := stdout.(*os.File)
	return ok && term.IsTerminal(f.Fd()) && term.IsTerminal(os.Stdin.Fd())
}

// runStepper opens the trace at path in the interactive stepper.
func runStepper(e *env, path string) int {
	c, err := replay.Open(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay: %v\n", err)
		return ExitUsage
	}
	defer c.Close()
	m := newStepper(c, path)
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithOutput(e.stdout))
	if _, err := p.Run(); err != nil {
		fmt.Fprintf(e.stderr, "dstreplay: %v\n", err)
		return ExitFailure
	}
	if r := c.Reader(); r.Truncated != nil {
		fmt.Fprintf(e.stderr, "dstreplay: %v\n", r.Truncated)
		return ExitFailure
	}
	return ExitOK
}

// inputKind is what a prompt asks for.
type inputKind int

const (
	inputNone inputKind = iota
	inputStep
	inputSearch
	inputFilter
)

var inputPrompts = [...]string{
	inputStep:   "go to step: ",
	inputSearch: "search: ",
	inputFilter: "show goroutines (1,3; empty: all): ",
}

// stepper is the interactive view of a trace: a bubbletea model over a
// replay.Cursor.
type stepper struct {
	c    *replay.Cursor
	path string
	w, h int

	focus  int32          // the focused goroutine; 0: the current event's
	filter map[int32]bool // only these goroutines' events; nil: all

	input     inputKind // the prompt being typed, if any
	text      string    // what has been typed
	search    string    // the last search
	status    string    // a one-line message for the person
	statusBad bool
	help      bool
	report    int // the failure's report is shown from this line; -1: not shown

	src map[string][]string // source files by path; nil entry: not on disk

	failLoc     *trace.Location // where the failure was reported (failureLoc)
	failLocDone bool
}

func newStepper(c *replay.Cursor, path string) *stepper {
	m := &stepper{c: c, path: path, w: 100, h: 40, src: map[string][]string{}, report: -1}
	if c.Len() > 0 {
		m.move(c.Goto(0))
	}
	if r := c.Reader(); r.Truncated != nil {
		m.say(true, "the trace was cut short: the events up to its last complete frame are shown")
	}
	return m
}

func (m *stepper) Init() tea.Cmd { return nil }

// say sets the status line.
func (m *stepper) say(bad bool, format string, args ...any) {
	m.status, m.statusBad = fmt.Sprintf(format, args...), bad
}

// move reports the outcome of a cursor move.
func (m *stepper) move(err error) {
	if err != nil {
		m.say(true, "%v", err)
	}
}

// seek moves in dir to the next event that match accepts, saying so when
// there is none.
func (m *stepper) seek(dir int, what string, match func(*trace.Event) bool) {
	ok, err := m.c.Seek(dir, match)
	switch {
	case err != nil:
		m.move(err)
	case !ok && dir > 0:
		m.say(false, "no later %s", what)
	case !ok:
		m.say(false, "no earlier %s", what)
	}
}

// visible reports whether the filter shows events of goroutine g.
func (m *stepper) visible(e *trace.Event) bool { return m.filter == nil || m.filter[e.G] }

// focused is the focused goroutine: the chosen one, or the current event's.
func (m *stepper) focused() int32 {
	if m.focus != 0 {
		return m.focus
	}
	if e, err := m.c.Event(); err == nil && e.G != 0 {
		return e.G
	}
	return m.c.Running() // before the first event, or at one of the scheduler's
}

func (m *stepper) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tea.KeyMsg:
		if msg.Type == tea.KeyRunes && !msg.Paste {
			// Keys typed quickly arrive together: take them one by one,
			// so "gq" is g then q and "/Lock" opens a search for Lock.
			for _, r := range msg.Runes {
				if cmd := m.keyOrType(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}); cmd != nil {
					return m, cmd
				}
			}
			return m, nil
		}
		return m, m.keyOrType(msg)
	}
	return m, nil
}

// keyOrType handles one key: typed into the open prompt, or a command.
func (m *stepper) keyOrType(k tea.KeyMsg) tea.Cmd {
	if m.input != inputNone {
		m.typeKey(k)
		return nil
	}
	return m.key(k.String())
}

// typeKey handles a key while a prompt is open.
func (m *stepper) typeKey(k tea.KeyMsg) {
	switch k.Type {
	case tea.KeyEnter:
		kind, text := m.input, strings.TrimSpace(m.text)
		m.input, m.text = inputNone, ""
		m.submit(kind, text)
	case tea.KeyEsc, tea.KeyCtrlC:
		m.input, m.text = inputNone, ""
	case tea.KeyBackspace:
		if r := []rune(m.text); len(r) > 0 {
			m.text = string(r[:len(r)-1])
		}
	case tea.KeyRunes, tea.KeySpace:
		m.text += string(k.Runes)
	}
}

// submit acts on a prompt's answer.
func (m *stepper) submit(kind inputKind, text string) {
	switch kind {
	case inputStep:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || n < 0 {
			m.say(true, "go to step: %q is not a step number", text)
			return
		}
		m.move(m.c.GotoStep(n))
		if e, err := m.c.Event(); err == nil && e.Step != n {
			m.say(false, "step %d has no events; at step %d", n, e.Step)
		}
	case inputSearch:
		if text == "" {
			return
		}
		m.search = text
		m.find(1)
	case inputFilter:
		if text == "" {
			m.filter = nil
			m.say(false, "showing every goroutine")
			return
		}
		f := map[int32]bool{}
		for _, s := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' }) {
			n, err := strconv.Atoi(strings.TrimPrefix(s, "g"))
			if err != nil {
				m.say(true, "show goroutines: %q is not a goroutine id", s)
				return
			}
			f[int32(n)] = true
		}
		m.filter = f
		if e, err := m.c.Event(); err == nil && !m.visible(&e) {
			m.seek(1, "event of those goroutines", m.visible)
		}
	}
}

// find moves to the next (dir 1) or previous (dir -1) match of the search.
func (m *stepper) find(dir int) {
	if m.search == "" {
		m.say(false, "no search yet: / searches")
		return
	}
	match := searchMatcher(m.search, m.c)
	m.seek(dir, fmt.Sprintf("match for %q", m.search), func(e *trace.Event) bool { return m.visible(e) && match(e) })
}

// searchMatcher returns what a search query matches: "g3" the events of
// goroutine 3, an operation or event kind ("Lock", "block") those events,
// anything else the events whose line, file or function contains it.
func searchMatcher(q string, c *replay.Cursor) func(*trace.Event) bool {
	if n, err := strconv.Atoi(strings.TrimPrefix(q, "g")); err == nil && strings.HasPrefix(q, "g") {
		return func(e *trace.Event) bool { return e.G == int32(n) }
	}
	if slices.Contains(trace.OpNames, q) || isKindName(q) {
		return func(e *trace.Event) bool { return matchesOp(e, q) }
	}
	lower := strings.ToLower(q)
	return func(e *trace.Event) bool {
		return strings.Contains(strings.ToLower(e.Format(c.Labels())), lower) ||
			strings.Contains(strings.ToLower(e.Loc.File), lower) ||
			strings.Contains(strings.ToLower(e.Loc.Func), lower)
	}
}

func isKindName(s string) bool {
	for k := trace.Kind(1); trace.SpecOf(k).Name != fmt.Sprintf("kind(%d)", k); k++ {
		if trace.SpecOf(k).Name == s {
			return true
		}
	}
	return false
}

// key handles a key outside prompts.
func (m *stepper) key(k string) tea.Cmd {
	m.status = ""
	if m.help && k != "q" && k != "ctrl+c" {
		m.help = false
		return nil
	}
	if m.report >= 0 && k != "q" && k != "ctrl+c" {
		switch k { // the report scrolls; any other key closes it
		case "j", "down", " ", "n":
			m.report = min(m.report+1, max(len(m.reportLines())-1, 0))
		case "k", "up", "p":
			m.report = max(m.report-1, 0)
		default:
			m.report = -1
		}
		return nil
	}
	switch k {
	case "q", "ctrl+c":
		return tea.Quit
	case "?":
		m.help = true
	case "r":
		if len(m.reportLines()) == 0 {
			m.say(false, "no failure report: %s", cmp.Or(outcomeName(m.c.Reader().Outcome), "the trace was cut short"))
			return nil
		}
		m.report = 0
	case "j", "down", "n", " ":
		m.seek(1, "event", m.visible)
	case "k", "up", "p":
		m.seek(-1, "event", m.visible)
	case "J", "]", "K", "[":
		g, dir := m.focused(), 1
		if k == "K" || k == "[" {
			dir = -1
		}
		m.focus = g
		m.seek(dir, fmt.Sprintf("event of g%d", g), func(e *trace.Event) bool { return e.G == g })
	case "tab", "shift+tab":
		m.cycleFocus(k == "tab")
	case "home":
		if m.c.Len() > 0 {
			m.move(m.c.Goto(0))
		}
	case "end", "f":
		if m.c.Len() > 0 {
			m.move(m.c.Goto(m.c.Len() - 1))
		}
		if k == "f" {
			m.sayOutcome()
		}
	case "g":
		m.input = inputStep
	case "/":
		m.input = inputSearch
	case "F":
		m.input = inputFilter
	case ".":
		m.find(1)
	case ",":
		m.find(-1)
	}
	return nil
}

// sayOutcome puts how the run ended on the status line.
func (m *stepper) sayOutcome() {
	o := m.c.Reader().Outcome
	switch {
	case o == nil:
		m.say(true, "the trace was cut short: this is the last event it has")
	case o.Kind == "pass":
		m.say(false, "the run passed; it ended here")
	default:
		m.say(true, "the run ended here: %s", firstLineOf(outcomeText(o)))
	}
}

// cycleFocus moves the focus to the next (or previous) goroutine.
func (m *stepper) cycleFocus(forward bool) {
	gs := m.c.Goroutines()
	if len(gs) == 0 {
		return
	}
	cur := m.focused()
	i := slices.IndexFunc(gs, func(g replay.GoroutineState) bool { return g.ID == cur })
	switch {
	case i < 0:
		i = 0
	case forward:
		i = (i + 1) % len(gs)
	default:
		i = (i - 1 + len(gs)) % len(gs)
	}
	m.focus = gs[i].ID
}

// Styles.
var (
	styleTitle   = lipgloss.NewStyle().Bold(true)
	styleBad     = lipgloss.NewStyle().Foreground(lipgloss.Color("9")).Bold(true)
	styleDim     = lipgloss.NewStyle().Faint(true)
	styleCurrent = lipgloss.NewStyle().Reverse(true)
	styleRule    = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
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
	top := styleTitle.Render(h.Test) + styleDim.Render("  "+scheduleOf(h)+"  ")
	switch o := r.Outcome; {
	case o == nil:
		top += styleBad.Render("cut short: no outcome")
	case o.Kind == "pass":
		top += "passed"
	default:
		top += styleBad.Render(firstLineOf(outcomeText(o)))
	}
	pos := "before the first event"
	if e, err := m.c.Event(); err == nil {
		pos = fmt.Sprintf("event %d/%d  step %d  %s  g%d", m.c.Index()+1, m.c.Len(), e.Step, time.Duration(e.Time), e.G)
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
			out = append(out, styleBad.Render(fmt.Sprintf("  %*d  %v", width, i+1, err)))
			break
		}
		l := fmt.Sprintf("%*d  %s", width, i+1, e.Format(m.c.Labels()))
		switch {
		case i == cur:
			out = append(out, styleCurrent.Render("▶ "+l))
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
	text, ok := m.src[loc.File]
	if !ok {
		if b, err := os.ReadFile(loc.File); err == nil {
			text = strings.Split(string(b), "\n")
		}
		m.src[loc.File] = text
	}
	if text == nil {
		return []string{styleDim.Render("  (source not on disk: " + loc.File + ")")}, title
	}
	var out []string
	for n := max(loc.Line-ctx, 1); n <= min(loc.Line+ctx, len(text)); n++ {
		l := fmt.Sprintf("%5d  %s", n, strings.ReplaceAll(text[n-1], "\t", "    "))
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
	return strings.Split(strings.TrimRight(o.Report, "\n"), "\n")
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
