package cli

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
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
	{"/", "search: g3 (a goroutine), Lock or block (an operation), preempt, a file, any text"},
	{". ,", "the next or previous match of the last search"},
	{"F", "show only some goroutines' events (1,3; empty: all)"},
	{"a", "show or hide the fault points that did not fire (hidden at first)"},
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
		fmt.Fprintf(e.stderr, "dstreplay: %s\n", termSafe(err.Error()))
		return ExitUsage
	}
	defer c.Close()
	m := newStepper(c, path)
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithOutput(e.stdout))
	if _, err := p.Run(); err != nil {
		fmt.Fprintf(e.stderr, "dstreplay: %s\n", termSafe(err.Error()))
		return ExitFailure
	}
	if r := c.Reader(); r.Truncated != nil {
		fmt.Fprintf(e.stderr, "dstreplay: %s\n", termSafe(r.Truncated.Error()))
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
	all    bool           // also the fault points that did not fire

	input     inputKind // the prompt being typed, if any
	text      string    // what has been typed
	search    string    // the last search
	status    string    // a one-line message for the person
	statusBad bool
	help      bool
	report    int // the failure's report is shown from this line; -1: not shown

	src *sourceReader // the source files of the trace's locations

	failLoc     *trace.Location // where the failure was reported (failureLoc)
	failLocDone bool
}

func newStepper(c *replay.Cursor, path string) *stepper {
	m := &stepper{c: c, path: path, w: 100, h: 40, src: newSourceReader(path), report: -1}
	if c.Len() > 0 {
		m.move(c.Goto(0))
	}
	if r := c.Reader(); r.Truncated != nil {
		m.say(true, "the trace was cut short: the events up to its last complete frame are shown")
	}
	return m
}

func (m *stepper) Init() tea.Cmd { return nil }

// say sets the status line (its control characters escaped: it may
// quote the trace).
func (m *stepper) say(bad bool, format string, args ...any) {
	m.status, m.statusBad = termSafe(fmt.Sprintf(format, args...)), bad
}

// move reports the outcome of a cursor move.
func (m *stepper) move(err error) {
	if err != nil {
		m.say(true, "%v", err)
	}
}

// seek moves in dir to the next event that match accepts, given its
// index, saying so when there is none.
func (m *stepper) seek(dir int, what string, match func(int64, *trace.Event) bool) {
	ok, err := m.c.SeekIndex(dir, match)
	switch {
	case err != nil:
		m.move(err)
	case !ok && dir > 0:
		m.say(false, "no later %s", what)
	case !ok:
		m.say(false, "no earlier %s", what)
	}
}

// visible reports whether the listing shows e: the filter shows its
// goroutine, and it is not a fault point that did not fire, unless all
// events are shown.
func (m *stepper) visible(e *trace.Event) bool {
	return (m.filter == nil || m.filter[e.G]) && (m.all || !unfiredFault(e))
}

// visibleAt is visible for seek.
func (m *stepper) visibleAt(_ int64, e *trace.Event) bool { return m.visible(e) }

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
			m.seek(1, "event of those goroutines", m.visibleAt)
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
	m.seek(dir, fmt.Sprintf("match for %q", m.search), func(i int64, e *trace.Event) bool { return m.visible(e) && match(i, e) })
}

// searchMatcher returns what a search query matches, given an event and
// its index: "g3" the events of goroutine 3, an operation or event kind
// ("Lock", "block") those events, "preempt" the preemptions, anything else
// the events whose line, file or function contains it.
func searchMatcher(q string, c *replay.Cursor) func(int64, *trace.Event) bool {
	if n, err := strconv.Atoi(strings.TrimPrefix(q, "g")); err == nil && strings.HasPrefix(q, "g") {
		return func(_ int64, e *trace.Event) bool { return e.G == int32(n) }
	}
	preempt := func(i int64, e *trace.Event) bool {
		if e.Kind != trace.KindSwitch {
			return false
		}
		ok, _ := c.IsPreemption(i)
		return ok
	}
	if slices.Contains(trace.OpNames, q) || isKindName(q) || q == preemptWord {
		return func(i int64, e *trace.Event) bool { return matchesOp(e, q, q == preemptWord && preempt(i, e)) }
	}
	lower := strings.ToLower(q)
	return func(i int64, e *trace.Event) bool {
		return strings.Contains(strings.ToLower(eventLine(e, c.Labels(), preempt(i, e))), lower) ||
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
		m.seek(1, "event", m.visibleAt)
	case "k", "up", "p":
		m.seek(-1, "event", m.visibleAt)
	case "J", "]", "K", "[":
		g, dir := m.focused(), 1
		if k == "K" || k == "[" {
			dir = -1
		}
		m.focus = g
		m.seek(dir, fmt.Sprintf("event of g%d", g), func(_ int64, e *trace.Event) bool { return e.G == g && (m.all || !unfiredFault(e)) })
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
	case "a":
		m.all = !m.all
		if m.all {
			m.say(false, "showing every event, the fault points that did not fire too")
		} else {
			m.say(false, "hiding the fault points that did not fire")
			if e, err := m.c.Event(); err == nil && !m.visible(&e) {
				m.seek(1, "event shown", m.visibleAt)
			}
		}
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
