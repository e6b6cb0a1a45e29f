package schedtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/atomicfile"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/gotest"
	"github.com/dstgo/dst/internal/hunt"
	"github.com/dstgo/dst/internal/schedule"
	"github.com/dstgo/dst/trace"
)

// Test explores body under the scheduler with the default options, as
// changed by -dst.* flags. See TestWith.
func Test(t *testing.T, body func(*T)) {
	t.Helper()
	TestWith(t, Options{}, body)
}

// TestWith runs body under the scheduler for many schedules, one after
// another, and stops at the first that fails. It then fails t with a report
// of the failure (what every goroutine was doing and where) and one line that
// reproduces that schedule exactly:
//
//	go test ./pkg -run '^TestX$' -dst.seed=0x8c1f... -dst.strategy=pct -dst.depth=3 -dst.pctsteps=120
//
// Each schedule runs body in a fresh run: objects created by the body are
// new each time, while package-level state persists between schedules and
// can make them depend on each other.
//
// In a process that a run started (a test that runs its own binary as a
// peer or a helper, with the overlay's hooks of package os), TestWith runs
// body once, natively, as go test would: the process is a part of its
// parent's test, whose run cannot schedule it, and a peer's server must
// listen on Go's own network for the parent to reach it.
func TestWith(t *testing.T, opts Options, body func(*T)) {
	t.Helper()
	refuseNested("schedtest.Test")
	if os.Getenv(engine.ProcessEnv) != "" {
		runNatively(t, body)
		return
	}
	o, err := opts.withFlags()
	if err == nil {
		o, err = o.withDefaults()
	}
	if err == nil && o.fuzzInput != nil {
		err = errors.New("sched: -dst.fuzzinput names an input of a fuzz target (schedtest.Fuzz), not of a test: run the fuzz target (-run '^FuzzX$')")
	}
	if err != nil {
		t.Fatal(err)
	}
	if raceElsewhere(t, o) { // race.go: the race detector has gone quiet here
		return
	}
	if flags.trace != "" {
		replayForTest(t, flags.trace, body, true)
		return
	}
	if err := confined(t.Name()); err != nil {
		t.Fatal(err)
	}
	removeTempsForTest(t)
	o.stopSequential = true
	if o.isWorker {
		// A hunt's worker: the saved failures are already known; a
		// worker that stopped on them would hunt nothing.
		o.Iterations = huntIterations(o)
	}
	switch saved := savedFailures(t.Name()); {
	case o.isWorker:
	case o.namedBy != "" && len(saved) > 0:
		// The command line names the schedule to run, as a reproduce line
		// does: the saved failures may be other bugs.
		what := fmt.Sprintf("the %d saved failures", len(saved))
		if len(saved) == 1 {
			what = "the saved failure"
		}
		t.Logf("sched: %s names the schedule to run: not replaying %s of %s first (%s)",
			o.namedBy, what, t.Name(), fromRoot(filepath.Dir(saved[0])))
	default:
		for _, path := range saved {
			replayForTest(t, path, body, false)
		}
	}
	if d, ok := t.Deadline(); ok && !o.isWorker {
		o = o.withinDeadline(time.Until(d), testsAfter(t.Name()))
	}
	var logf func(string, ...any)
	if flags.verbose {
		logf = t.Logf
	}
	x := explore(o, t.Name(), t, body, logf)
	if x.err != nil {
		t.Fatalf("sched: %v", x.err)
	}
	if len(x.natives) > 0 {
		t.Logf("sched: note: %s", nativesNote(x.natives))
	}
	if x.stall != "" && (x.res == nil || x.res.Stall == "") { // else the failure's report says it
		t.Logf("sched: note: %s", x.stall)
	}
	if x.past > 0 && (x.res == nil || x.res.PastBound == 0) {
		t.Logf("sched: note: %s", pastNote(x.past, x.n, o.MaxSteps))
	}
	if x.nearDeadline {
		t.Logf("sched: note: %s", deadlineNote(o, x))
	}
	if x.outerFailed {
		t.Fatal(outerFailedReport(t.Name(), o, x))
		return
	}
	if x.res.Failure != nil {
		if x.res.Failure.Kind == DataRace && !engine.RaceRepeatable() && len(x.found) == 0 {
			if report, ok := raceInChild(t, o, x); ok {
				t.Fatal(report)
				return
			}
		}
		if len(x.found) == 0 {
			if passed, child := failsAlone(t, o, x); passed {
				t.Log(stateNote(t.Name(), x, child))
				return
			}
			x = shrinkFailure(o, t.Name(), t, body, x)
			x.saved, x.saveErr = saveFailure(t.Name(), o, x, body)
		}
		report := failureReport(t.Name(), o, x)
		for _, f := range x.found[min(1, len(x.found)):] {
			report += "\n" + failureReport(t.Name(), o, f)
		}
		t.Fatal(report)
		return
	}
	if testing.Verbose() {
		limit := ""
		if !unlimited(o.Iterations) && x.n < o.Iterations && !x.exhausted {
			limit = fmt.Sprintf(" (time budget %v reached)", o.Time)
		}
		if x.nearDeadline {
			limit = " (go test's -timeout is near)"
		}
		if x.sequential == x.n && x.n == sequentialRuns && x.n < o.Iterations {
			limit = " (the test started no goroutine in any: there is no interleaving to explore)"
		}
		t.Logf("sched: %d schedules passed in %v%s; first seed %#x, strategy %s",
			x.n, x.elapsed.Round(time.Millisecond), limit, x.base, o.Strategy)
		if o.Strategy == "hunt" {
			t.Logf("sched: hunt: corpus %d inputs, %d coverage features", x.hunt.Corpus, x.hunt.Cover)
		}
		if o.Strategy == "bounded" {
			t.Logf("sched: bounded: %s", boundedNote(o, x))
		}
	}
}

