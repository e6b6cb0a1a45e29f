package cli_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/cli"
	"github.com/dstgo/dst/trace"
)

// TestDebug records a failing test's trace with go test (the package
// testdata/debugme), then runs dstreplay debug on it: its errors, and one
// delve session that must stop at the requested step, in the frame of the
// step's operation. The session needs delve; without it the test is
// skipped, unless DST_REQUIRE_TOOLS=1.
func TestDebug(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test and delve")
	}
	path := recordFailure(t, "./testdata/debugme", "TestLostUpdate", "DST_DEBUGME=1")
	stop, last := markedStep(t, path, filepath.Join("testdata", "debugme", "debugme_test.go"))
	step := fmt.Sprint(stop.Step)

	t.Run("errors", func(t *testing.T) {
		junk := filepath.Join(t.TempDir(), "junk.trace")
		os.WriteFile(junk, []byte("not a trace"), 0o644)
		if _, e, code := run("debug", junk); code != cli.ExitUsage || !strings.Contains(e, junk) {
			t.Errorf("a junk file: exit %d %q", code, e)
		}
		full, _ := os.ReadFile(path)
		cut := filepath.Join(t.TempDir(), "cut.trace")
		os.WriteFile(cut, full[:len(full)*2/3], 0o644)
		if _, e, code := run("debug", cut); code != cli.ExitFailure || !strings.Contains(e, cut+": trace: ") {
			t.Errorf("a truncated trace: exit %d %q", code, e)
		}
		if _, e, code := run("debug", failingTrace(t)); code != cli.ExitUsage || !strings.Contains(e, "not recorded by a go test test") {
			t.Errorf("a schedtest.Explore trace: exit %d %q", code, e)
		}
		for _, s := range []string{"-1", fmt.Sprint(last + 1)} {
			want := fmt.Sprintf("--step %s is out of range: the steps of %s are 1 to %d", s, path, last)
			if _, e, code := run("debug", "--step", s, path); code != cli.ExitUsage || !strings.Contains(e, want) {
				t.Errorf("--step %s: exit %d %q, want %q", s, code, e, want)
			}
		}
		if o, _, code := run("debug", "--help"); code != cli.ExitOK || !strings.Contains(o, "usage: dstreplay debug") {
			t.Errorf("--help: exit %d\n%s", code, o)
		}
	})

	t.Run("no delve", func(t *testing.T) {
		const hint = "go install github.com/go-delve/delve/cmd/dlv@latest"
		if _, e, code := run("debug", "--dlv", filepath.Join(t.TempDir(), "dlv"), path); code == cli.ExitOK || !strings.Contains(e, hint) {
			t.Errorf("--dlv missing: exit %d %q", code, e)
		}
		// Only go on $PATH, and $GOPATH an empty directory: no delve anywhere,
		// but the trace's package is still found.
		goBin, err := exec.LookPath("go")
		if err != nil {
			t.Fatal(err)
		}
		modCache, err := exec.Command(goBin, "env", "GOMODCACHE").Output()
		if err != nil {
			t.Fatal(err)
		}
		bin := t.TempDir()
		if err := os.Symlink(goBin, filepath.Join(bin, "go")); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin)
		t.Setenv("GOBIN", "")
		t.Setenv("GOPATH", t.TempDir())
		t.Setenv("GOMODCACHE", strings.TrimSpace(string(modCache)))
		if _, e, code := run("debug", path); code == cli.ExitOK || !strings.Contains(e, hint) {
			t.Errorf("no dlv on an empty PATH: exit %d %q", code, e)
		}
	})

	t.Run("session", func(t *testing.T) {
		if !cli.HaveDlv() {
			if os.Getenv("DST_REQUIRE_TOOLS") == "1" {
				t.Fatal("delve (dlv) is not installed, and DST_REQUIRE_TOOLS=1")
			}
			t.Skip("delve (dlv) is not installed")
		}
		// Commands for delve once stopped: the hook's arguments (frame 0),
		// the selected frame's locals and the stack, then run the
		// operation and stop after it.
		cmds := filepath.Join(t.TempDir(), "cmds")
		os.WriteFile(cmds, []byte("frame 0 args\nlocals\nstack\nfinish_op\nexit\n"), 0o644)
		t.Setenv("DST_DEBUGME", "1")
		out, errOut, code := run("debug", "--step", step, "--init", cmds, path)
		out = ansi.ReplaceAllString(out, "")
		if code != cli.ExitOK {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		where := fmt.Sprintf("debugme_test.go:%d", stop.Loc.Line)
		for _, want := range []*regexp.Regexp{
			// The hook ran at the step, in the step's goroutine.
			regexp.MustCompile(fmt.Sprintf(`(?m)^step = %d\ng = %d$`, stop.Step, stop.G)),
			// The frame of the operation's caller is selected...
			regexp.MustCompile(regexp.QuoteMeta(fmt.Sprintf("dstreplay: stopped at step %d, before g%d's Lock at %s; frame ", stop.Step, stop.G, where)) + `\d+ \(selected\)`),
			// ... so locals are the test's.
			regexp.MustCompile(`(?m)^seen = \d+$`),
			// The stack leads there.
			regexp.MustCompile(`(?m)^ *at \S*/` + regexp.QuoteMeta(where) + `$`),
			// finish_op stops after the Lock, on the next line.
			regexp.MustCompile(fmt.Sprintf(`(?m)^Frame 0: \S*/debugme_test.go:%d `, stop.Loc.Line+1)),
		} {
			if !want.MatchString(out) {
				t.Errorf("delve's output does not match %s\nstdout:\n%s\nstderr:\n%s", want, out, errOut)
			}
		}
	})
}

