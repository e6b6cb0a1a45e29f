package schedtest

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/schedule"
	"github.com/dstgo/dst/trace"

	// Where dstreplay test overlays package os, its writes hand over to
	// simdisk, which sets that up when it starts: in every run's binary.
	_ "github.com/dstgo/dst/sched/simdisk"
)

// Result is what one execution of a body under the scheduler did.
type Result struct {
	// Failure is nil when the run passed.
	Failure *Failure
	// Schedule is the 1-based number of this schedule in an exploration.
	Schedule int
	// Seed, Strategy, Depth and PCTSteps are the schedule that ran: with the
	// same options they reproduce it exactly.
	Seed     uint64
	Strategy string
	Depth    int
	PCTSteps int
	// Steps counts scheduling points, Switches the times the running
	// goroutine changed, Preemptions the switches away from a goroutine that
	// could have continued, Goroutines the managed goroutines (the body
	// included).
	Steps, Switches, Preemptions, Goroutines int
	// Faults lists the fault points that fired, in order.
	Faults []string
	// Logs is what the body logged through T.
	Logs []string
	// Draws is the values the body drew from T.Entropy, each with where,
	// in a run re-executed with source locations (a failure's).
	Draws []string
	// Recording is every value drawn from the entropy during the run;
	// Options.Recording replays it.
	Recording *entropy.Recording
	// Trace is the run's events, when they were recorded (Options.Record,
	// or a failing run's re-execution).
	Trace *trace.Buffer
	// Stall, when not empty, says that a goroutine ran for 200ms or more
	// without reaching a scheduling point, in what state and where: it
	// blocked outside the scheduler (time.Sleep, I/O, a plain channel or
	// lock), or computed that long. Not a failure, unless it lasts as long
	// as Options.Watchdog.
	Stall string
	// PastBound, when not 0, is the step at which the run outgrew the step
	// bound (Options.MaxSteps) while working: its exploration ended there,
	// and it went on unexplored, each goroutine running until it blocked,
	// yielded or polled, up to ten times the bound.
	PastBound int
	// Exhausted says, of the last result of a bounded search (Strategy
	// "bounded"), that it ran every schedule within its bound of
	// preemptions and none failed.
	Exhausted bool

	// What WriteTrace needs to describe the run.
	sched  plan
	opts   Options
	name   string
	body   func(*T)
	detail bool
	// rerun, when not empty, says that this is a re-execution's result
	// whose output differs from its schedule's first execution (rerunNote).
	rerun string
	// profile is, under SURW, the run's events, for the next schedule's
	// weights.
	profile engine.Profile
	// branches are a bounded search's run's decisions.
	branches []engine.Branch
	// natives are what the run started outside the scheduler.
	natives []engine.Native
}

// WriteTrace saves the run's trace as the file path (atomically), with a
// header that lets Replay re-execute it. It fails when the run's events were
// not recorded.
func (r *Result) WriteTrace(path string) error {
	if r.Trace == nil {
		return fmt.Errorf("sched: the run's events were not recorded (set Options.Record)")
	}
	return writeTrace(path, r.sched.header(r.opts, r.name, r.body, r.Recording, r.detail), r)
}