// Explore runs body under the scheduler for up to opts.Iterations schedules
// (or opts.Time), as TestWith does but without a testing.T and without
// reading flags, and returns the first failing schedule's result, or the
// last passing one. Result.Schedule says how many schedules ran.
func Explore(opts Options, body func(*T)) (*Result, error) {
	refuseNested("schedtest.Explore")
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	x := explore(o, "schedtest.Explore", nil, body, nil)
	if x.err != nil {
		return nil, x.err
	}
	if x.res.Failure != nil && len(x.found) == 0 {
		x = shrinkFailure(o, "schedtest.Explore", nil, body, x)
	}
	return x.res, nil
}

type exploration struct {
	base    uint64
	n       int // schedules run
	s       plan
	res     *Result
	note    string
	elapsed time.Duration
	saved   string // where the failure's trace was saved
	// outerFailed says that the last schedule failed the enclosing test
	// through its *testing.T, not through the body's *T.
	outerFailed bool
	stall       string // the first schedule's Result.Stall, and which it was
	past        int    // how many schedules outgrew the step bound (Result.PastBound)
	// nearDeadline says the exploration stopped before its budget, at
	// Options.stopBy.
	nearDeadline bool
	exhausted    bool            // a bounded search ran every schedule within its bound
	natives      []engine.Native // what its runs started outside the scheduler, each once
	sequential   int             // how many schedules ran the body alone, with no schedule to draw (see sequential)
	saveErr      error
	err          error              // the exploration could not go on (a hunt's corpus)
	shrunk       *hunt.ShrinkResult // how the failure was shrunk
	found0       *plan              // the schedule as found, before shrinking
	found        []exploration      // a hunt's failures, saved, the first being this one
	hunt         hunt.Stats         // a hunt's loop, when nothing failed
}

// noteNatives adds what res's run started outside the scheduler to x's.
func (x *exploration) noteNatives(res *Result) {
	for _, n := range res.natives {
		if !slices.ContainsFunc(x.natives, func(m engine.Native) bool { return m.What == n.What }) {
			x.natives = append(x.natives, n)
		}
	}
}

// nativesNote says what the runs of a test started outside the scheduler,
// and what that means for a pass.
func nativesNote(ns []engine.Native) string {
	var what []string
	web := false
	for _, n := range ns {
		web = web || strings.HasPrefix(n.What, "http.") || strings.HasPrefix(n.What, "httptest.")
		if n.Where != "" {
			what = append(what, n.What+" ("+n.Where+")")
		} else {
			what = append(what, n.What)
		}
	}
	return "the test called " + strings.Join(what, ", ") + ", which run natively: what they start (a listener's or a " +
		"server's goroutines, connections, a child process, a database pool) is outside the scheduler, so its " +
		"interleavings are not explored and a replay does not reproduce them; the schedules explored are those of the " +
		"test's own goroutines" + webAdvice(web)
}

// webAdvice is what the note of a test that ran net/http or httptest
// natively adds: how to run them on the scheduler.
func webAdvice(web bool) string {
	if !web {
		return ""
	}
	if m := currentMode(); m.wrap {
		return "; dstreplay test -wrap runs net/http and httptest on the scheduler, over a simulated network, unless -nativehttp is given"
	}
	return "; dstreplay test -rewrite=net/http/... runs net/http and httptest on the scheduler, over a simulated network"
}

// stopEarly reports whether the exploration that began at start should
// end before schedule i: its time budget is spent, or the next schedule, as
// long as the mean so far, would end past the test's share of the time go
// test left (x.nearDeadline).
func (x *exploration) stopEarly(o Options, i int, start time.Time) bool {
	if i == 0 {
		return false
	}
	if o.Time > 0 && time.Since(start) >= o.Time {
		return true
	}
	if !o.stopBy.IsZero() && time.Now().Add(time.Since(start)/time.Duration(i)).After(o.stopBy) {
		x.nearDeadline = true
		return true
	}
	return false
}

