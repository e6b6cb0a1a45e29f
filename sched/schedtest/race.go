package schedtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"
)

// raceInChild hands a data race over to a child process of the test
// binary: this process's race detector reports each race once, so the
// schedule that raced would not race again here, and shrinking, source
// locations and the saved trace need it to. The child, started as every
// child is (runChild: with this process's flags, within the test's
// deadline), runs the one schedule with a GORACE that reports every race
// (engine.RaceEnv), and reports it as any failure; its report is returned,
// or ok is false when the child did not report the race.
func raceInChild(t *testing.T, o Options, x exploration) (report string, ok bool) {
	dir, err := os.MkdirTemp("", "dst-race-")
	if err != nil {
		return "", false
	}
	defer os.RemoveAll(dir)
	args, cleanup, err := scheduleArgs(t.Name(), o, x)
	if err != nil {
		return "", false
	}
	defer cleanup()
	// The child shrinks the schedule (for at most 30 seconds) and saves
	// its trace, on top of what failsAlone's does.
	out, _ := runChild(t, aloneTimeout(x)+time.Minute, false, args, "GORACE="+engine.RaceEnv(filepath.Join(dir, "race")))
	return childReport(out, DataRace)
}

// raceElsewhere explores t in a child process of the test binary when this
// process's race detector may no longer report the races it would find:
// it reports each race once per process (once per pair of stacks, once per
// address), so after it has reported one, a schedule that races the same
// way again here passes, as the second and later runs of go test -race
// -count=N do on the same bug. The child's detector reports every race
// (engine.RaceEnv); t takes its verdict: its report if it failed, a skip if
// it skipped. It returns false, to explore here, when nothing was reported
// yet in this process, when the detector already reports every race, or
// when the child could not be started (a note says races may then be
// missed). Without -race it notes, once per test, that races were not
// checked.
//
// A child costs one start of the test binary (tens of milliseconds), paid
// only by the tests that run after a race was reported in the process.
func raceElsewhere(t *testing.T, o Options) bool {
	t.Helper()
	if o.isWorker {
		return false // a hunt's worker: its detector reports every race (RaceEnv)
	}
	if !engine.RaceEnabled {
		// A race between goroutines that never meet at a scheduling point
		// inside their critical section (a lock removed from a map
		// update) is found by the race detector alone: say that it was
		// not looked for, once per test (shown with -v or a failure).
		t.Log(noRaceNote)
		return false
	}
	if engine.RaceRepeatable() || engine.RaceErrors() == 0 {
		return false
	}
	const why = "the race detector has already reported a race in this process, and it reports each race once per process"
	dir, err := os.MkdirTemp("", "dst-race-")
	if err != nil {
		t.Logf("sched: note: %s: races that %s repeats may go unreported here (run it alone, or with -count=1): %v", why, t.Name(), err)
		return false
	}
	defer os.RemoveAll(dir)
	out, err := runChild(t, 0, true, nil, "GORACE="+engine.RaceEnv(filepath.Join(dir, "race")))
	verdict := childVerdict(out, t.Name())
	if err != nil && !childFailed(err) || err == nil && verdict == "" {
		if err == nil {
			err = errors.New("it did not run the test")
		}
		t.Logf("sched: note: %s, and a child process to explore %s in failed to (%v): "+
			"races that it repeats may go unreported here (run it alone, or with -count=1)", why, t.Name(), err)
		return false
	}
	where := fmt.Sprintf("sched: %s: %s was explored in a child process whose detector reports every race", why, t.Name())
	switch {
	case err != nil || verdict == "FAIL":
		if report, ok := childReport(out, ""); ok {
			t.Fatal(where + "; its report:\n" + report)
		} else {
			t.Fatal(where + ", and failed:\n" + childOutput(out))
		}
	case verdict == "SKIP":
		t.Skip(where + ", and skipped:\n" + childOutput(out))
	default:
		t.Log(where + ", and passed")
		if testing.Verbose() {
			for _, l := range schedLines(out) {
				t.Log(l)
			}
		}
	}
	return true
}

// noRaceNote is what a test run without -race says.
const noRaceNote = "sched: note: data races were not checked (the race detector is off: run with -race to check them)"

// childVerdict is go test's verdict on the test called name in a child's
// -test.v output: PASS, FAIL, SKIP, or "" when it has none (it crashed).
func childVerdict(out, name string) string {
	if v := childVerdicts(out, name); len(v) > 0 {
		return v[0]
	}
	return ""
}

// childOutput is a child test binary's output as a report quotes it:
// without go test's lines about tests and the race detector's reports
// (which this process's stderr does not show, but its report names), and
// its last 16 KB at most.
func childOutput(out string) string {
	var b strings.Builder
	inRace := false
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		switch t := strings.TrimSpace(l); {
		case t == "WARNING: DATA RACE":
			inRace = true
		case strings.HasPrefix(t, "=================="):
			inRace = false
		case inRace, strings.HasPrefix(t, "=== "), t == "PASS", t == "FAIL", strings.HasPrefix(t, "ok "):
		case strings.Contains(t, "race detected during execution of test"):
		default:
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
	s := b.String()
	if len(s) > 16<<10 {
		s = "...\n" + s[len(s)-16<<10:]
	}
	return s
}

// schedLines are the harness's log lines in a child's output (its
// "sched: 1000 schedules passed ..."), without go test's indentation.
func schedLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, ": sched: "); i >= 0 && strings.HasPrefix(l, "    ") {
			ls = append(ls, "child: "+l[i+2:])
		}
	}
	return ls
}

// childReportLine is the first line of the scheduler's report of a failure,
// found in a schedule or replaying a trace.
var childReportLine = regexp.MustCompile(`sched: ([a-z ]+) (?:in schedule \d+ of |\(replaying )`)

// childReport takes the scheduler's report of a failure of the given kind
// (any kind if "") out of a child test binary's output, without go test's
// indentation.
func childReport(out string, kind FailureKind) (string, bool) {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		m := childReportLine.FindStringSubmatchIndex(l)
		if m == nil || kind != "" && l[m[2]:m[3]] != string(kind) {
			continue
		}
		j := m[0]
		indent := len(l) - len(strings.TrimLeft(l, " ")) + 4
		var b strings.Builder
		b.WriteString(l[j:])
		for _, l := range lines[i+1:] {
			if strings.TrimSpace(l) != "" && len(l)-len(strings.TrimLeft(l, " ")) < indent {
				break // go test's next line: FAIL, --- FAIL, another test's output
			}
			b.WriteString("\n")
			if len(l) >= indent {
				b.WriteString(l[indent:])
			}
		}
		return strings.TrimRight(b.String(), "\n") + "\n", true
	}
	return "", false
}
