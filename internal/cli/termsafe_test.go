package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dstgo/dst/trace"
)

func TestTermSafe(t *testing.T) {
	for _, c := range []struct{ in, line, text string }{
		{"plain Mutex#3.Lock at a.go:7", "plain Mutex#3.Lock at a.go:7", "plain Mutex#3.Lock at a.go:7"},
		{"\x1b[2J\x1b]0;title\a", `\x1b[2J\x1b]0;title\a`, `\x1b[2J\x1b]0;title\a`},
		{"ok\rFAKE", `ok\rFAKE`, `ok\rFAKE`},
		{"a\r\nb", `a\r\nb`, "a\\r\nb"},
		{"a\n\tb", `a\n\tb`, "a\n\tb"},
		{"\u009b31m\u0085", `\u009b31m\u0085`, `\u009b31m\u0085`},
		{"x\x9by\x7f", `x\x9by\x7f`, `x\x9by\x7f`},
		{"\x00\x08", `\x00\x08`, `\x00\x08`},
		{"héllo → 世界 \\x1b", "héllo → 世界 \\x1b", "héllo → 世界 \\x1b"},
	} {
		if got := termSafe(c.in); got != c.line {
			t.Errorf("termSafe(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := termSafeText(c.in); got != c.text {
			t.Errorf("termSafeText(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

func TestTermSafeWriter(t *testing.T) {
	var b bytes.Buffer
	w := newTermSafeWriter(&b)
	in := "line one\n\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n\ttab\r\n"
	n, err := w.Write([]byte(in))
	if err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(in))
	}
	assertTermSafe(t, b.String())
	if want := "line one\n\\x1b]8;;http://x\\x1b\\link\\x1b]8;;\\x1b\\\n\ttab\\r\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

// A stream's characters cut between two Writes (a child's output comes in
// pipe-sized chunks) come out whole; bytes that are not UTF-8, escaped,
// whether cut or at the end.
// Regression (found in review, fixed): "…" cut in two was written as
// \xe2\x80 and \xa6.
func TestTermSafeStream(t *testing.T) {
	in := "a … b €\x1b[2J é\xff\xe2\x80"
	for cut := range len(in) + 1 {
		var b bytes.Buffer
		w := newTermSafeStream(&b)
		for _, part := range []string{in[:cut], in[cut:]} {
			if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := `a … b €\x1b[2J é\xff\xe2\x80`; b.String() != want {
			t.Fatalf("cut at %d: wrote %q, want %q", cut, b.String(), want)
		}
	}
}

// assertTermSafe fails t if out holds what a terminal acts on: ESC, BEL,
// a carriage return, any other C0 control but newline and tab, DEL, or a
// C1 control (as a character or a raw byte).
func assertTermSafe(t *testing.T, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("output holds bytes that are not UTF-8 (a raw C1 control?): %q", out[:min(len(out), 400)])
	}
	for i, r := range out {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
			t.Fatalf("output holds control character %U at byte %d: %q", r, i, excerpt(out, i))
		}
	}
}

func excerpt(s string, i int) string {
	return s[max(i-40, 0):min(i+40, len(s))]
}

// hostileTrace writes a trace whose strings hold terminal escapes in every
// place a trace has strings: the header's test, package, strategy, Go
// version and options; an object's name; log, fault, panic and fail
// texts; a location's file and function; the outcome's kind, message and
// report.
func hostileTrace(t *testing.T) string {
	t.Helper()
	const (
		clear = "\x1b[2J\x1b[H"                             // clear the screen
		title = "\x1b]0;pwned\a"                            // set the window's title
		link  = "\x1b]8;;https://evil\x1b\\x\x1b]8;;\x1b\\" // a hyperlink
		c1    = "\u009b31m\x9b"                             // CSI as a C1 character, and as a raw byte
	)
	h := &trace.Header{
		Package:   "example.com/m" + clear,
		Test:      "TestM" + title + "\rFAKE",
		GoVersion: "go1.26" + c1,
		GOOS:      "linux\x7f",
		GOARCH:    "amd64",
		Strategy:  "random" + link,
		Detail:    true,
		Options:   []string{"fault.x" + title + "=0.5", "clock=" + clear},
	}
	loc := trace.Location{Func: "example.com/m.f" + title, File: "/src/m" + clear + "/m_test.go", Line: 3}
	evs := []trace.Event{
		{Kind: trace.KindSpawn, Arg: 1},
		{Kind: trace.KindObject, G: 1, Obj: 1, Text: "Mutex" + clear + "\r"},
		{Kind: trace.KindSpawn, G: 1, Arg: 2, Step: 1},
		{Kind: trace.KindOp, Step: 2, G: 1, Op: opLock, Obj: 1, Loc: loc},
		{Kind: trace.KindLog, Step: 3, G: 1, Text: "log" + title + link, Loc: loc},
		{Kind: trace.KindFault, Step: 4, G: 1, Text: "fault" + c1, Arg: 1, Loc: loc},
		{Kind: trace.KindSwitch, Step: 4, G: 1, Arg: 2, Choice: 1, N: 2},
		{Kind: trace.KindBlock, Step: 5, G: 2, Op: opLock, Obj: 1, Loc: loc},
		{Kind: trace.KindSwitch, Step: 5, G: 2, Arg: 1, Choice: 0, N: 1},
		{Kind: trace.KindFail, Step: 6, G: 1, Text: "fail" + clear + "\r", Loc: loc},
		{Kind: trace.KindPanic, Step: 6, G: 1, Text: "panic" + title, Loc: loc},
	}
	o := &trace.Outcome{Kind: "deadlock" + clear, Message: "m_test.go:3: boom\rFAKE LINE" + title,
		Report: "goroutine 1 [running]:\n\texample.com/m.f()" + link + "\n\t/src/m_test.go:3" + c1 + "\r\n"}
	return writeTrace(t, filepath.Join(t.TempDir(), "hostile.trace"), h, o, evs...)
}

// runAll runs dstreplay with args and returns what it wrote to stdout
// and stderr, whatever its exit code.
func runAll(args ...string) (string, string) {
	var out, errb bytes.Buffer
	Main(args, &out, &errb)
	return out.String(), errb.String()
}

// show, summary and dstreplay file.trace piped (show) print a trace's
// strings with their control characters escaped, on stdout and stderr.
// Regression: they printed them raw, so a trace could clear the screen,
// set the terminal's title, make links, or overwrite a line.
func TestTermSafeCommands(t *testing.T) {
	path := hostileTrace(t)
	for _, args := range [][]string{
		{"show", path},
		{"show", "-faults", path},
		{"summary", path},
		{path}, // the stepper, piped: the listing
	} {
		out, errOut := runAll(args...)
		if !strings.Contains(out, `\x1b[2J`) {
			t.Errorf("dstreplay %s: the escapes are not shown escaped:\n%s", strings.Join(args, " "), out)
		}
		assertTermSafe(t, out)
		assertTermSafe(t, errOut)
	}
	// A trace cut short, whose error message names the file: stderr too.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut\x1b[2J.trace")
	if err := os.WriteFile(cut, b[:len(b)-8], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"show", "summary", "html"} {
		out, errOut := runAll(cmd, cut)
		assertTermSafe(t, out)
		assertTermSafe(t, errOut)
	}
}

// sgr matches the styling lipgloss writes (Select Graphic Rendition),
// which is the stepper's own.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// The interactive stepper's screens (events, source title, goroutines,
// status line, failure report, help) escape the trace's control
// characters: the only escapes left are its own styling.
func TestTermSafeStepper(t *testing.T) {
	m := stepperOn(t, hostileTrace(t))
	screens := map[string]string{"first": m.View()}
	for _, k := range []string{"j", "j", "j", "j", "j", "j", "j"} {
		press(m, k)
		screens["after j"] += m.View()
	}
	press(m, "f")
	screens["f (failure, status)"] = m.View()
	press(m, "r")
	screens["r (report)"] = m.View()
	press(m, "r")
	press(m, "tab")
	screens["tab"] = m.View()
	for name, s := range screens {
		s = sgr.ReplaceAllString(s, "")
		t.Run(strings.Fields(name)[0], func(t *testing.T) { assertTermSafe(t, s) })
		if !strings.Contains(s, `\x1b[2J`) && name != "r (report)" {
			t.Errorf("%s: the escapes are not shown escaped:\n%s", name, s)
		}
	}
}
