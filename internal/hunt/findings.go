package hunt

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dstgo/dst/internal/gotest"
	"github.com/dstgo/dst/trace"
)

// Finding is a distinct failure: of one test, with one signature (or,
// for a crash, one message). The smallest of its schedules is the one
// shown, and the only one whose files are kept.
type Finding struct {
	Test          *Test
	Kind, Message string
	Signature     string // the worker's, or the message
	Input         string // the schedule's input file, beside its trace
	Worker        int
	At            time.Duration // into the hunt
	Count         int
	Trace         string
	File          string // the line of the code under test it is best read at; "" when not known
	Line          int
	Before, After Size
	Sized         bool // Before and After are known
	// A crash: how the process ended, its last output, and the input it
	// was running (Saved, or why it is not: SaveErr).
	Exit    string
	Output  []string
	Saved   string
	SaveErr error
	// Its trace up to the crash (in Trace), or why there is none.
	TraceErr error
}

// record adds f to the findings, or counts it again.
func (h *Hunter) record(f *Finding) {
	f.At, f.Count = time.Since(h.begin), 1
	if f.Signature == "" {
		f.Signature = f.Message // a crash's, or an older worker's
	}
	for _, g := range h.Findings {
		if g.Test != f.Test || g.Kind != f.Kind || g.Signature != f.Signature {
			continue
		}
		g.Count++
		// One schedule of a failure is enough: the smaller one stays, and
		// the other's trace and input, which a worker saved, go.
		drop := f
		if f.Sized && g.Sized && f.After.Less(g.After) {
			drop = &Finding{Trace: g.Trace, Input: g.Input}
			g.Trace, g.Input, g.Message, g.Before, g.After, g.Worker = f.Trace, f.Input, f.Message, f.Before, f.After, f.Worker
			g.File, g.Line = f.File, f.Line
		}
		if drop.Trace != "" && drop.Trace != g.Trace && f.Kind != "crash" && !h.before[drop.Trace] {
			os.Remove(drop.Trace)
			if drop.Input != "" && !h.before[drop.Input] {
				os.Remove(drop.Input)
			}
		}
		if h.Settings.Verbose {
			fmt.Fprintf(h.Log, "dstreplay hunt: %s (worker %d): %s again (%d times)\n", f.Test, f.Worker, f.Kind, g.Count)
		}
		return
	}
	h.Findings = append(h.Findings, f)
	f.Test.Failures++
	if h.OnFinding != nil {
		h.OnFinding(f)
	}
}

// savedBefore lists the files in the tests' directories of saved failures
// before the hunt: a worker that finds one of those schedules again writes
// the same file, which the hunt must not remove as a duplicate.
func savedBefore(tests []*Test) map[string]bool {
	seen := map[string]bool{}
	for _, t := range tests {
		// Subtests save under their test's directory.
		filepath.WalkDir(filepath.Join(t.FailDir, t.Name), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".trace") || strings.HasSuffix(path, ".input")) {
				if a, err := filepath.Abs(path); err == nil {
					seen[a] = true
				}
			}
			return nil
		})
	}
	return seen
}

// Headline is the finding's kind and message, in one line.
func (f *Finding) Headline() string {
	if f.Message == "" || strings.HasPrefix(f.Message, f.Kind) {
		return cmp.Or(f.Message, f.Kind)
	}
	return f.Kind + ": " + f.Message
}

// crashed handles a worker that ended before its hunt did.
func (h *Hunter) crashed(p *proc, err error) {
	t := p.test
	out := p.out.bytes()
	exit := "exit status 0"
	if err != nil {
		exit = err.Error()
	}
	if !p.sawStatus {
		exit += ", before it reported any progress"
	}
	saved, saveErr := h.Recover(t.CorpusDir, p.slot, t.FailDir, t.Name, out)
	f := &Finding{Test: t, Kind: "crash", Message: crashMessage(out, exit), Worker: p.slot,
		Exit: exit, Output: lastLines(out, crashLines), Saved: saved, SaveErr: saveErr}
	if saved != "" {
		f.Trace, f.TraceErr = h.traceCrash(t, saved)
	}
	h.record(f)
	if t.crashes++; t.crashes >= maxCrashes && t.Dropped == "" {
		t.Dropped = fmt.Sprintf("given up after %d crashes in a row", t.crashes)
		fmt.Fprintf(h.Log, "dstreplay hunt: %s: %s\n", t, t.Dropped)
	}
	// Not at once: a crash loop is not a hunt, and the other workers may
	// show progress meanwhile.
	t.notBefore = time.Now().Add(min(h.Backoff<<(t.crashes-1), maxBackoff))
}

// crashTraceTimeout bounds the re-run that records a crash's trace.
const crashTraceTimeout = 30 * time.Second

// traceCrash re-runs the input a dead worker was running, in a process of
// its own that writes the trace event by event as it goes
// (-dst.crashtrace): the crash kills that process too, and leaves the trace
// up to it. The trace goes beside the input, renamed into place once the
// process is gone.
func (h *Hunter) traceCrash(t *Test, input string) (string, error) {
	path := strings.TrimSuffix(input, ".input") + ".trace"
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	defer os.Remove(tmp)
	args := []string{"-test.run", gotest.RunPattern(t.Name), "-test.count=1",
		"-dst.input=" + input, "-dst.crashtrace=" + tmp, "-dst.dir=off", "-dst.shrink=false"}
	if h.Settings.Faults != "" {
		args = append(args, "-dst.faults="+h.Settings.Faults) // as the worker ran it
	}
	cmd := h.Command(t, args)
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("re-running the input to record its trace: %w", err)
	}
	kill := time.AfterFunc(crashTraceTimeout, func() { cmd.Process.Kill() })
	cmd.Wait() // it is expected to die as the worker did
	kill.Stop()
	r, err := trace.OpenFile(tmp)
	if err != nil {
		return "", fmt.Errorf("re-running the input to record its trace: %w", err)
	}
	n := r.Len()
	r.Close()
	if n == 0 {
		return "", fmt.Errorf("re-running the input to record its trace: it died before its first event")
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", err
	}
	return path, nil
}

// crashMessage is the line of a dead worker's output that says why it
// died (a fatal error, a panic, a test's first complaint), else how it
// exited.
func crashMessage(out []byte, exit string) string {
	lines := strings.Split(string(out), "\n")
	for _, line := range lines {
		for _, p := range []string{"fatal error:", "panic:", "runtime:", "SIGSEGV", "SIGBUS", "unexpected signal"} {
			if strings.HasPrefix(line, p) {
				return strings.TrimSpace(line)
			}
		}
	}
	for i, line := range lines {
		if !strings.HasPrefix(line, "--- FAIL:") {
			continue
		}
		for _, next := range lines[i+1:] {
			if next = strings.TrimSpace(next); next != "" {
				return next
			}
		}
	}
	return exit
}

// lastLines returns the last n lines of out.
func lastLines(out []byte, n int) []string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	return lines[max(len(lines)-n, 0):]
}
