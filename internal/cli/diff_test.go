package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/dstgo/dst/trace"
)

// loopEvent is event i of a run that does the same few things over and
// over: two goroutines take turns on one mutex (event 0 names it). A long
// trace of them compresses to a few bytes per thousand events.
func loopEvent(i int64) trace.Event {
	if i == 0 {
		return trace.Event{Kind: trace.KindObject, Obj: 1, Text: "Mutex"}
	}
	step := i / 4
	g := int32(1 + step%2)
	switch i % 4 {
	case 0:
		return trace.Event{Kind: trace.KindOp, Step: step, G: g, Op: 5, Obj: 1}
	case 1:
		return trace.Event{Kind: trace.KindSwitch, Step: step, G: g, Arg: int64(3 - g), Choice: 1, N: 2}
	case 2:
		return trace.Event{Kind: trace.KindWake, Step: step, G: 3 - g, Arg: int64(g)}
	default:
		return trace.Event{Kind: trace.KindOp, Step: step, G: 3 - g, Op: 6, Obj: 1}
	}
}

// writeEventsTrace writes a whole trace of the n events ev returns, and o,
// to path, with trace's Writer (a frame in memory at a time).
func writeEventsTrace(tb testing.TB, path string, n int64, ev func(int64) trace.Event, o *trace.Outcome) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	w, err := trace.NewWriter(bw, &trace.Header{Package: "example.com/p", Test: "TestLoop", Strategy: "random", Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		e := ev(i)
		if err := w.Add(&e); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(o); err != nil {
		tb.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
}

func runMain(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return out.String(), errb.String(), code
}

var deadlock = &trace.Outcome{Kind: "deadlock", Message: "all goroutines are blocked", Steps: 75}

// diff of a trace cut short names it, says what it could compare, and
// exits with 1: the cut trace's end is unknown. Regression (issue 26): it
// said "the traces have the same 48 events" and exited with 0.
func TestDiffCutTrace(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.trace")
	writeEventsTrace(t, whole, 300, loopEvent, deadlock)
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.trace")
	if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{cut, cut}, {whole, cut}, {cut, whole}} {
		out, errOut, code := runMain("diff", c[0], c[1])
		if code != ExitFailure {
			t.Errorf("diff %s %s: exit %d, want %d\n%s%s", filepath.Base(c[0]), filepath.Base(c[1]), code, ExitFailure, out, errOut)
		}
		if !strings.Contains(errOut, cut+": trace: cut short") {
			t.Errorf("diff %s %s: stderr does not name the cut trace and its damage:\n%s", filepath.Base(c[0]), filepath.Base(c[1]), errOut)
		}
		if !strings.Contains(out, cut) || !strings.Contains(out, "cut short") {
			t.Errorf("diff %s %s: stdout does not say %s is cut short:\n%s", filepath.Base(c[0]), filepath.Base(c[1]), cut, out)
		}
		if c[0] == c[1] && !strings.Contains(out, "what came after is unknown") {
			t.Errorf("diff of a cut trace with itself:\n%s", out)
		}
	}
	// A damaged frame, the index there: the events before it agree, and
	// the damage is named.
	bad := bytes.Clone(data)
	bad[len(data)/2] ^= 0xff
	damaged := filepath.Join(dir, "damaged.trace")
	if err := os.WriteFile(damaged, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runMain("diff", whole, damaged)
	if code != ExitFailure || !strings.Contains(errOut, damaged) || !strings.Contains(out+errOut, "checksum") {
		t.Errorf("diff of a damaged trace: exit %d\n%s%s", code, out, errOut)
	}
}

// Two traces whose events agree and whose runs ended differently differ.
func TestDiffEnds(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.trace"), filepath.Join(dir, "b.trace")
	writeEventsTrace(t, a, 100, loopEvent, deadlock)
	writeEventsTrace(t, b, 100, loopEvent, &trace.Outcome{Kind: "pass"})
	out, _, code := runMain("diff", a, b)
	if code != ExitFailure || !strings.Contains(out, "end differently") || !strings.Contains(out, "deadlock: all goroutines are blocked") {
		t.Errorf("diff of runs that ended differently: exit %d\n%s", code, out)
	}
	if out, _, code := runMain("diff", a, a); code != ExitOK || out != "the traces have the same 100 events\n" {
		t.Errorf("diff of a trace with itself: exit %d\n%s", code, out)
	}
}

// diff escapes the control characters of the events it prints: an object
// named by the trace, a location's file and function.
func TestDiffTermSafe(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.trace"), filepath.Join(dir, "b.trace")
	hostile := func(differ bool) func(int64) trace.Event {
		return func(i int64) trace.Event {
			e := loopEvent(i)
			switch {
			case i == 0:
				e.Text = "\x1b]0;owned\x07\x1b[2J"
			case i == 5 && differ:
				e.Choice = 0
			}
			e.Loc = trace.Location{Func: "main.\x1b[1Af", File: "/src/\x1b[31mx.go", Line: 1}
			return e
		}
	}
	writeEventsTrace(t, a, 10, hostile(false), deadlock)
	writeEventsTrace(t, b, 10, hostile(true), deadlock)
	out, _, code := runMain("diff", "-context", "5", a, b)
	if code != ExitFailure || strings.ContainsRune(out, 0x1b) || !strings.Contains(out, `\x1b]0;owned`) {
		t.Errorf("diff: exit %d\n%q", code, out)
	}
}

// TestHelperCLIProcess is dstreplay in a process of its own, for tests that
// measure its memory: DST_CLI_HELPER holds its arguments, one a line.
func TestHelperCLIProcess(t *testing.T) {
	args := os.Getenv("DST_CLI_HELPER")
	if args == "" {
		t.Skip("runs only as a helper process")
	}
	code := Main(strings.Split(args, "\n"), os.Stdout, os.Stderr)
	if out := os.Getenv("DST_CLI_RSS"); out != "" {
		// This process's own peak (VmHWM): its wait4 rusage can be the
		// parent's, whose address space it shares until exec, and which
		// grows as the parent's other tests run.
		status, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^VmHWM:\s+(\d+) kB$`).FindSubmatch(status)
		if m == nil {
			t.Fatalf("no VmHWM in /proc/self/status")
		}
		if err := os.WriteFile(out, m[1], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Exit(code)
}

// peakRSS runs dstreplay with args in a process of its own and returns its
// peak resident memory in bytes (Linux's VmHWM), with its exit code.
func peakRSS(t *testing.T, args ...string) (int64, int) {
	t.Helper()
	rssFile := filepath.Join(t.TempDir(), "rss")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCLIProcess$")
	cmd.Env = append(os.Environ(), "DST_CLI_HELPER="+strings.Join(args, "\n"), "DST_CLI_RSS="+rssFile)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	if errb.Len() > 0 {
		t.Logf("dstreplay %s: stderr:\n%s", args[0], errb.String())
	}
	b, err := os.ReadFile(rssFile)
	if err != nil {
		t.Fatalf("the helper did not say its peak memory: %v", err)
	}
	kb, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return kb << 10, cmd.ProcessState.ExitCode()
}

// diff and export of a long trace hold a frame of it at a time, not its
// events: their peak memory, over that of a command that reads nothing, is
// well under what the events of the trace take in memory. Regression
// (issue 26): a 142 KB trace of 10,000,000 events took 3.8 GB in diff, a
// 29 KB one of 2,000,000 3.2 GB in export.
func TestDiffExportMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in kilobytes on Linux")
	}
	const n = 600_000 // the events take 70 MB: what a collector lagging under load leaves, 10-15 MB, is well under half
	path := filepath.Join(t.TempDir(), "long.trace")
	writeEventsTrace(t, path, n, loopEvent, deadlock)
	events := int64(n * unsafe.Sizeof(trace.Event{})) // one copy of the events
	base, _ := peakRSS(t, "help")
	for _, args := range [][]string{
		{"diff", path, path},
		{"export", "-o", os.DevNull, path},
	} {
		rss, code := peakRSS(t, args...)
		if code != ExitOK {
			t.Errorf("dstreplay %s: exit %d", args[0], code)
		}
		t.Logf("dstreplay %s: peak RSS %d MB over %d MB; the events take %d MB", args[0], (rss-base)>>20, base>>20, events>>20)
		if rss-base > events/2 {
			t.Errorf("dstreplay %s of %d events: peak RSS %d MB over that of help, want under %d MB (half the events' size)",
				args[0], n, (rss-base)>>20, events>>21)
		}
	}
}