// FailureKind classifies a failed run. Its String is the kind's name in
// reports and traces ("deadlock", "fatal error", ...).
//
//   - Deadlock: every goroutine is blocked, the body included.
//
//   - Leak: the body returned and the remaining goroutines ran until all are
//     blocked; those left can never proceed. Most blocking bugs in real Go
//     code show this way.
//
//   - Livelock: goroutines kept running, yielding or polling (sched.Yield,
//     runtime.Gosched, a TryLock or CompareAndSwap that fails, a select
//     that takes its default case), and none made progress (blocked, was
//     woken, started or exited, or swapped after a failed swap: a spin lock
//     taken) for the livelock window (see Options.MaxSteps);
//     or the run reached the step bound after making no progress for the
//     window. The report shows where each goroutine spun. A run that does
//     a lot of work makes progress and goes on.
//
//   - StepBound: the run reached ten times Options.MaxSteps scheduling
//     points though it kept making progress or working (past MaxSteps it
//     went on unexplored): an endless loop that blocks and wakes (a poller
//     whose condition never comes, a server nobody stops), or a test
//     bigger than the bound.
//
//   - Leak also reports goroutines left behind that are not blocked: once
//     the body has returned, they may run until they exit or block, but
//     goroutines that keep running on timers (a janitor's ticker) for 100
//     clock advances and a second of virtual time, or for the livelock
//     window, without one of them exiting, are a leak at once, as goleak
//     would report them. The report says where each runs and where it was
//     started; Options.IgnoreTopFunction and IgnoreAnyFunction ignore
//     known ones.
//
//   - Panic in any managed goroutine, with its stack; and FatalError, Go's
//     fatal errors for misused primitives ("sync: unlock of unlocked
//     mutex"), which end the run as they would end the program.
//
//   - TestFailed: T.Error, T.Fatal and friends, from any managed goroutine.
//
//   - Escape: a goroutine started with a plain go statement during the run
//     (or by one such, even one that has returned since) is still alive
//     when the run ends; it ran outside the scheduler. The run's goroutines
//     carry a profiler label ("dst.run", in place of labels they would have
//     inherited from the test) that Go hands to each goroutine they start,
//     which is how those are told; a goroutine that replaces its labels
//     (pprof.Do from a context without it) has lost it from then on, which
//     leaves the "created by" lines of live goroutines to go by.
//
//   - Watchdog: a managed goroutine ran for Options.Watchdog without
//     reaching a scheduling point: it blocked outside the scheduler (a
//     native channel, sync.Mutex, time.Sleep, I/O) or spins. Shorter than
//     that, from 200ms, it is not a failure but a note (Result.Stall), which
//     Test logs.
//
//   - Timeout: the run's virtual clock reached Options.Timeout (a wrapped
//     test's: go test's -timeout): the test, written for real time, would
//     have run that long in Go and been stopped there. Most often a
//     goroutine blocked for ever while a ticker or a sleeping loop keeps the
//     run going, a hang that is no deadlock for Go either.
//
//   - Misuse: an object of one run touched from another run, or from a
//     goroutine the run does not manage (which is ended, as by
//     runtime.Goexit); a run started from inside a run; a misuse of a
//     primitive that Go does not detect but that corrupts it.
//
//   - DataRace: under -race, the race detector reported a race during the
//     run. The handoff between managed goroutines creates no happens-before
//     edge, so it sees every race between them, and the shims report the
//     edges Go's own primitives create, so correctly synchronized code stays
//     quiet. The detector reports a race once per process unless GORACE
//     says otherwise, so Test shrinks and reports a race in a child process
//     of the test binary whose GORACE makes it report every race.
type FailureKind = engine.Kind

// The kinds of failure the scheduler reports.
const (
	Deadlock   = engine.Deadlock   // every goroutine is blocked, the body included
	Leak       = engine.Leak       // the body returned, other goroutines are blocked forever
	Livelock   = engine.Livelock   // goroutines kept running (yielding, polling) and none made progress
	StepBound  = engine.StepBound  // the step bound was reached though the run kept making progress
	Panic      = engine.Panic      // a managed goroutine panicked
	FatalError = engine.Fatal      // misuse Go treats as fatal: "sync: unlock of unlocked mutex"
	TestFailed = engine.TestFailed // the body called T.Error, T.Fatal or similar
	Goexit     = engine.Goexit     // the body called runtime.Goexit
	Escape     = engine.Escape     // a goroutine started with a plain go statement outlived the run
	Watchdog   = engine.Watchdog   // a goroutine stopped reaching scheduling points
	Misuse     = engine.Misuse     // an object was shared between runs or touched from outside
	DataRace   = engine.Race       // under -race: the race detector reported a race in the run
	Timeout    = engine.Timeout    // the virtual clock reached Options.Timeout: in Go the test would have timed out
)

// Failure describes how a run failed.
type Failure struct {
	Kind      FailureKind
	Message   string // the first line of the report
	Goroutine int    // the goroutine that failed, 0 when the whole run did
	report    string
	signature string          // the engine's Signature: the kind and where
	where     engine.Location // the user's line it is best read at (engine's Where); File "" when unknown
}