// explore runs schedules until one fails or the budget is spent. logf, when
// not nil, is told about every schedule.
func explore(o Options, name string, tb tbase, body func(*T), logf func(string, ...any)) exploration {
	if o.Strategy == "hunt" && o.Recording == nil {
		return huntExplore(o, name, tb, body, logf)
	}
	if o.Strategy == "bounded" && o.Recording == nil {
		return boundedExplore(o, name, tb, body, logf)
	}
	x := exploration{base: o.Seed}
	if x.base == 0 && o.Recording == nil {
		x.base = randomSeed()
	}
	start := time.Now()
	pctHint := schedule.MinPCTSteps
	var profile engine.Profile // SURW's: the last schedule's
	failedBefore := tb != nil && tb.Failed()
	for i := 0; i < o.Iterations; i++ {
		if x.stopEarly(o, i, start) {
			break
		}
		x.s = o.schedule(i, x.base, pctHint)
		x.s.profile = profile
		x.res, x.note = x.s.run(o, name, tb, body)
		x.noteNatives(x.res)
		if x.res.profile != nil {
			profile = x.res.profile
		}
		x.n++
		x.res.Schedule = x.n
		if logf != nil {
			logf("sched: schedule %d (%s): %s", x.n, x.s.describe(x.res), outcome(x.res))
		}
		pctHint = max(pctHint, x.res.Steps)
		if x.res.Stall != "" && x.stall == "" {
			x.stall = fmt.Sprintf("in schedule %d, %s", x.n, x.res.Stall)
		}
		if x.res.PastBound != 0 {
			x.past++
		}
		if o.stopSequential && x.n == sequentialRuns && x.sequential == x.n-1 && sequential(x.res) &&
			x.res.Failure == nil && o.Recording == nil && o.namedBy == "" && (failedBefore || tb == nil || !tb.Failed()) {
			x.sequential++
			break // the test has no interleaving to explore
		}
		if sequential(x.res) {
			x.sequential++
		}
		if x.res.Failure != nil {
			break
		}
		if !failedBefore && tb != nil && tb.Failed() {
			// The body failed the test through the enclosing *testing.T,
			// which the scheduler cannot tie to a schedule as it happens.
			x.outerFailed = true
			break
		}
	}
	x.elapsed = time.Since(start)
	return x
}

// outerFailedReport is what a person reads when a schedule failed the test
// through its *testing.T rather than the body's *T.
func outerFailedReport(name string, o Options, x exploration) string {
	return fmt.Sprintf("sched: %s was failed through its *testing.T in schedule %d (%s); the exploration stopped there.\n"+
		"Inside the body, fail through the *schedtest.T it receives (t.Error, t.Fatal, ...), not the test's own t:\n"+
		"then the scheduler reports which goroutine failed and where, shrinks the schedule and saves its trace.\n"+
		"\nreproduce:\n  %s\n%s",
		name, x.n, x.s.describe(x.res), reproduce(name, o, x), toolNote())
}

// drawn is x's schedule as what its run drew: a hunt's input (its
// recording, then values from its seed), or a schedule its seed does not
// reproduce alone (SURW's, a bounded search's), becomes the whole
// recording, which a -dst.replay handle names.
func (x exploration) drawn() plan {
	s := x.s
	fromSeed := s.Recording == nil && s.data == nil
	if (s.Then || fromSeed && !s.seedReproduces()) && x.res != nil && x.res.Recording != nil {
		s.Recording, s.Then = x.res.Recording, false
	}
	return s
}

func outcome(res *Result) string {
	if res.Failure == nil {
		return "pass"
	}
	return res.Failure.Message
}

