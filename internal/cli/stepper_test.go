package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/dstgo/dst/replay"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simdisk"
	"github.com/dstgo/dst/sched/simnet"
	"github.com/dstgo/dst/trace"
)

// deadlockTrace writes the trace of a lock-order deadlock between two
// goroutines (the main goroutine waits for both).
func deadlockTrace(t *testing.T) string {
	t.Helper()
	res, err := schedtest.Explore(schedtest.Options{Seed: 7, Iterations: 300, Strategy: "random"}, func(t *schedtest.T) {
		var a, b sched.Mutex
		var wg sched.WaitGroup
		wg.Go(func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
		wg.Go(func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
		wg.Wait()
	})
	if err != nil || res.Failure == nil {
		t.Fatalf("no failure: %v", err)
	}
	path := SaveTrace(t, res, "abba.trace")
	return path
}

// stepperOn opens the stepper on a trace, sized as a terminal.
func stepperOn(t *testing.T, path string) *stepper {
	t.Helper()
	c, err := replay.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	m := newStepper(c, path)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m
}

// press sends keys: a string of runes arrives as one message, as when
// typed quickly; "enter", "esc", "tab", "up" and "down" are named keys.
func press(m *stepper, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "tab":
			msg = tea.KeyMsg{Type: tea.KeyTab}
		case "up":
			msg = tea.KeyMsg{Type: tea.KeyUp}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		case "home":
			msg = tea.KeyMsg{Type: tea.KeyHome}
		case "backspace":
			msg = tea.KeyMsg{Type: tea.KeyBackspace}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		_, cmd = m.Update(msg)
	}
	return cmd
}

func (m *stepper) event(t *testing.T) trace.Event {
	t.Helper()
	e, err := m.c.Event()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestStepperMoves(t *testing.T) {
	m := stepperOn(t, deadlockTrace(t))
	n := m.c.Len()
	if m.c.Index() != 0 {
		t.Fatalf("opens at event %d, want the first", m.c.Index())
	}
	press(m, "j", "down", " ")
	if m.c.Index() != 3 {
		t.Fatalf("three nexts: at %d", m.c.Index())
	}
	press(m, "k", "up")
	if m.c.Index() != 1 {
		t.Fatalf("two prevs: at %d", m.c.Index())
	}
	// Keys typed together are taken one by one.
	press(m, "jjjk")
	if m.c.Index() != 3 {
		t.Fatalf("jjjk: at %d", m.c.Index())
	}
	press(m, "f")
	if m.c.Index() != n-1 || !strings.Contains(m.status, "deadlock") {
		t.Fatalf("f: at %d of %d, status %q", m.c.Index(), n, m.status)
	}
	if !strings.Contains(plain(m.View()), "the run ended here") {
		t.Fatalf("the failure is not on the screen:\n%s", m.View())
	}
	press(m, "home")
	if m.c.Index() != 0 {
		t.Fatalf("home: at %d", m.c.Index())
	}
	// Go to a step.
	r := m.c.Reader()
	last, _ := r.Event(n - 1)
	want := last.Step / 2
	press(m, "g", "x", "backspace")
	press(m, strings.Split(itoa(want), "")...)
	press(m, "enter")
	if e := m.event(t); e.Step != want {
		t.Fatalf("g %d enter: at step %d", want, e.Step)
	}
	if first, _ := r.SeekStep(want); m.c.Index() != first {
		t.Fatalf("g %d: at event %d, want the step's first event %d", want, m.c.Index(), first)
	}
	press(m, "g", "nonsense", "enter")
	if !m.statusBad || !strings.Contains(m.status, "not a step") {
		t.Fatalf("a bad step number: status %q", m.status)
	}
	// Esc closes a prompt without acting.
	at := m.c.Index()
	press(m, "g", "0", "esc")
	if m.c.Index() != at || m.input != inputNone {
		t.Fatal("esc did not cancel the prompt")
	}
	if cmd := press(m, "q"); cmd == nil {
		t.Fatal("q did not quit")
	}
}

func TestStepperFocusedGoroutine(t *testing.T) {
	m := stepperOn(t, deadlockTrace(t))
	// Move to the first event of goroutine 2, then walk its events.
	press(m, "/", "g2", "enter")
	if e := m.event(t); e.G != 2 {
		t.Fatalf("search g2 stopped at goroutine %d", e.G)
	}
	var prev int64 = -1
	for range 3 {
		press(m, "J")
		e := m.event(t)
		if e.G != 2 || m.c.Index() <= prev {
			t.Fatalf("J: at event %d of goroutine %d", m.c.Index(), e.G)
		}
		prev = m.c.Index()
	}
	press(m, "K")
	if e := m.event(t); e.G != 2 || m.c.Index() >= prev {
		t.Fatalf("K: at event %d of goroutine %d", m.c.Index(), e.G)
	}
	// Tab moves the focus; J then follows the focused goroutine.
	press(m, "tab")
	if m.focus == 2 || m.focus == 0 {
		t.Fatalf("tab: focus %d", m.focus)
	}
	g := m.focus
	if ok, _ := m.c.Seek(1, func(e *trace.Event) bool { return e.G == g }); ok {
		m.c.Goto(m.c.Index() - 1) // just before it
		press(m, "J")
		if e := m.event(t); e.G != g {
			t.Fatalf("J after tab: goroutine %d, want %d", e.G, g)
		}
	}
	if !strings.Contains(plain(m.View()), "* g"+itoa(int64(g))) {
		t.Fatalf("the focused goroutine is not marked:\n%s", plain(m.View()))
	}
}

func TestStepperSearchAndFilter(t *testing.T) {
	m := stepperOn(t, deadlockTrace(t))
	press(m, "/Lock", "enter")
	if e := m.event(t); !matchesOp(&e, "Lock", false) {
		t.Fatalf("search Lock: at %s", e.Format(nil))
	}
	first := m.c.Index()
	press(m, ".")
	if e := m.event(t); !matchesOp(&e, "Lock", false) || m.c.Index() <= first {
		t.Fatalf(". : at %d %s", m.c.Index(), e.Format(nil))
	}
	press(m, ",")
	if m.c.Index() != first {
		t.Fatalf(", : at %d, want %d", m.c.Index(), first)
	}
	// Text and file names match too.
	press(m, "home", "/", "bodies_test.go", "enter") // not this package's file
	if m.c.Index() != 0 || !strings.Contains(m.status, "no later match") {
		t.Fatalf("search for an absent file: at %d, status %q", m.c.Index(), m.status)
	}
	press(m, "/stepper_test", "enter")
	if e := m.event(t); !strings.HasSuffix(e.Loc.File, "stepper_test.go") {
		t.Fatalf("search by file: at %s", e.Format(nil))
	}
	// The filter hides the other goroutines' events from the list and
	// from stepping.
	press(m, "home", "F", "3", "enter")
	if e := m.event(t); e.G != 3 {
		t.Fatalf("filter g3: at goroutine %d", e.G)
	}
	for range 5 {
		press(m, "j")
		if e := m.event(t); e.G != 3 {
			t.Fatalf("stepping with filter g3 reached goroutine %d", e.G)
		}
	}
	view := plain(m.View())
	events := section(view, "events")
	for _, l := range strings.Split(events, "\n") {
		if l != "" && !strings.Contains(l, " g3 ") {
			t.Fatalf("filter g3 lists %q", l)
		}
	}
	if !strings.Contains(view, "only g3") {
		t.Fatalf("the filter is not shown:\n%s", view)
	}
	press(m, "F", "enter")
	if m.filter != nil {
		t.Fatal("an empty filter did not show every goroutine")
	}
}

func TestStepperScreen(t *testing.T) {
	m := stepperOn(t, deadlockTrace(t))
	press(m, "f")
	view := plain(m.View())
	lines := strings.Split(view, "\n")
	if len(lines) > 40 {
		t.Fatalf("%d lines on a 40-line terminal", len(lines))
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > 120 {
			t.Fatalf("a line wider than the terminal: %q", l)
		}
	}
	// At the deadlock: the outcome, three blocked goroutines with what they
	// wait for, the current event marked, its source.
	for _, want := range []string{"deadlock", "── events", "▶", "── goroutines (3)", "blocked", "Lock Mutex#", "Wait WaitGroup#"} {
		if !strings.Contains(view, want) {
			t.Errorf("no %q on the screen:\n%s", want, view)
		}
	}
	// The switch that preempted g2 says so; the others, away from
	// goroutines that blocked, do not.
	if n := strings.Count(view, "preempt to=3 choice=1 of=2"); n != 1 || strings.Count(view, " preempt ") != 1 {
		t.Errorf("the preemption is marked %d times:\n%s", n, view)
	}
	if n := len(regexp.MustCompile(`(?m)^. g\d+ +blocked `).FindAllString(section(view, "goroutines (3)"), -1)); n != 3 {
		t.Errorf("%d goroutines shown blocked, want 3:\n%s", n, view)
	}
	// The source of the last blocking operation is this file, on disk.
	src := section(view, "stepper_test.go:")
	if !strings.Contains(src, "▶") || !strings.Contains(src, "Lock()") {
		t.Errorf("the source around the event is missing:\n%s", view)
	}
	// r shows the failure's report, which scrolls; another key closes it.
	press(m, "r")
	rep := plain(m.View())
	if !strings.Contains(rep, "── failure report") || !strings.Contains(rep, m.c.Reader().Outcome.Report[:20]) {
		t.Fatalf("r shows no report:\n%s", rep)
	}
	press(m, "j")
	if m.report != 1 || plain(m.View()) == rep {
		t.Fatalf("j in the report: line %d", m.report)
	}
	press(m, "x")
	if m.report != -1 {
		t.Fatal("a key did not close the report")
	}
	press(m, "?")
	if h := plain(m.View()); !strings.Contains(h, "── keys") || !strings.Contains(h, "jump to the failure") {
		t.Fatalf("? shows no help:\n%s", h)
	}
	press(m, "x")
	if m.help {
		t.Fatal("a key did not close the help")
	}
	// A small terminal still gets a whole screen.
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 12})
	if n := len(strings.Split(m.View(), "\n")); n > 12 {
		t.Errorf("%d lines on a 12-line terminal", n)
	}
}