// Error returns the full report: the message, the failing goroutine's stack
// when there is one, and what every goroutine left was doing and where.
func (f *Failure) Error() string { return f.report }

// refuseNested fails the run of the calling goroutine, if a run manages
// it, for starting runs of its own: what is called the body of a run is
// not meant to run while another run holds the turn.
func refuseNested(what string) {
	if g := engine.Current(); g != nil {
		g.Misuse(what + " called inside a run: a run's goroutines cannot start runs of their own; call it from the test function")
	}
}

// Run executes body once under the scheduler, with the schedule given by
// opts.Seed (or opts.Recording) and opts.Strategy ("portfolio" means PCT for
// a single run). A failing run is re-executed with source locations on, so
// that its report says where each goroutine was. Run returns an error only
// for invalid options.
func Run(opts Options, body func(*T)) (*Result, error) {
	refuseNested("schedtest.Run")
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := o.schedule(0, o.Seed, schedule.MinPCTSteps)
	res, _ := s.run(o, "schedtest.Run", nil, body)
	return res, nil
}

// plan is a schedule, and how to run it.
type plan struct {
	schedule.Schedule
	index      int    // the schedule's number in an exploration, from 0
	data       []byte // serve fresh draws from these bytes (a native fuzz target)
	cover      []byte // coverage map to fill
	transcribe bool
	profile    engine.Profile // SURW: the events of an earlier schedule's goroutines
	script     []int          // a bounded search's: the choices to make (not nil: a scripted walk)
	breakAt    int            // call engine.Breakpoint at this step, for a debugger
	stream     *trace.Writer  // write the trace there as the run goes (runStreaming)
}

// seedStep spreads the seeds of successive schedules.
const seedStep = 0x9E3779B97F4A7C15

func (o Options) schedule(i int, base uint64, pctHint int) plan {
	if o.input != nil {
		s := huntSchedule(*o.input, o)
		s.index = i
		return s
	}
	s := plan{index: i, Schedule: schedule.Schedule{Seed: base + uint64(i)*seedStep, Recording: o.Recording, Depth: o.Depth, PCTSteps: o.PCTSteps}}
	if s.PCTSteps == 0 {
		s.PCTSteps = pctHint
	}
	switch {
	case o.Strategy == "portfolio" && i%2 == 1:
		s.Strategy = engine.Random
	case o.Strategy == "portfolio":
		s.Strategy = engine.PCT
	case o.Strategy == "bounded" || o.Strategy == "hunt":
		// A recording's schedule (-dst.replay) under a strategy that
		// searches: its values are a random walk's.
		s.Strategy = engine.Random
	default:
		s.Strategy, _ = schedule.ParseStrategy(o.Strategy) // withDefaults checked it
	}
	return s
}

// sources keeps fresh entropy sources for reuse: most runs pass and their
// recordings are dropped, so their buffers can serve the next run.
var sources = sync.Pool{New: func() any { return entropy.New(0) }}