// TestDebugStopsWhereItFailed: by default, debug stops at the last
// scheduling point of the goroutine whose check failed, before the check.
func TestDebugStopsWhereItFailed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test and delve")
	}
	if !cli.HaveDlv() {
		if os.Getenv("DST_REQUIRE_TOOLS") == "1" {
			t.Fatal("delve (dlv) is not installed, and DST_REQUIRE_TOOLS=1")
		}
		t.Skip("delve (dlv) is not installed")
	}
	path := recordFailure(t, "./testdata/debugme", "TestLostUpdate", "DST_DEBUGME=1")
	// The expected stop, from the trace: the first fail event's goroutine,
	// and that goroutine's op event before it.
	r, err := trace.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fail, stop trace.Event
	for i := range r.Len() {
		ev, _ := r.Event(i)
		if ev.Kind == trace.KindFail && ev.G != 0 {
			fail = ev
			for j := i - 1; j >= 0; j-- {
				if op, _ := r.Event(j); op.Kind == trace.KindOp && op.G == ev.G {
					stop = op
					break
				}
			}
			break
		}
	}
	r.Close()
	if fail.Kind == 0 || stop.Kind == 0 {
		t.Fatalf("the trace has no fail event of a goroutine after one of its scheduling points")
	}
	cmds := filepath.Join(t.TempDir(), "cmds")
	os.WriteFile(cmds, []byte("exit\n"), 0o644)
	t.Setenv("DST_DEBUGME", "1")
	out, errOut, code := run("debug", "--init", cmds, path)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	want := fmt.Sprintf("dstreplay debug: stopping at step %d of ", stop.Step)
	note := fmt.Sprintf(", goroutine %d's last scheduling point before it failed: ", fail.G)
	if !strings.Contains(errOut, want) || !strings.Contains(errOut, note) || !strings.Contains(errOut, "after it, it failed: "+fail.Text) {
		t.Errorf("stderr lacks %q, %q and the failure %q:\n%s", want, note, fail.Text, errOut)
	}
	if w := fmt.Sprintf("dstreplay: stopped at step %d, before g%d's ", stop.Step, fail.G); !strings.Contains(ansi.ReplaceAllString(out, ""), w) {
		t.Errorf("delve did not stop there (%q):\n%s", w, out)
	}
}

// ansi matches the colour escapes delve puts in source listings.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// markedStep returns the trace's first op event at the line of src marked
// "debug: stop here", and the trace's last step.
func markedStep(t *testing.T, path, src string) (trace.Event, int64) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := 0
	for n, sc := 1, bufio.NewScanner(f); sc.Scan(); n++ {
		if strings.Contains(sc.Text(), "// debug: stop here") {
			line = n
		}
	}
	r, err := trace.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var stop trace.Event
	var last int64
	for i := range r.Len() {
		ev, err := r.Event(i)
		if err != nil {
			t.Fatal(err)
		}
		if stop.Step == 0 && ev.Kind == trace.KindOp && ev.Loc.Line == line && filepath.Base(ev.Loc.File) == filepath.Base(src) {
			stop = ev
		}
		last = ev.Step
	}
	if stop.Step == 0 {
		t.Fatalf("no op event at %s:%d in %s", src, line, path)
	}
	return stop, last
}