// failureReport is what a person reads when a schedule fails.
func failureReport(name string, o Options, x exploration) string {
	s, res, note := x.drawn(), x.res, x.note
	var b strings.Builder
	fmt.Fprintf(&b, "sched: %s in schedule %d of %s (%s)\n", res.Failure.Kind, x.n, name, s.describe(res))
	if note != "" {
		fmt.Fprintf(&b, "%s\n", note)
	}
	if res.Stall != "" {
		fmt.Fprintf(&b, "note: %s\n", res.Stall)
	}
	if res.PastBound != 0 && (res.Failure == nil || res.Failure.Kind != StepBound) {
		fmt.Fprintf(&b, "note: this run outgrew the step bound of %d scheduling points at step %d while working; "+
			"its exploration ended there and the failure came after it, the goroutines taking turns without "+
			"preemption (-dst.maxsteps raises the bound)\n", res.opts.MaxSteps, res.PastBound)
	}
	if o.startMoved {
		fmt.Fprintf(&b, "note: the virtual clock started at %s, after the real time the program read outside the run (in a package's init or TestMain), not at its default start: a process that reads the clock at another time starts elsewhere\n",
			o.Start.Format(time.RFC3339Nano))
	}
	if r := x.shrunk; r != nil {
		fmt.Fprintf(&b, "shrunk from %v to %v (%d runs)\n", r.Before, r.After, r.Runs)
		if r.OutOfTime {
			fmt.Fprintf(&b, "note: shrinking stopped at its time bound: a faster or slower machine may shrink this failure to another schedule\n")
		}
	}
	if res.rerun != "" {
		fmt.Fprintf(&b, "%s\n", res.rerun)
	}
	fmt.Fprintf(&b, "\n%s\n", res.Failure.Error())
	if len(res.Faults) > 0 {
		fmt.Fprintf(&b, "\nfaults fired:\n")
		for _, f := range res.Faults {
			fmt.Fprintf(&b, "  %s\n", f)
		}
	}
	if len(res.Draws) > 0 {
		fmt.Fprintf(&b, "\nvalues drawn:\n")
		for i, d := range res.Draws {
			if i == maxDrawsShown {
				fmt.Fprintf(&b, "  ... and %d more\n", len(res.Draws)-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	if len(res.Logs) > 0 {
		fmt.Fprintf(&b, "\nlog:\n")
		for _, l := range res.Logs {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	line := reproduce(name, o, x)
	fmt.Fprintf(&b, "\nreproduce:\n  %s\n", line)
	if x.found0 != nil && x.found0.Recording == nil {
		fmt.Fprintf(&b, "the schedule as found, before shrinking:\n  %s\n", reproduceLine(name, o, *x.found0))
	}
	switch {
	case x.saved != "":
		read := "or read it:"
		if _, known := tool(); !known {
			read = "or read it (once: go get -tool github.com/dstgo/dst/cmd/dstreplay):"
		}
		if replay := traceLine(name, x.saved); replay != line {
			fmt.Fprintf(&b, "\ntrace saved as %s; replay it:\n  %s\n%s\n", fromRoot(x.saved), replay, read)
		} else {
			fmt.Fprintf(&b, "\ntrace saved as %s (the line above replays it); %s\n", fromRoot(x.saved), read)
		}
		t, _ := tool()
		fmt.Fprintf(&b, "  %s summary %s\n", t, shellWord(fromRoot(x.saved)))
	case x.saveErr != nil:
		fmt.Fprintf(&b, "\nthe trace could not be saved: %v\n", x.saveErr)
	}
	b.WriteString(toolNote())
	return b.String()
}

// maxHandle bounds the -dst.replay handles a reproduce line holds: a
// schedule of a thousand goroutines draws a handle of hundreds of
// kilobytes, which no one reads or copies, and which the shell refuses
// (Linux takes no argument over 128 KiB). A longer one is left in a file
// that the line names.
const maxHandle = 2048

// reproduce is the command that runs exactly x's failing schedule: its
// reproduceLine, or, when the schedule's handle is longer than maxHandle,
// a line that replays its saved trace, else one that runs an input file
// holding every value the run drew, written for it (inputFile).
func reproduce(name string, o Options, x exploration) string {
	s := x.drawn()
	if s.Recording == nil || len(s.Recording.Handle()) <= maxHandle {
		return reproduceLine(name, o, s)
	}
	if x.saved != "" {
		return traceLine(name, x.saved)
	}
	rec := s.Recording
	if x.res != nil && x.res.Recording != nil {
		rec = x.res.Recording // the whole of what the run drew
	}
	path, err := inputFile(name, s, rec)
	if err != nil {
		return reproduceLine(name, o, s) + fmt.Sprintf("\n  (a handle of %d bytes, too long for a shell; it could not be written to a file: %v)",
			len(s.Recording.Handle()), err)
	}
	args := goTest()
	args = append(args, packageArg(), "-run", shellQuote(gotest.RunPattern(name)), shellWord("-dst.input="+path))
	return strings.Join(append(args, optionFlags(o)...), " ")
}

// inputFile writes schedule s, with rec (every value its run drew, so that
// -dst.input, which draws fresh values past a recording, draws none) as an
// input file under the temporary directory, atomically, named by its
// test and contents, and returns its absolute path.
func inputFile(name string, s plan, rec *entropy.Recording) (string, error) {
	in := s.Schedule
	in.Recording, in.Seed, in.Then, in.SeedRecorded = rec, 0, false, false
	b, err := in.MarshalText()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(name+"\n"), b...))
	dir := filepath.Join(os.TempDir(), "dst-inputs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, hex.EncodeToString(sum[:8])+".input")
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, atomicfile.WriteBytes(path, true, b)
}

// maxDrawsShown bounds the values drawn a report lists.
const maxDrawsShown = 20

// traceLine is a go test command that replays the trace file, run as
// this test binary runs.
func traceLine(name, file string) string { return replayLine(name, file, currentMode()) }

// replayLine is the command that replays the trace file in mode m.
func replayLine(name, file string, m mode) string {
	args := m.command()
	if dependencyUnderTest() != "" {
		if abs, err := filepath.Abs(file); err == nil {
			file = abs
		}
	}
	return strings.Join(append(args, packageArg(), "-run", shellQuote(gotest.RunPattern(name)), shellWord("-dst.trace="+file)), " ")
}

// packageArg names the package under test in the commands a report prints.
func packageArg() string {
	if dep := dependencyUnderTest(); dep != "" {
		return dep
	}
	return packageDir()
}

// saveFailure writes the failing schedule's trace under the test's directory
// of saved failures, so the next go test replays it first.
func saveFailure(name string, o Options, x exploration, body func(*T)) (string, error) {
	dir := saveDir()
	if dir == "off" || x.res.Trace == nil {
		return "", nil
	}
	id := fmt.Sprintf("%#x", x.s.Seed)
	if x.s.Recording != nil {
		what := x.s.Recording.Handle()
		if x.s.Then {
			what += fmt.Sprintf(" then %#x", x.s.Seed) // a hunt's input: its seed too
		}
		sum := sha256.Sum256([]byte(what))
		id = hex.EncodeToString(sum[:6])
	}
	kind := pathElement(strings.ReplaceAll(string(x.res.Failure.Kind), " ", "-"))
	file := filepath.Join(testDir(dir, name), fmt.Sprintf("%s-%s.trace", kind, id))
	if err := confined(name); err != nil {
		return "", err // the test made a link since it began
	}
	// Best effort: what a killed save left does not keep this one from
	// being written.
	removeStaleTemps(name, staleTemp)
	if err := x.res.WriteTrace(file); err != nil {
		return "", err
	}
	return file, nil
}

// recorded is the header and the outcome's kind of the trace at path, or
// nil when it cannot tell (replayFile then says why the file cannot be
// read).
func recorded(path string) (*trace.Header, string) {
	r, err := trace.OpenFile(path)
	if err != nil {
		return nil, ""
	}
	defer r.Close()
	kind := ""
	if r.Outcome != nil {
		kind = r.Outcome.Kind
	}
	return &r.Header, kind
}

// cannotReplay says why a trace recorded in mode rec, which ended in a
// failure of kind, cannot replay in mode cur, or "". Plain go test runs
// the code as written, which a trace of rewritten code does not describe;
// only the race detector reports a data race. Other differences (code
// rewritten now but not then, -race now but not then, other flags of
// dstreplay test) may still replay: replayForTest then says it when the
// trace no longer fails.
func cannotReplay(rec, cur mode, kind string) string {
	switch {
	case rec.rewritten && !cur.rewritten:
		return "was recorded under dstreplay test, which runs the code rewritten onto the scheduler; go test runs it as written, which cannot replay it"
	case rec.race && !cur.race && kind == string(DataRace):
		return "was recorded under -race, and its failure is a data race, which only the race detector reports"
	case rec.rewritten && cur.rewritten && rec.httpOnScheduler() != cur.httpOnScheduler():
		if rec.httpOnScheduler() {
			return "was recorded with net/http on the scheduler (-wrap, or -rewrite=net/http/...), and this binary runs it natively: its schedule is of goroutines this run does not have"
		}
		return "was recorded with net/http run natively (-nativehttp, or neither -wrap nor -rewrite=net/http/...), and this binary runs it on the scheduler: its schedule is of other goroutines"
	}
	return ""
}

// httpOnScheduler reports whether the standard HTTP stack runs on the
// scheduler in m: under -wrap without -nativehttp, or when m's -rewrite has
// a pattern that matches net/http, httptest or crypto/tls, as the rewrite
// matches them (internal/rewrite's StdPackages and matchAny). A schedule
// recorded one way does not replay the other. "..." means every
// dependency, which leaves the standard library out.
func (m mode) httpOnScheduler() bool {
	if m.wrap && !m.nativeHTTP {
		return true
	}
	for _, p := range strings.Split(m.rewrite, ",") {
		if p == "..." {
			continue
		}
		for _, path := range []string{"net/http", "net/http/httptest", "crypto/tls", "net/rpc"} {
			prefix, wild := strings.CutSuffix(p, "...")
			dir, tree := strings.CutSuffix(prefix, "/")
			switch {
			case p == path,
				wild && tree && (path == dir || strings.HasPrefix(path, dir+"/")),
				wild && !tree && strings.HasPrefix(path, prefix):
				return true
			}
		}
	}
	return false
}

// replayForTest replays a trace file in test t. A saved failure that still
// fails fails t; one that passes is reported and left for the user to
// delete. given says the file was named by -dst.trace: then passing is
// reported too, and the exploration does not follow. A trace this test
// binary cannot replay (cannotReplay) is not replayed: given, it fails t
// with the command that replays it; saved, t logs it, and -dst.prune keeps
// it.
func replayForTest(t *testing.T, path string, body func(*T), given bool) {
	t.Helper()
	h, kind := recorded(path)
	brk := 0
	if given {
		brk = flags.brk
		if h != nil && h.Test != "" && h.Test != t.Name() {
			t.Fatalf("sched: -dst.trace=%s was recorded by %s, not by %s: run it with -run %s",
				path, h.Test, t.Name(), shellQuote(gotest.RunPattern(h.Test)))
		}
	} else if h != nil && h.Test != "" && h.Test != t.Name() {
		// Another test's, where the names of older versions collided, or
		// a file system that folds case does.
		t.Logf("sched: %s was saved by %s, not by %s: not replayed", fromRoot(path), h.Test, t.Name())
		return
	}
	shown := path // as the user gave it, or from the module's root
	if !given {
		shown = fromRoot(path)
	}
	cur, rec := currentMode(), currentMode()
	if h != nil {
		rec = recordedMode(h)
	}
	if why := cannotReplay(rec, cur, kind); why != "" {
		msg := fmt.Sprintf("sched: %s %s: replay it as it was recorded:\n  %s", shown, why, replayLine(t.Name(), path, rec))
		if given {
			t.Fatal(msg + "\n" + toolNote())
		} else {
			t.Logf("%s\n(a saved failure, not replayed by %s, nor deleted by -dst.prune)\n%s", msg, cur, toolNote())
		}
		return
	}
	res, err := replayFile(path, t.Name(), t, body, brk)
	var d *trace.Divergence
	switch {
	case err != nil && !errors.As(err, &d):
		t.Fatalf("sched: replaying %s: %v", shown, err)
	case res.Failure != nil:
		var b strings.Builder
		fmt.Fprintf(&b, "sched: %s (replaying %s: %s)\n", res.Failure.Kind, shown, res.Strategy)
		if d != nil {
			fmt.Fprintf(&b, "note: %v\n", d)
		}
		fmt.Fprintf(&b, "\n%s\n\nreplay it:\n  %s\n", res.Failure.Error(), traceLine(t.Name(), path))
		if !given {
			fmt.Fprintf(&b, "(a saved failure: delete %s once it is fixed)\n", shown)
		}
		t.Fatal(b.String())
	case rec != cur:
		// It may pass only for want of what it was recorded with.
		how := "replays exactly and passes"
		if d != nil {
			how = fmt.Sprintf("passes, but it ran differently from its recording (%v)", d)
		}
		what := "the saved failure " + shown
		if given {
			what = shown
		}
		t.Logf("sched: %s %s under %s, but it was recorded under %s: replay it as it was recorded before deciding it is fixed:\n  %s\n%s",
			what, how, cur, rec, replayLine(t.Name(), path, rec), toolNote())
	case given && d != nil:
		t.Logf("sched: %s no longer fails, but it ran differently from its recording: %v", shown, d)
	case given:
		t.Logf("sched: %s replays exactly and passes", shown)
	case flags.prune:
		err := os.Remove(path)
		if err == nil {
			os.Remove(strings.TrimSuffix(path, ".trace") + ".input") // a hunt's, beside it
			t.Logf("sched: the saved failure %s no longer fails: deleted (-dst.prune)", shown)
		} else {
			t.Errorf("sched: the saved failure %s no longer fails, but deleting it failed: %v", shown, err)
		}
	default:
		how := "it replays exactly and passes"
		if d != nil {
			how = fmt.Sprintf("it ran differently from its recording (%v)", d)
		}
		t.Logf("sched: the saved failure %s no longer fails: %s; if the bug is fixed, delete it, or delete "+
			"every saved failure of the package that passes with:\n  %s -dst.prune", shown, how, pruneLine())
	}
}

// removeTempsForTest removes the temporary files that killed saves left in
// the directory of t's saved failures: those older than staleTemp, or with
// -dst.prune those older than pruneTemp, and says so.
func removeTempsForTest(t *testing.T) {
	t.Helper()
	age, why := staleTemp, fmt.Sprintf("older than %v", staleTemp)
	if flags.prune {
		age, why = pruneTemp, fmt.Sprintf("older than %v, -dst.prune", pruneTemp)
	}
	n, dir, err := removeStaleTemps(t.Name(), age)
	if n > 0 {
		files := "files"
		if n == 1 {
			files = "file"
		}
		t.Logf("sched: removed %d temporary %s that interrupted saves left in %s (%s)", n, files, fromRoot(dir), why)
	}
	if err != nil {
		t.Logf("sched: note: %v", err)
	}
}

// pruneLine is the go test command that replays the current package's
// saved failures, to which -dst.prune is added.
func pruneLine() string {
	args := goTest()
	return strings.Join(append(args, packageDir(), "-count=1"), " ")
}

// reproduceLine is a go test command that runs exactly schedule s of test
// name, from the module root.
func reproduceLine(name string, o Options, s plan) string {
	args := goTest()
	args = append(args, packageArg(), "-run", shellQuote(gotest.RunPattern(name)))
	args = append(args, s.Flags()...)
	return strings.Join(append(args, optionFlags(o)...), " ")
}

// optionFlags are the flags a reproduce line needs for the options of the
// run that are not the schedule's, when they are not the defaults.
func optionFlags(o Options) []string {
	var args []string
	if o.MaxSteps != engine.DefaultMaxSteps {
		args = append(args, fmt.Sprintf("-dst.maxsteps=%d", o.MaxSteps))
	}
	if o.faultFlag != "" {
		// The faults the command line turned on: without them the
		// schedule draws none.
		args = append(args, shellWord("-dst.faults="+o.faultFlag))
	}
	if d, ok := gotest.Timeout(); ok && currentMode().wrap && d != goTestTimeout {
		// A wrapped test's virtual timeout is go test's -timeout: the
		// line runs it under the same one, or the run would fail later
		// (or not at all).
		args = append(args, "-timeout="+d.String())
	}
	return args
}

// goTestTimeout is go test's -timeout when none is given.
const goTestTimeout = 10 * time.Minute

// goTest is the command that runs the test again, as this run does: go
// test, or, for code that dstreplay test rewrote, the same through
// dstreplay (plain go test would run the code as written), with -race if
// this run has it.
func goTest() []string { return currentMode().command() }

// envTool is the environment variable in which dstreplay test says how it
// was run, as words of a shell command ("go run
// github.com/dstgo/dst/cmd/dstreplay@v1.2.0", the path of a dstreplay
// binary, "go tool dstreplay"), for the commands a report prints.
const envTool = "DST_TOOL"

// tool is the command that runs dstreplay: as $DST_TOOL says (known), else
// "go tool dstreplay", which needs dstreplay to be a tool of the module
// (toolNote says so).
func tool() (cmd string, known bool) {
	if t := strings.TrimSpace(os.Getenv(envTool)); t != "" {
		return t, true
	}
	return "go tool dstreplay", false
}

// toolNote is the line a report ends with when its commands run dstreplay
// as a tool of the module because nothing said how it was run, else "".
func toolNote() string {
	if _, known := tool(); known || !currentMode().rewritten {
		return ""
	}
	return "(go tool dstreplay runs dstreplay as a tool of this module: once, go get -tool github.com/dstgo/dst/cmd/dstreplay; or run dstreplay as you ran dstreplay test)\n"
}

// mode is how a test binary runs the code under test: as written (go
// test) or rewritten onto the scheduler by dstreplay test and its flags,
// and with or without the race detector. A trace's header records it.
type mode struct {
	rewritten  bool
	wrap       bool   // dstreplay test -wrap
	nativeHTTP bool   // dstreplay test -wrap -nativehttp
	rewrite    string // dstreplay test -rewrite=...
	race       bool
}

// currentMode is how this test binary runs.
func currentMode() mode {
	v := os.Getenv("DST_REWRITTEN")
	m := mode{rewritten: v != "", race: engine.RaceEnabled}
	for _, f := range rewriteFlags(v) {
		switch name, value, _ := strings.Cut(f, "="); name {
		case "-wrap":
			m.wrap = true
		case "-nativehttp":
			m.nativeHTTP = true
		case "-rewrite":
			m.rewrite = value
		}
	}
	return m
}

// recordedMode is how the test binary that wrote the trace header h ran.
func recordedMode(h *trace.Header) mode {
	var m mode
	for _, o := range h.Options {
		switch k, v, _ := strings.Cut(o, "="); k {
		case "rewritten":
			m.rewritten = v == "1"
		case "rewritten.wrap":
			m.wrap = v == "1"
		case "rewritten.nativehttp":
			m.nativeHTTP = v == "1"
		case "rewritten.rewrite":
			m.rewrite = v
		case "race":
			m.race = v == "1"
		}
	}
	return m
}

// command is the go test command that runs tests in mode m.
func (m mode) command() []string {
	args := []string{"go", "test"}
	if m.rewritten {
		t, _ := tool()
		args = []string{t, "test"}
		if m.wrap {
			args = append(args, "-wrap")
		}
		if m.wrap && m.nativeHTTP {
			args = append(args, "-nativehttp")
		}
		if m.rewrite != "" {
			args = append(args, shellWord("-rewrite="+m.rewrite))
		}
	}
	if m.race {
		args = append(args, "-race")
	}
	return args
}

// String names the mode as the command that runs it: "go test -race",
// "dstreplay test -wrap".
func (m mode) String() string {
	words := m.command()
	if m.rewritten {
		words[0] = "dstreplay"
	}
	return strings.Join(words, " ")
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWord is s as one word of a shell command: as it is when the shell
// reads it so, else quoted (a path under a directory whose name has a space).
func shellWord(s string) string {
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("_-+=.,/:@%", c)) {
			return shellQuote(s)
		}
	}
	return s
}

// fromRoot is path, relative to the package's directory (where go test
// runs the test), made relative to where the reproduce lines are run from
// (lineDir), so that dstreplay finds it there too.
func fromRoot(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	if dependencyUnderTest() != "" {
		if abs, err := filepath.Abs(path); err == nil {
			return abs // the package is not in the module the lines run from
		}
	}
	return filepath.ToSlash(filepath.Join(packageDir(), path))
}

// dependencyUnderTest is the import path of the package under test when
// dstreplay test ran it from another module than its own (dstreplay test
// golang.org/x/sync/errgroup from the user's module): reproduce lines then
// name it by its import path, to be run from there.
func dependencyUnderTest() string {
	from := os.Getenv("DST_TEST_DIR") // where dstreplay test ran
	root := moduleRoot()
	if from == "" || root == "" {
		return ""
	}
	if inside(root, from) {
		return "" // the package's module
	}
	return testedPackage()
}

// inside reports whether dir is root or a directory beneath it.
func inside(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// moduleRoot is the directory of the go.mod above the current directory,
// or "".
func moduleRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// packageDir is the current package's directory (go test runs tests in the
// package directory) relative to where the reproduce lines are run from
// (lineDir), or "." when unknown.
func packageDir() string {
	wd, err := os.Getwd()
	base := lineDir()
	if err != nil || base == "" {
		return "."
	}
	rel, err := filepath.Rel(base, wd)
	switch {
	case err != nil || rel == ".":
		return "."
	case rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)):
		return filepath.ToSlash(rel)
	}
	return "./" + filepath.ToSlash(rel)
}

// lineDir is where the lines a report prints (reproduce, replay, read)
// are to be run from: where dstreplay test ran (DST_TEST_DIR), when that
// is in the package's module, so that they work where the user is, else
// the module's root, where go test ./... runs.
func lineDir() string {
	root := moduleRoot()
	from := os.Getenv("DST_TEST_DIR")
	if root == "" || from == "" {
		return root
	}
	if inside(root, from) {
		return from
	}
	return root
}

func randomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:]) | 1
}