// execute runs body once. detail turns source locations on, and with
// o.Record it records the run's events. The recording is the run's own copy.
func (s plan) execute(o Options, name string, tb tbase, body func(*T), detail bool) (*engine.Outcome, *entropy.Recording, *trace.Buffer) {
	var src *entropy.Source
	switch {
	case s.Recording != nil:
		src = s.Source()
	case s.data != nil:
		src = entropy.FromBytes(s.data)
	default:
		src = sources.Get().(*entropy.Source)
		src.Reset(s.Seed)
	}
	watchdog := o.Watchdog
	if watchdog < 0 {
		watchdog = 0
	}
	cfg := engine.Config{
		Name:             name,
		Source:           src,
		Strategy:         s.Strategy,
		Depth:            s.Depth,
		PCTSteps:         s.PCTSteps,
		MaxSteps:         o.MaxSteps,
		Timeout:          o.Timeout,
		Watchdog:         watchdog,
		Detail:           detail,
		Faults:           o.Faults,
		FaultProbability: o.FaultProbability,
		FaultBounds:      o.FaultBounds,
		Start:            o.Start,
		ClockFaults:      engine.ClockFaults(o.ClockFaults),
		Transcribe:       s.transcribe,
		Profile:          s.profile,
		Scripted:         s.script != nil,
		Script:           s.script,
		Cover:            s.cover,
		BreakStep:        s.breakAt,
		IgnoreTop:        o.IgnoreTopFunction,
		IgnoreAny:        o.IgnoreAnyFunction,
	}
	if detail || o.Record {
		cfg.Trace = &trace.Buffer{}
		if s.stream != nil {
			s.stream.Stream(cfg.Trace)
		}
	}
	if detail {
		src.Observe(func(d entropy.Draw) {
			if g := engine.Current(); g != nil {
				g.Drew(d.Call + " at " + d.Site)
			}
		})
		defer src.Observe(nil)
	}
	t := &T{TB: tb, name: name}
	out := engine.Execute(cfg, func() { body(t) })
	t.runCleanups()
	rec := src.Recording().Clone()
	if s.Recording == nil && s.data == nil && (out.Failure == nil || out.Failure.Kind != engine.Watchdog) {
		// An abandoned goroutine may still draw from the source: only
		// sources no goroutine can touch again are reused.
		sources.Put(src)
	}
	return out, rec, cfg.Trace
}

// run executes the schedule and, if it fails, re-executes it from its
// recording with source locations on and its events recorded. The result
// is the re-execution's when it failed the same way (the same signature:
// its kind and where), so that its report, its trace and its reproduce
// line are of one run; when its output differs from the first
// execution's, the result says so (Result.rerun). Otherwise the result is
// the first execution's, and the second result is a note that says why.
func (s plan) run(o Options, name string, tb tbase, body func(*T)) (*Result, string) {
	if o.crashTrace != "" {
		return s.runStreaming(o, name, tb, body)
	}
	out, rec, buf := s.execute(o, name, tb, body, o.Detail)
	stall := out.Stall
	note, rerun, detail := "", "", o.Detail
	if f := out.Failure; f != nil && !detail && f.Kind != engine.Watchdog && f.Kind != engine.Escape &&
		(f.Kind != engine.Race || engine.RaceRepeatable()) {
		again := s
		again.Recording = rec
		again.SeedRecorded = s.seedReproduces()
		out2, _, buf2 := again.execute(o, name, tb, body, true)
		if f2 := out2.Failure; f2 != nil && f2.Signature() == f.Signature() {
			rerun = rerunNote(out, out2)
			out, buf, detail = out2, buf2, true
		} else {
			got := "passed"
			switch {
			case f2 == nil:
			case f2.Kind != f.Kind:
				got = "failed with " + f2.Kind.String()
			default:
				got = fmt.Sprintf("failed another way (%s; the first execution: %s)", f2.Signature(), f.Signature())
			}
			note = fmt.Sprintf("note: re-executing this schedule to record source locations %s instead: the test "+
				"depends on something the scheduler does not control (map iteration order, time.Now, math/rand, "+
				"goroutines started with a plain go statement, native blocking, package-level state that each "+
				"execution changes), so the report below is of its first execution, and lacks locations",
				got)
		}
	}
	res := s.result(out, rec, buf)
	res.opts, res.name, res.body, res.detail, res.rerun = o, name, body, detail, rerun
	if res.Stall == "" {
		res.Stall = stall
	}
	return res, note
}

// seedReproduces reports whether the schedule's seed alone, with its
// strategy, reproduces it: not a recording's, a hunt's input or a fuzz
// target's bytes, nor SURW's, whose weights come from the schedule before,
// nor a bounded search's, whose choices come from its script.
func (s plan) seedReproduces() bool {
	return s.Recording == nil && !s.Then && s.data == nil && s.Strategy != engine.SURW && s.script == nil
}

