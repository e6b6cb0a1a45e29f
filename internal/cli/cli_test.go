package cli_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/cli"
	"github.com/dstgo/dst/sched"
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// abba deadlocks in some schedules.
func abba(t *sched.T) {
	var a, b sched.Mutex
	var wg sched.WaitGroup
	wg.Go(func() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
	wg.Go(func() { b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
	wg.Wait()
}

// failingTrace writes the trace of the first deadlocking schedule from a
// fixed seed.
func failingTrace(t *testing.T) string {
	t.Helper()
	res, err := sched.Explore(sched.Options{Seed: 7, Iterations: 300, Strategy: "random"}, abba)
	if err != nil || res.Failure == nil {
		t.Fatalf("no failure: %v", err)
	}
	path := filepath.Join(t.TempDir(), "abba.trace")
	if err := res.WriteTrace(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func run(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := cli.Main(args, &out, &errb)
	return out.String(), errb.String(), code
}

// The Go version line depends on the toolchain.
var goLine = regexp.MustCompile(`(?m)^# go: .*\n`)

func golden(t *testing.T, name, got string) {
	t.Helper()
	got = goLine.ReplaceAllString(got, "")
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

func TestShowGolden(t *testing.T) {
	path := failingTrace(t)
	out, errOut, code := run("show", path)
	if code != cli.ExitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "show.golden", out)
	// A bare trace argument shows it too.
	bare, _, _ := run(path)
	if bare != out {
		t.Error("dstreplay trace differs from dstreplay show trace")
	}
	// Filters.
	out, _, _ = run("show", "-g", "2", "-op", "Lock", path)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "#") && (!strings.Contains(l, " g2 ") || !strings.Contains(l, " Lock ")) {
			t.Errorf("-g 2 -op Lock printed %q", l)
		}
	}
	out, _, _ = run("show", "-grep", "block", "-from", "3", path)
	if !strings.Contains(out, " block ") || strings.Contains(out, " switch ") {
		t.Errorf("-grep block:\n%s", out)
	}
}

func TestSummaryGolden(t *testing.T) {
	out, errOut, code := run("summary", failingTrace(t))
	if code != cli.ExitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "summary.golden", out)
	for _, want := range []string{"outcome: deadlock", "switches:", "preemptions:", "longest waits:", "(never woken)", "goroutine 2:"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
}

func TestDiff(t *testing.T) {
	a := failingTrace(t)
	out, _, code := run("diff", a, a)
	if code != cli.ExitOK || !strings.Contains(out, "the traces have the same") {
		t.Fatalf("diff of a trace with itself: exit %d\n%s", code, out)
	}
	res, _ := sched.Run(sched.Options{Seed: 99, Record: true}, abba)
	b := filepath.Join(t.TempDir(), "other.trace")
	if err := res.WriteTrace(b); err != nil {
		t.Fatal(err)
	}
	out, _, code = run("diff", a, b)
	if code != cli.ExitFailure || !strings.Contains(out, "first difference at event") || !strings.Contains(out, " > ") {
		t.Fatalf("diff of two traces: exit %d\n%s", code, out)
	}
}

func TestHelp(t *testing.T) {
	out, _, code := run("help")
	if code != cli.ExitOK {
		t.Fatalf("help: exit %d", code)
	}
	for _, c := range []string{"show", "summary", "diff", "help"} {
		if !strings.Contains(out, "\t"+c) {
			t.Errorf("help does not list %s:\n%s", c, out)
		}
		o, _, code := run(c, "--help")
		if code != cli.ExitOK || !strings.Contains(o, "usage: dstreplay "+c) {
			t.Errorf("%s --help: exit %d\n%s", c, code, o)
		}
		o, _, _ = run("help", c)
		if !strings.Contains(o, "usage: dstreplay "+c) {
			t.Errorf("help %s:\n%s", c, o)
		}
	}
	if _, e, code := run("frobnicate"); code != cli.ExitUsage || !strings.Contains(e, "unknown command") {
		t.Errorf("unknown command: exit %d %q", code, e)
	}
	if _, e, code := run("show"); code != cli.ExitUsage || !strings.Contains(e, "want 1 argument") {
		t.Errorf("show without a file: exit %d %q", code, e)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	if _, e, code := run("show", filepath.Join(dir, "missing.trace")); code != cli.ExitUsage || !strings.Contains(e, "no such file") {
		t.Errorf("missing file: exit %d %q", code, e)
	}
	junk := filepath.Join(dir, "junk.trace")
	os.WriteFile(junk, []byte("this is not a trace at all"), 0o644)
	if _, e, code := run("summary", junk); code != cli.ExitUsage || !strings.Contains(e, "not a trace") {
		t.Errorf("junk: exit %d %q", code, e)
	}
	// A trace cut in half: what can be shown is shown, and the exit code
	// says the trace is damaged.
	full, _ := os.ReadFile(failingTrace(t))
	cut := filepath.Join(dir, "cut.trace")
	os.WriteFile(cut, full[:len(full)*2/3], 0o644)
	out, e, code := run("show", cut)
	if code != cli.ExitFailure || !strings.Contains(e, "cut short") || !strings.Contains(out, "# test: sched.Explore") {
		t.Errorf("truncated: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, e)
	}
}
