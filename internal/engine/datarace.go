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
			out = append(out, raceAccess{what: strings.ToLower(m[1]), tid: m[2], at: at})
		}
	}
	for i := range out {
		out[i].createdAt = created[out[i].tid]
	}
	return out
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
// first is recorded as a fail event of g's, and kept for the failure.
//
//go:norace
func (r *Run) noteRace(g *G) {
	n := raceErrors()
	if n == r.racesSeen {
		return
	}
	r.racesSeen = n
	if r.raceG != 0 {
		return
	}
	r.raceG, r.raceText = g.ID, newRaceReports()
	if r.tr != nil {
		e := r.event(event.KindFail, g)
		e.Text = "data race"
		if acc := parseRace(r.raceText); len(acc) > 0 && acc[0].at != nil {
			e.Text += ": " + acc[0].what + " at " + acc[0].at.String()
		}
		r.record(e)
	}
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
		if i > 0 {
			what = "an earlier " + what
		}
		where := "?"
		if a.at != nil {
			where = a.at.String()
		}
		parts = append(parts, fmt.Sprintf("%s at %s by %s", what, where, who))
		ps = append(ps, strings.TrimPrefix(a.what, "previous ")+" "+shortLoc(a.at))
	}
	f.Message = "data race: " + strings.Join(parts, ", and ")
	f.Place = places(ps)
	_, report, _ := strings.Cut(text, "WARNING: DATA RACE\n")
	report, _, _ = strings.Cut(report, "\n==================")
	f.Stack = "the race detector's report:\n" + report
	return f
}