// rerunNote is what a report says when it is of again, a re-execution
// with source locations of a schedule whose first execution was first,
// and that failed the same way but the body said other things: its log,
// or the messages it failed with (T.Error's, but for the locations detail
// mode puts before them; a panic's value). The test's output then depends
// on state that each execution changes, a package-level counter or an
// address. It quotes the first execution's. It is "" when the two said the
// same. The engine's own messages are not compared: in detail mode they
// say more (a data race names where a goroutine started).
func rerunNote(first, again *engine.Outcome) string {
	msg, msg2 := first.Failure.Message, again.Failure.Message
	switch again.Failure.Kind {
	case engine.TestFailed:
		msg2 = detailLocs.ReplaceAllString(msg2, "$1")
	case engine.Panic:
	default:
		msg2 = msg
	}
	if msg2 == msg && slices.Equal(first.Logs, again.Logs) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "note: this report is of a re-execution of the schedule, which recorded source locations and the "+
		"trace; it failed the same way as the schedule's first execution (%s), but its output differs: the test's "+
		"output depends on state that each execution changes (a package-level counter, an address). The first "+
		"execution's:\n", first.Failure.Signature())
	for _, l := range strings.Split(strings.TrimRight(firstLines(msg, maxFirstLines), "\n"), "\n") {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	if len(first.Logs) > 0 && !slices.Equal(first.Logs, again.Logs) {
		b.WriteString("  log:\n")
		for i, l := range first.Logs {
			if i == maxFirstLines {
				fmt.Fprintf(&b, "    ... and %d more\n", len(first.Logs)-i)
				break
			}
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// maxFirstLines bounds the lines of a first execution's output that a
// rerunNote quotes.
const maxFirstLines = 20

// detailLocs are the source locations that detail mode puts before each
// message of T.Error and its friends ("goroutine 2: store_test.go:42: "),
// which a first execution's messages do not have.
var detailLocs = regexp.MustCompile(`(?m)^(goroutine \d+: )\S+?\.go:\d+: `)

// runStreaming executes the schedule with source locations on, writing its
// trace to o.crashTrace event by event (trace.Writer.Stream): if the run
// kills the process, the file holds every event up to the crash. The note
// says what went wrong with the file, if anything.
func (s plan) runStreaming(o Options, name string, tb tbase, body func(*T)) (*Result, string) {
	f, err := os.Create(o.crashTrace)
	if err == nil {
		s.stream, err = trace.NewWriter(f, s.header(o, name, body, s.Recording, true))
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		o.crashTrace = ""
		res, note := s.run(o, name, tb, body)
		return res, strings.TrimSpace(note + "\nnote: -dst.crashtrace: " + err.Error())
	}
	out, rec, _ := s.execute(o, name, tb, body, true)
	res := s.result(out, rec, nil)
	res.opts, res.name, res.body, res.detail = o, name, body, true
	err = s.stream.Close(outcomeOf(res))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, "note: -dst.crashtrace: " + err.Error()
	}
	return res, ""
}

// result is what the caller sees of a run.
func (s plan) result(out *engine.Outcome, rec *entropy.Recording, buf *trace.Buffer) *Result {
	res := &Result{
		sched:       s,
		Seed:        s.Seed,
		Strategy:    s.Strategy.String(),
		Depth:       s.Depth,
		PCTSteps:    s.PCTSteps,
		Steps:       out.Steps,
		Switches:    out.Switches,
		Preemptions: out.Preemptions,
		Goroutines:  out.Goroutines,
		Logs:        out.Logs,
		Draws:       out.Draws,
		Recording:   rec,
		Trace:       buf,
		Stall:       out.Stall,
		PastBound:   out.PastBound,
		profile:     out.Profile,
		branches:    out.Branches,
		natives:     out.Natives,
	}
	for _, f := range out.Faults {
		res.Faults = append(res.Faults, fmt.Sprintf("%s (step %d, goroutine %d)", f.Name, f.Step, f.G))
	}
	if f := out.Failure; f != nil {
		res.Failure = &Failure{
			Kind:      f.Kind,
			Message:   firstLine(f.Message),
			Goroutine: f.G,
			report:    f.Report(),
			signature: f.Signature(),
		}
		res.Failure.where, _ = f.Where()
	}
	return res
}

// describe is the schedule in words, for reports.
func (s plan) describe(res *Result) string {
	return fmt.Sprintf("%s; %d steps, %d switches, %d goroutines", s.Schedule, res.Steps, res.Switches, res.Goroutines)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func unlimited(n int) bool { return n == math.MaxInt }
