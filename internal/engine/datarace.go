package engine

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dstgo/dst/internal/event"
)

// Data races. Under -race the handoff between managed goroutines creates
// no happens-before edge, so the race detector sees every race between
// them; a run during which it reported one fails with Race. The detector
// reports a race once per pair of stacks and once per address unless
// GORACE turns that off (suppress_equal_stacks=0 suppress_equal_addresses=0):
// only then does every schedule that races count, which shrinking and
// replaying a race need (RaceRepeatable, RaceEnv). Its reports go to stderr,
// or, with GORACE's log_path, to a file the run reads them from, to name
// the two accesses.

// raceOptions are the GORACE options under which every race is reported.
var raceOptions = []string{"suppress_equal_stacks=0", "suppress_equal_addresses=0"}

// goraceOption returns the value of GORACE's option key, if set.
func goraceOption(key string) (string, bool) {
	var v string
	var ok bool
	for _, f := range strings.Fields(os.Getenv("GORACE")) {
		if k, val, found := strings.Cut(f, "="); found && k == key {
			v, ok = val, true // the last one counts
		}
	}
	return v, ok
}

// RaceRepeatable reports whether this process's race detector reports every
// race, so that a schedule that raced races again when it is replayed.
func RaceRepeatable() bool {
	for _, o := range raceOptions {
		k, want, _ := strings.Cut(o, "=")
		if v, ok := goraceOption(k); !ok || v != want {
			return false
		}
	}
	return true
}

// RaceEnv is the GORACE value for a process whose race detector reports
// every race and logs it to logPath (which the detector suffixes with the
// process id): this process's options, with those.
func RaceEnv(logPath string) string {
	var keep []string
	for _, f := range strings.Fields(os.Getenv("GORACE")) {
		k, _, _ := strings.Cut(f, "=")
		if k != "log_path" && !slices.ContainsFunc(raceOptions, func(o string) bool { return strings.HasPrefix(o, k+"=") }) {
			keep = append(keep, f)
		}
	}
	return strings.Join(append(append(keep, raceOptions...), "log_path="+logPath), " ")
}

// raceLog reads the race detector's reports from GORACE's log_path, from
// where the last read stopped.
var raceLog struct {
	sync.Mutex
	off int64
}