func TestStepperBadInput(t *testing.T) {
	var out, errb strings.Builder
	if code := runStepper(&env{stdout: &out, stderr: &errb}, filepath.Join(t.TempDir(), "missing.trace")); code != ExitUsage ||
		!strings.Contains(errb.String(), "missing.trace") {
		t.Fatalf("a missing file: exit %d, %q", code, errb.String())
	}
	// A trace cut short opens at what it has, and says so.
	full, err := os.ReadFile(deadlockTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.trace")
	if err := os.WriteFile(cut, full[:len(full)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	m := stepperOn(t, cut)
	if m.c.Len() == 0 {
		t.Fatal("the cut trace shows no events")
	}
	view := plain(m.View())
	if !strings.Contains(view, "cut short") {
		t.Fatalf("the cut trace does not say so:\n%s", view)
	}
	press(m, "f")
	if !strings.Contains(m.status, "cut short") {
		t.Fatalf("f on a cut trace: %q", m.status)
	}
	// A trace whose source is not available (not on disk, and outside the
	// module) shows the events and says where the source was.
	m = stepperOn(t, synthTraceAt(t, "/nonexistent/src/worker.go"))
	press(m, "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j")
	if view := plain(m.View()); !strings.Contains(view, "source not available: ") || !strings.Contains(view, "/nonexistent/src/worker.go") || !strings.Contains(view, "Lock Mutex#") {
		t.Fatalf("source not available:\n%s", view)
	}
}

// plain strips styling.
func plain(s string) string { return ansi.Strip(s) }

// section returns the lines of view after the rule whose title starts with
// title, up to the next rule.
func section(view, title string) string {
	var out []string
	in := false
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, "── ") {
			in = strings.HasPrefix(l, "── "+title)
			continue
		}
		if in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestStepperInTerminal drives the real command in a terminal: tmux runs
// dstreplay on a trace, keys go in with send-keys, the screen comes back
// with capture-pane.
func TestStepperInTerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("DST_REQUIRE_TOOLS") == "1" {
			t.Fatal("tmux is not installed, and DST_REQUIRE_TOOLS=1 (.ci/run installs it)")
		}
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "dstreplay")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/dstgo/dst/cmd/dstreplay").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	path := deadlockTrace(t)
	done := filepath.Join(dir, "exit")
	sock := fmt.Sprintf("dst-stepper-%d", os.Getpid())
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	shell := fmt.Sprintf("%s %s; echo $? > %s", bin, path, done)
	run("new-session", "-d", "-s", "dst", "-x", "120", "-y", "40", shell)
	for _, sock := range []string{sock, sock + "-cut"} {
		t.Cleanup(func() { exec.Command(tmux, "-L", sock, "kill-server").Run() })
	}
	// screen waits for a screen that shows every one of wants: a capture
	// may come while the terminal is drawn, part old and part new.
	screen := func(wants ...string) string {
		t.Helper()
		var s string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			s = run("capture-pane", "-p", "-t", "dst")
			if !slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(s, w) }) {
				return s
			}
		}
		t.Fatalf("the screen never showed all of %q:\n%s", wants, s)
		return ""
	}
	n := func() int64 { c, _ := replay.Open(path); defer c.Close(); return c.Len() }()
	s := screen(fmt.Sprintf("event 1/%d", n), "── goroutines", "? help")
	run("send-keys", "-t", "dst", "j", "j")
	screen(fmt.Sprintf("event 3/%d", n))
	run("send-keys", "-t", "dst", "f")
	screen("the run ended here", fmt.Sprintf("event %d/%d", n, n), "stepper_test.go:")
	run("send-keys", "-t", "dst", "k")
	screen(fmt.Sprintf("event %d/%d", n-1, n))
	run("send-keys", "-t", "dst", "g", "3", "Enter")
	screen("step 3 ")
	run("send-keys", "-t", "dst", "/", "g3", "Enter")
	screen("focus g3", "▶") // the current event marked
	run("send-keys", "-t", "dst", "?")
	screen("── keys")
	run("send-keys", "-t", "dst", "Escape")
	screen("── events")
	run("send-keys", "-t", "dst", "q")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(done); err == nil && len(b) > 0 {
			if code := strings.TrimSpace(string(b)); code != "0" {
				t.Fatalf("dstreplay exited with %s", code)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("q did not quit")
		}
	}

	// A trace cut short: the stepper shows what it has, says so, and the
	// exit code says so too.
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.trace")
	if err := os.WriteFile(cut, full[:len(full)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(done)
	// A server of its own: the first one exits with its last session, and a
	// client that reaches it meanwhile fails ("server exited unexpectedly").
	sock += "-cut"
	run("new-session", "-d", "-s", "cut", "-x", "120", "-y", "40", fmt.Sprintf("%s %s 2>%s.err; echo $? > %s", bin, cut, done, done))
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		s = run("capture-pane", "-p", "-t", "cut")
		if strings.Contains(s, "cut short") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cut trace's screen:\n%s", s)
		}
	}
	run("send-keys", "-t", "cut", "q")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(done); err == nil && len(b) > 0 {
			msg, _ := os.ReadFile(done + ".err")
			if code := strings.TrimSpace(string(b)); code != "1" || !strings.Contains(string(msg), "cut short") {
				t.Fatalf("a cut trace: exit %s, stderr %q", code, msg)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("q did not quit")
		}
	}
}