// pastNote says that past of n schedules outgrew the step bound while
// working, and what the tool did with them.
func pastNote(past, n, bound int) string {
	return fmt.Sprintf("%d of %d schedules outgrew the step bound of %d scheduling points while working (they kept "+
		"making progress): each was explored up to the bound, and went on from there unexplored, the goroutines "+
		"taking turns without preemption, to its end; -dst.maxsteps raises the bound", past, n, bound)
}

// sequentialRuns is how many schedules of a test that never starts a
// goroutine explore: they differ only in what Go leaves to chance
// (math/rand's values, the orders of map ranges, the time that passes
// between two readings of the clock: engine.GoRandomUID), which a test run
// natively draws once; a thousand of them would cost a thousand native runs
// and explore no interleaving.
const sequentialRuns = 10

// budget describes o's budget of schedules, for a note.
func budget(o Options) string {
	var b []string
	if !unlimited(o.Iterations) {
		b = append(b, fmt.Sprintf("%d schedules", o.Iterations))
	}
	if o.Time > 0 {
		b = append(b, fmt.Sprintf("-dst.time %v", o.Time))
	}
	if len(b) == 0 {
		return "none"
	}
	return strings.Join(b, " or ")
}

// sequential reports whether res is of a run in which the body never
// started a goroutine and drew nothing but what Go leaves to chance: the
// strategy had no decision to make, and no fault, clock fault or value of
// the test's own (T.Entropy) was drawn.
func sequential(res *Result) bool {
	if res.Goroutines != 1 || res.Recording == nil {
		return false
	}
	for _, v := range res.Recording.Values {
		if !engine.StrategyUID(v.UID) && !engine.GoRandomUID(v.UID) {
			return false
		}
	}
	return true
}

// runNatively runs body once on t's goroutine, outside any run: every
// shim is then what it stands for, and T forwards to t.
func runNatively(t *testing.T, body func(*T)) {
	rt := &T{TB: t, name: t.Name(), natively: true}
	defer rt.runCleanups()
	body(rt)
}