func newRaceReports() string {
	base, ok := goraceOption("log_path")
	if !ok || base == "" || base == "stdout" || base == "stderr" {
		return ""
	}
	raceLog.Lock()
	defer raceLog.Unlock()
	f, err := os.Open(base + "." + strconv.Itoa(os.Getpid()))
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(raceLog.off, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(f)
	raceLog.off += int64(len(b))
	return string(b)
}

// raceAccess is one of the two accesses of a race report.
type raceAccess struct {
	what      string    // "write", "read", "atomic write", ...
	op        string    // the shim's check that made the access ("WaitGroup.Add"), if one did
	tid       string    // the detector's id of the goroutine, which is not the runtime's
	at        *Location // the user's frame that accessed
	createdAt *Location // the user's frame that started the goroutine; nil for the test body
}

var (
	raceAccessLine  = regexp.MustCompile(`^(?:Previous )?([A-Za-z ]+?) at 0x[0-9a-f]+ by (goroutine \d+|main goroutine):$`)
	raceCreatedLine = regexp.MustCompile(`^Goroutine (\d+) \([a-z]+\) created at:$`)
)

// parseRace reads the accesses of the first race in a report's text.
func parseRace(text string) []raceAccess {
	var out []raceAccess
	created := map[string]*Location{}
	_, text, _ = strings.Cut(text, "WARNING: DATA RACE\n")
	text, _, _ = strings.Cut(text, "\n==================")
	for _, block := range strings.Split(text, "\n\n") {
		head, rest, _ := strings.Cut(strings.TrimSpace(block), "\n")
		at := firstUserLine(rest)
		if m := raceCreatedLine.FindStringSubmatch(head); m != nil {
			created["goroutine "+m[1]] = at
			continue
		}
		if m := raceAccessLine.FindStringSubmatch(head); m != nil {
			out = append(out, raceAccess{what: strings.ToLower(m[1]), op: shimCheck(rest), tid: m[2], at: at})
		}
	}
	for i := range out {
		out[i].createdAt = created[out[i].tid]
	}
	return out
}

// shimChecks are the accesses shims report to the race detector themselves,
// by the frame that reports them, as sync does for its types: the first Add
// from a zero counter reads, the first Wait to block writes, so that an Add
// not ordered before Wait races (sched/waitgroup.go).
var shimChecks = map[string]string{
	modulePath + "/sched.(*WaitGroup).add":  "WaitGroup.Add",
	modulePath + "/sched.(*WaitGroup).wait": "WaitGroup.Wait",
}

// shimCheck names the shim's check that made an access, from its stack in
// a race report: a runtime.raceread or racewrite called by a shim.
func shimCheck(stack string) string {
	lines := strings.Split(stack, "\n")
	if len(lines) < 3 || !strings.HasPrefix(strings.TrimSpace(lines[0]), "runtime.race") {
		return ""
	}
	fn := strings.TrimSpace(lines[2])
	if i := strings.LastIndexByte(fn, '('); i > 0 {
		fn = fn[:i]
	}
	return shimChecks[fn]
}

// firstUserLine is the first frame of the user's in a race report's stack,
// whose lines come in pairs, a function and its file and line, indented
// with spaces rather than a runtime stack's tabs.
func firstUserLine(stack string) *Location {
	lines := strings.Split(stack, "\n")
	var frames [][]string
	for i := 0; i+1 < len(lines); i += 2 {
		frames = append(frames, []string{strings.TrimSpace(lines[i]), lines[i+1]})
	}
	return firstUser(frames)
}

// whoRaced names the goroutine of an access, which is not goroutine not:
// the race detector's ids are not the run's, so it is told by where it was
// started, as the run's goroutines were (in detail mode, G.spawnAt).
//
//go:norace
func (r *Run) whoRaced(a raceAccess, not int) (string, int) {
	if a.createdAt == nil {
		return "the test body (goroutine 1)", 1
	}
	var ids []string
	id := 0
	for _, g := range r.gs {
		if g.ID != not && g.spawnAt != nil && g.spawnAt.File == a.createdAt.File && g.spawnAt.Line == a.createdAt.Line {
			ids = append(ids, strconv.Itoa(g.ID))
			id = g.ID
		}
	}
	switch len(ids) {
	case 0:
		return "the goroutine started at " + shortLoc(a.createdAt), 0
	case 1:
		return "goroutine " + ids[0], id
	default:
		return fmt.Sprintf("one of goroutines %s (started at %s)", strings.Join(ids, ", "), shortLoc(a.createdAt)), 0
	}
}

// noteRace, under -race, looks at g's scheduling point for a race the
// detector reported since the last one: g made the racy access, in the
// code it ran since its last point (the other goroutines were parked). The
// first is recorded as a fail event of g's, and kept for the failure, with
// whether the run had already failed another way. Races in the deferred
// calls of goroutines torn down after the run's end are not the run's: Go
// would never have run them.
//
//go:norace
func (r *Run) noteRace(g *G) {
	n := raceErrors()
	if n == r.racesSeen {
		return
	}
	r.racesSeen = n
	if r.raceG != 0 || g.tear != tearNone || r.ended.Load() != 0 {
		return
	}
	r.raceG, r.raceText = g.ID, newRaceReports()
	r.raceLate = r.pending != nil || r.failure != nil
	if r.tr != nil {
		// Only the kind: what the detector says of the race (which
		// accesses, where) depends on the process, which reports a race
		// between two places once, and on GORACE's log_path, not on the
		// schedule, and a trace replayed in another process must compare
		// equal. The failure's report has it.
		e := r.event(event.KindFail, g)
		e.Text = "data race"
		r.record(e)
	}
}

// withRace is the failure of a run during which the race detector reported
// n races, and which failed as other says (nil if it did not otherwise).
//
// A race is a finding of its own whatever else fails: the run fails as a
// data race (shrunk, saved and replayed as one), and the other failure (a
// leak the code has too, a panic the race led to) is part of its report,
// before or after the race as it happened. Two kinds keep theirs, since
// neither can be re-executed (a watchdog abandons a goroutine, an escape
// runs outside the scheduler): the race is then part of their report. A race
// reported only after the run's end, while its goroutines were unwound, is
// not the run's: the report says so, not to leave the detector's text
// unexplained.
//
//go:norace
func (r *Run) withRace(n int, other *Failure) *Failure {
	if other == nil {
		return r.raceFailure(n)
	}
	if r.raceG == 0 {
		other.Stack = joinReport(other.Stack, fmt.Sprintf("note: the race detector reported %d race(s) after this run had ended, "+
			"in code Go would not have run (the deferred calls of goroutines the run unwound): not a finding; its report is on stderr", n))
		return other
	}
	race := r.raceFailure(n)
	if other.Kind == Watchdog || other.Kind == Escape {
		other.Stack = joinReport(other.Stack, "the race detector also reported a race in this run: "+race.Message+"\n\n"+race.Stack)
		return other
	}
	when := "after the race, the run also failed: "
	if r.raceLate {
		when = "the race came after the run had failed: "
	}
	race.Stack = joinReport(race.Stack, when+other.Message)
	race.Stack = joinReport(race.Stack, other.Stack)
	race.Goroutines, race.Step = other.Goroutines, other.Step
	return race
}

// joinReport appends a paragraph to a failure's report text.
func joinReport(text, more string) string {
	if text = strings.TrimRight(text, "\n"); text == "" || more == "" {
		return text + more
	}
	return text + "\n\n" + more
}

// raceFailure is the failure of a run during which the race detector
// reported n races.
//
//go:norace
func (r *Run) raceFailure(n int) *Failure {
	f := &Failure{Kind: Race, Message: fmt.Sprintf(
		"data race: the race detector reported %d race(s) between this run's goroutines (its report is on stderr)", n)}
	text := r.raceText + newRaceReports()
	acc := parseRace(text)
	if len(acc) == 0 {
		return f
	}
	var parts, ps []string
	shim := ""
	for i, a := range acc {
		not := 0 // another goroutine's access than the first: not the first's goroutine
		if i > 0 && a.tid != acc[0].tid {
			not = r.raceG
		}
		who, id := r.whoRaced(a, not)
		if i == 0 && r.raceG != 0 {
			// The access the detector caught as it happened: by the
			// goroutine that ran then.
			who, id = fmt.Sprintf("goroutine %d", r.raceG), r.raceG
		}
		if f.G == 0 {
			f.G = id
		}
		what := strings.TrimPrefix(a.what, "previous ")
		if a.op != "" {
			what, shim = a.op, a.op
		}
		ps = append(ps, what+" "+shortLoc(a.at))
		if i > 0 {
			what = "an earlier " + what
		}
		where := "?"
		if a.at != nil {
			where = a.at.String()
		}
		parts = append(parts, fmt.Sprintf("%s at %s by %s", what, where, who))
	}
	f.Message = "data race: " + strings.Join(parts, ", and ")
	if strings.HasPrefix(shim, "WaitGroup.") {
		f.Message += " (sync.WaitGroup's own race check, as under go test -race: an Add that starts from a zero counter " +
			"must happen before Wait, and on a reused WaitGroup after the previous Wait has returned)"
	}
	f.Place = places(ps)
	_, report, _ := strings.Cut(text, "WARNING: DATA RACE\n")
	report, _, _ = strings.Cut(report, "\n==================")
	f.Stack = "the race detector's report:\n" + report
	return f
}