// At the end of a run that failed a check, the source pane shows the line
// of the check, which the failure's message names, rather than the last
// scheduling point before it.
func TestStepperShowsWhereTheTestFailed(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Record: true}, func(t *schedtest.T) {
		sched.Yield()
		t.Error("the check that failed") // marker: stepper-failure-line
	})
	if err != nil || res.Failure == nil {
		t.Fatal(err, res.Failure)
	}
	path := SaveTrace(t, res, "failed.trace")
	m := stepperOn(t, path)
	press(m, "f")
	if v := m.View(); !strings.Contains(v, "(where the test failed)") || !strings.Contains(v, "marker: stepper-failure-line") {
		t.Errorf("at the end, the source pane does not show the failing check:\n%s", v)
	}
	press(m, "k")
	if v := m.View(); strings.Contains(v, "(where the test failed)") {
		t.Errorf("before the end, the source pane still shows the failing check:\n%s", v)
	}
}

// TestStepperFindsIO: the stepper lists a simulated connection's sends
// and reads, and a disk's writes and syncs, as events, and its search
// finds them by their operation or by the kind io.
func TestStepperFindsIO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Record: true}, func(st *schedtest.T) {
		l, err := simnet.Listen("tcp", "127.0.0.1:8080")
		if err != nil {
			st.Fatal(err)
		}
		defer l.Close()
		var wg sched.WaitGroup
		wg.Go(func() {
			if s, err := l.Accept(); err == nil {
				s.Read(make([]byte, 10))
				s.Close()
			}
		})
		c, err := simnet.Dial("tcp", "127.0.0.1:8080")
		if err != nil {
			st.Fatal(err)
		}
		c.Write([]byte("ping"))
		wg.Wait()
		c.Close()
		f, err := os.Create(path)
		if err != nil {
			st.Fatal(err)
		}
		simdisk.Write(f, []byte("state"))
		simdisk.Sync(f)
		f.Close()
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	m := stepperOn(t, SaveTrace(t, res, "io.trace"))
	for _, q := range []string{"io", "Send", "Recv", "Write", "Sync"} {
		press(m, "home", "/"+q, "enter")
		e := m.event(t)
		if e.Kind != trace.KindIO || q != "io" && trace.OpName(e.Op) != q {
			t.Errorf("search %s: at %s", q, e.Format(nil))
		}
		if q == "Send" && !strings.Contains(section(plain(m.View()), "events"), "io Send tcp 127.0.0.1:32768 → 127.0.0.1:8080 (the test → 127.0.0.1:8080)#") {
			t.Errorf("the events at the send:\n%s", section(plain(m.View()), "events"))
		}
	}
}
