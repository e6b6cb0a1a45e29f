package schedtest

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"strings"
	"time"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/hunt"
	"github.com/dstgo/dst/internal/schedule"
)

// Options shape how a body is explored. The zero value is valid: every field
// documents its default. Test and Fuzz read flags given to go test; Run and
// Explore read none.
//
// A test binary that imports schedtest accepts these flags, which override
// the fields they name:
//
//	-dst.seed=N        the first schedule's seed (alone: run that schedule only)
//	-dst.iters=N       schedules per test (default 1000)
//	-dst.time=D        time budget per test (without -dst.iters, the only bound)
//	-dst.strategy=S    random, pct, pos, surw, portfolio, hunt or bounded
//	-dst.depth=N       PCT depth (default 3)
//	-dst.preemptions=K bounded: the most preemptions a schedule may have (default 2)
//	-dst.pctsteps=N    PCT change-point range
//	-dst.maxsteps=N    step bound per run (default 2000000; a hundredth is the livelock window)
//	-dst.ignoretop=F   leak check: ignore goroutines whose top function is F (comma-separated list)
//	-dst.ignoreany=F   leak check: ignore goroutines with F anywhere on their stack (comma-separated)
//	-dst.watchdog=D    watchdog limit (default 5s)
//	-dst.faults=L      fire fault points: name=p or name=p:bound, comma-separated
//	                   (net.delay=0.2:20ms,net.partition=0.01:5s)
//	-dst.replay=H      replay a recording given by its handle
//	-dst.trace=F       replay the trace file F and report any divergence
//	-dst.break=N       with -dst.trace: stop a debugger at step N (dstreplay debug)
//	-dst.dir=D         save failing traces under D (default testdata/dst; off)
//	-dst.shrink=false  report failures as found, without shrinking
//	-dst.input=F       run the input file F a hunt saved (a crash, a corpus entry)
//	-dst.crashtrace=F  with -dst.input: write the trace to F event by event (it survives a crash)
//	-dst.fuzzinput=F   run the bytes of F as a fuzz target's input (a libFuzzer crash; schedtest.Fuzz)
//	-dst.corpus=D      hunt: keep the corpus in D
//	-dst.keepgoing     hunt: save every distinct failure and keep hunting
//	-dst.worker=N      hunt: report progress as worker N of dstreplay hunt
//	-dst.v             log every schedule
//	-dst.prune         delete the saved failures that no longer fail, and what killed saves left
//
// A flag given a value out of its range (a negative count or duration),
// or two flags that each name the schedule to run, fail the test before
// anything runs, its saved failures included.
type Options struct {
	// Iterations is how many schedules Test explores (-dst.iters).
	// Default 1000, or 1 when a seed or a recording is given by flag.
	Iterations int
	// Time bounds the exploration by wall-clock time (-dst.time); Test stops
	// at whichever of Iterations and Time comes first. A positive -dst.time
	// given without -dst.iters is the only bound (unless a flag names the
	// one schedule to run). Default: no bound. Test explores for at most a
	// quarter of the time go test's -timeout leaves the test binary when
	// the test begins (after its saved failures are replayed), unless Time
	// is given and leaves that quarter for the rest, and notes when it
	// stopped there, so that a slow test does not end the binary and the
	// tests after it (-timeout 0: no such bound).
	Time time.Duration
	// Seed is the first schedule's seed (-dst.seed); the following schedules'
	// seeds are derived from it. Default: a random seed, printed on failure.
	Seed uint64
	// Strategy is "random", "pct" (Burckhardt et al.'s probabilistic
	// concurrency testing: random priorities with Depth-1 change points),
	// "pos" (partial order sampling, Yuan et al.), "surw" (the
	// selectively uniform random walk, Zhao et al.: goroutines weighted by
	// the events they have left on a few objects drawn per schedule, as
	// estimated from the schedule before; its failures reproduce from
	// their recording, not their seed),
	// "portfolio", which alternates PCT and random walk between schedules,
	// "hunt", a coverage-guided search that mutates the schedules that
	// reached new interleavings, or "bounded", a systematic search that
	// runs every schedule with at most Preemptions preemptions, one after
	// the other, as CHESS's iterative context bounding does, and says when
	// it ran them all (Result.Exhausted) (-dst.strategy). Default
	// "portfolio".
	Strategy string
	// Preemptions bounds, for the "bounded" strategy, how many times a
	// schedule may switch away from a goroutine that could have gone on
	// (-dst.preemptions). Switches where a goroutine blocks, exits or
	// yields are free. Default 2; a negative value means none.
	Preemptions int
	// Depth is PCT's bug depth d: d-1 priority change points (-dst.depth).
	// Default 3.
	Depth int
	// PCTSteps is the range PCT draws its change points from
	// (-dst.pctsteps). Default: the most steps an earlier schedule of the
	// same test took, at least 100.
	PCTSteps int
	// MaxSteps is the step bound (-dst.maxsteps): a run that reaches this
	// many scheduling points fails as a livelock if it made no progress for
	// the livelock window before it; else it is working, and its
	// exploration ends there: it goes on unexplored, each goroutine keeping
	// the turn until it blocks, yields or polls (or for 100 points), and
	// fails as StepBound only at ten times the bound. It is the last
	// resort: a run fails as a livelock as soon as its goroutines keep
	// running and yielding or polling (sched.Yield, runtime.Gosched, a
	// TryLock or CompareAndSwap that fails, a select that takes its default
	// case) for the window without progress (no goroutine blocked, was
	// woken, started or exited, or took a spin lock). The window is a hundredth of MaxSteps, at least 100000
	// and 1000 per live goroutine. Default 2000000.
	MaxSteps int
	// Timeout, when positive, is how far a run's virtual clock may advance:
	// a run whose clock reaches it fails with Timeout. Code written for
	// the virtual clock may sleep for hours in no time; code written for
	// real time that runs that long would be stopped by go test's -timeout,
	// which is what a test wrapped by dstreplay test -wrap gets. Default:
	// none.
	Timeout time.Duration
	// IgnoreTopFunction and IgnoreAnyFunction name goroutines that the leak
	// check does not report once the body has returned, as goleak's options
	// of the same names do (-dst.ignoretop, -dst.ignoreany, comma-separated):
	// a goroutine whose top function (the first frame above the
	// scheduler's) is one of IgnoreTopFunction, or that has one of
	// IgnoreAnyFunction anywhere on its stack. Names are fully qualified:
	// "example.com/cache.(*janitor).run". A run whose goroutines left
	// behind are all ignored passes; they are unwound with their deferred
	// calls. goleak.IgnoreCurrent has no counterpart: every goroutine the
	// check sees was started by the run itself (goroutines started outside
	// the scheduler are the escape check's).
	IgnoreTopFunction []string
	IgnoreAnyFunction []string
	// Watchdog is how long a managed goroutine may run without reaching a
	// scheduling point before the run fails (-dst.watchdog). Default 5s;
	// negative disables it.
	Watchdog time.Duration
	// Faults sets the probability that each named fault point fires
	// (-dst.faults=name=p,...). The network's faults are package simnet's
	// Fault* names: net.delay, net.partition, net.reset, ...
	Faults map[string]float64
	// FaultBounds bounds how long each named fault that lasts (net.delay,
	// net.partition) may last when it fires, its duration drawn up to it
	// (-dst.faults=name=p:bound). A fault not named keeps its package's
	// default bound.
	FaultBounds map[string]time.Duration
	// FaultProbability is the probability for fault names not in Faults.
	// Default 0: a fault point fires only when given a probability.
	FaultProbability float64
	// Recording replays recorded entropy instead of drawing fresh values
	// (-dst.replay takes its handle).
	Recording *entropy.Recording
	// Start is where the virtual clock starts (package vtime). Default
	// 2025-06-18T14:23:47.318204719Z (engine.DefaultStart), an ordinary
	// weekday afternoon; but when code under the scheduler read a later
	// time from the real clock outside any run (time.Now in a package's
	// init, rewritten), the default start is a millisecond after the latest
	// such reading: time never runs backwards for the program. The start is
	// recorded in saved traces.
	Start time.Time
	// Record keeps every run's events in Result.Trace (a failing run's
	// re-execution records them in any case).
	Record bool
	// Detail records source locations at every scheduling point, for
	// reports and traces. It costs about a goroutine switch per point;
	// without it, a failing schedule is re-executed with it.
	Detail bool
	// ClockFaults, when set, make virtual timers fire late and the clock
	// jump forward, with the given probabilities and bounds, drawn from the
	// entropy. Default: none.
	ClockFaults ClockFaults

	// faultFlag is -dst.faults as given, for reproduce lines.
	faultFlag string
	// crashTrace, set by -dst.crashtrace, is the file a run streams its
	// trace to as it goes.
	crashTrace string
	// namedBy is the flag that names the one schedule to run (-dst.seed,
	// -dst.replay or -dst.input), if any.
	namedBy string
	// input, set by -dst.input, is a hunt's input to run as the hunt ran
	// it: its recording, then fresh values from its seed.
	input *hunt.Input
	// fuzzInput, set by -dst.fuzzinput, is a fuzz target's input to run
	// (Fuzz); a test refuses it.
	fuzzInput []byte
	// The settings of the shrinker and of hunts that only flags give
	// (withFlags): Run and Explore read no flags and keep their zero values.
	noShrink  bool   // -dst.shrink=false
	corpus    string // -dst.corpus
	isWorker  bool   // -dst.worker: this process is a worker of dstreplay hunt,
	worker    int    // this one
	keepGoing bool   // -dst.keepgoing
	// startMoved: the clock starts after a real time the program read
	// outside a run, not at the given or default Start (engine.ClockStart).
	startMoved bool
	// stopSequential: Test stops exploring a test that never starts a
	// goroutine after sequentialRuns schedules; Explore runs them all.
	stopSequential bool
	// stopBy, when set, is when Test stops exploring, so that go test's
	// -timeout does not end the test binary (deadlineShare).
	stopBy time.Time
	// timeLeft is how long the test binary had left when Test began.
	timeLeft time.Duration
	// testsAfter is how many top-level tests go test runs after this one.
	testsAfter int
}

// ClockFaults make the virtual clock misbehave within bounds.
type ClockFaults struct {
	// LateProbability is the probability that a timer fires late, by up to
	// MaxLate.
	LateProbability float64
	MaxLate         time.Duration
	// JumpProbability is the probability that, when the clock advances to
	// the next timer, it jumps further, by up to MaxJump.
	JumpProbability float64
	MaxJump         time.Duration
	// BusyProbability is the probability, at a scheduling point while a
	// timer is pending, that the clock advances to it though goroutines
	// could still run: time passes while they compute, as it does outside
	// the scheduler. Without it the clock moves only when every goroutine
	// is blocked, and a goroutine that spins (polls, or loops with a
	// default case) keeps every timer from firing.
	BusyProbability float64
}

const (
	defaultIterations = 1000
	defaultWatchdog   = 5 * time.Second
)

var flags struct {
	seed        uint64
	iters       int
	time        time.Duration
	strategy    string
	depth       int
	pctSteps    int
	preemptions int
	maxSteps    int
	watchdog    time.Duration
	replay      string
	trace       string
	brk         int
	dir         string
	verbose     bool
	prune       bool
	// Hunting (dstreplay hunt).
	corpus     string
	worker     int
	keepGoing  bool
	input      string
	fuzzInput  string
	crashTrace string
	shrink     bool
	faults     string
	// The leak check's ignore lists (comma-separated).
	ignoreTop, ignoreAny string
}

func init() {
	flag.Uint64Var(&flags.seed, "dst.seed", 0, "sched: seed of the first schedule to run (reproduces a failure)")
	flag.IntVar(&flags.iters, "dst.iters", 0, "sched: number of schedules to explore per test (default 1000)")
	flag.DurationVar(&flags.time, "dst.time", 0, "sched: time budget per test; without -dst.iters it is the only bound")
	flag.StringVar(&flags.strategy, "dst.strategy", "", "sched: exploration strategy: random, pct, pos, surw, portfolio, hunt or bounded")
	flag.IntVar(&flags.depth, "dst.depth", 0, "sched: PCT depth (default 3)")
	flag.IntVar(&flags.preemptions, "dst.preemptions", 0, "sched: bounded: the most preemptions of a schedule (default 2)")
	flag.IntVar(&flags.pctSteps, "dst.pctsteps", 0, "sched: PCT change-point range in steps")
	flag.IntVar(&flags.maxSteps, "dst.maxsteps", 0, "sched: step bound per run in scheduling points (default 2000000); the livelock window is a hundredth of it")
	flag.StringVar(&flags.ignoreTop, "dst.ignoretop", "", "sched: leak check: ignore goroutines whose top function is one of these (comma-separated, fully qualified), as goleak.IgnoreTopFunction")
	flag.StringVar(&flags.ignoreAny, "dst.ignoreany", "", "sched: leak check: ignore goroutines with one of these functions anywhere on their stack (comma-separated), as goleak.IgnoreAnyFunction")
	flag.DurationVar(&flags.watchdog, "dst.watchdog", 0, "sched: how long a goroutine may run without a scheduling point (default 5s; negative: no watchdog)")
	flag.StringVar(&flags.replay, "dst.replay", "", "sched: replay a recording given by its handle")
	flag.StringVar(&flags.trace, "dst.trace", "", "sched: replay the trace file `path` and report any divergence")
	flag.IntVar(&flags.brk, "dst.break", 0, "sched: with -dst.trace, stop a debugger at step `n` of the replay (dstreplay debug; the watchdog is off)")
	flag.StringVar(&flags.dir, "dst.dir", "", "sched: where failing tests save their traces (default testdata/dst, or $DST_DIR; off to disable)")
	flag.BoolVar(&flags.verbose, "dst.v", false, "sched: log every schedule")
	flag.BoolVar(&flags.prune, "dst.prune", false, "sched: delete the saved failures that no longer fail, and the temporary files of interrupted saves")
	flag.StringVar(&flags.corpus, "dst.corpus", "", "sched: hunt: keep the corpus in `dir` (default: in memory)")
	flag.IntVar(&flags.worker, "dst.worker", -1, "sched: hunt: this process is worker `n` of dstreplay hunt: report progress on stdout")
	flag.BoolVar(&flags.keepGoing, "dst.keepgoing", false, "sched: hunt: save every distinct failure and keep hunting")
	flag.StringVar(&flags.input, "dst.input", "", "sched: run the input `file` saved by a hunt (a crash, or a corpus entry)")
	flag.StringVar(&flags.fuzzInput, "dst.fuzzinput", "", "sched: run the bytes of `file` as the input of a fuzz target made with schedtest.Fuzz (a crash that libFuzzer, OSS-Fuzz or ClusterFuzzLite wrote)")
	flag.StringVar(&flags.crashTrace, "dst.crashtrace", "", "sched: with -dst.input, write the run's trace to `file` event by event, so that a run that kills its process leaves its trace up to the crash")
	flag.StringVar(&flags.faults, "dst.faults", "", "sched: fault points to fire, as `name=p[:bound],...`: each fires with probability p, and one that lasts (net.delay, net.partition, net.clog, node.crash's downtime) lasts up to bound (a duration)")
	flag.BoolVar(&flags.shrink, "dst.shrink", true, "sched: shrink a failing schedule before reporting it")
}

// withFlags returns o with the fields named by flags set on the command line
// replaced by the flags' values. Every -dst.* flag given is checked first,
// whatever the test then does (replay a trace, its saved failures, or
// explore): an error names each flag that is wrong, and its value.
func (o Options) withFlags() (Options, error) {
	if !flag.Parsed() {
		return o, nil
	}
	var errs []error
	var named []string // the flags that name the one schedule to run
	flag.Visit(func(f *flag.Flag) {
		if err := checkFlag(f); err != nil {
			v := f.Value.String()
			if f.Name == "dst.replay" && len(v) > 40 {
				v = v[:32] + "..." // a handle, too long to read
			}
			errs = append(errs, fmt.Errorf("sched: -%s=%s: %w", f.Name, v, err))
		}
		switch f.Name {
		case "dst.seed", "dst.replay", "dst.input", "dst.trace", "dst.fuzzinput":
			named = append(named, "-"+f.Name)
		}
	})
	if len(named) > 1 {
		errs = append(errs, fmt.Errorf("sched: %s and %s each name the schedule to run: give one",
			strings.Join(named[:len(named)-1], ", "), named[len(named)-1]))
	}
	if len(errs) > 0 {
		return o, errors.Join(errs...)
	}
	o.noShrink, o.corpus, o.keepGoing = !flags.shrink, flags.corpus, flags.keepGoing
	o.isWorker, o.worker = flags.worker >= 0, flags.worker
	var err error
	seedSet, itersSet, timeSet := false, false, false
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "dst.seed":
			o.Seed, seedSet = flags.seed, true
			o.namedBy = "-dst.seed"
		case "dst.iters":
			o.Iterations, itersSet = flags.iters, true
		case "dst.time":
			o.Time, timeSet = flags.time, true
		case "dst.strategy":
			o.Strategy = flags.strategy
		case "dst.depth":
			o.Depth = flags.depth
		case "dst.preemptions":
			o.Preemptions = flags.preemptions
			if o.Preemptions == 0 {
				o.Preemptions = -1 // none, as a flag says it
			}
		case "dst.pctsteps":
			o.PCTSteps = flags.pctSteps
		case "dst.maxsteps":
			o.MaxSteps = flags.maxSteps
		case "dst.watchdog":
			o.Watchdog = flags.watchdog
		case "dst.ignoretop":
			o.IgnoreTopFunction = append(o.IgnoreTopFunction, funcList(flags.ignoreTop)...)
		case "dst.ignoreany":
			o.IgnoreAnyFunction = append(o.IgnoreAnyFunction, funcList(flags.ignoreAny)...)
		case "dst.input":
			in, e := hunt.ReadInput(flags.input)
			if e != nil {
				err = fmt.Errorf("sched: -dst.input=%s: %w", flags.input, e)
			}
			o.Recording, o.Seed, o.Strategy, o.Depth, o.PCTSteps, seedSet = in.Recording, in.Seed, in.Strategy.String(), in.Depth, in.PCTSteps, true
			o.input = &in
			o.namedBy = "-dst.input"
			if o.Depth == 0 {
				o.Depth = schedule.DefaultDepth
			}
		case "dst.fuzzinput":
			o.fuzzInput, err = readFuzzInput(flags.fuzzInput)
			o.namedBy = "-dst.fuzzinput"
		case "dst.crashtrace":
			o.crashTrace = flags.crashTrace
		case "dst.faults":
			// checkFlag parsed it.
			ps, bs, _ := engine.ParseFaults(flags.faults)
			o.Faults, o.FaultBounds = merged(o.Faults, ps), merged(o.FaultBounds, bs)
			o.faultFlag = flags.faults
		case "dst.replay":
			// checkFlag parsed it.
			o.Recording, _ = entropy.ParseHandle(flags.replay)
			seedSet = true
			o.namedBy = "-dst.replay"
		}
	})
	switch {
	case seedSet && !itersSet:
		o.Iterations = 1 // a reproduce line runs the one schedule it names
	case timeSet && !itersSet && flags.time > 0:
		o.Iterations = math.MaxInt // a time budget given alone bounds the exploration
	}
	return o, err
}

// checkFlag checks the value of the -dst.* flag f, given on the command
// line, alone and against the others it needs.
func checkFlag(f *flag.Flag) error {
	negative := func(n int64, zero string) error {
		if n < 0 {
			return fmt.Errorf("must not be negative (0 is %s)", zero)
		}
		return nil
	}
	switch f.Name {
	case "dst.iters":
		return negative(int64(flags.iters), fmt.Sprintf("the default, %d", defaultIterations))
	case "dst.time":
		return negative(int64(flags.time), "no time budget")
	case "dst.strategy":
		if !validStrategy(flags.strategy) {
			return fmt.Errorf("unknown strategy %q: want random, pct, pos, surw, portfolio, hunt or bounded", flags.strategy)
		}
	case "dst.depth":
		return negative(int64(flags.depth), fmt.Sprintf("the default, %d", schedule.DefaultDepth))
	case "dst.pctsteps":
		return negative(int64(flags.pctSteps), "the default, the most steps of the earlier schedules")
	case "dst.maxsteps":
		return negative(int64(flags.maxSteps), fmt.Sprintf("the default, %d", engine.DefaultMaxSteps))
	case "dst.worker":
		if flags.worker < 0 {
			return errors.New("want the worker's number, from 0")
		}
	case "dst.replay":
		if _, err := entropy.ParseHandle(flags.replay); err != nil {
			return err
		}
	case "dst.trace":
		fi, err := os.Stat(flags.trace)
		switch {
		case flags.trace == "":
			return errors.New("want the trace file to replay")
		case err != nil:
			return err
		case !fi.Mode().IsRegular():
			return errors.New("not a regular file")
		}
	case "dst.faults":
		_, _, err := engine.ParseFaults(flags.faults)
		return err
	case "dst.input":
		if flags.input == "" {
			return errors.New("want the input file to run")
		}
	case "dst.fuzzinput":
		if flags.fuzzInput == "" {
			return errors.New("want the fuzz input file to run")
		}
	case "dst.break":
		if flags.trace == "" || flags.brk < 1 {
			return errors.New("want a step (from 1) of the trace given by -dst.trace")
		}
	case "dst.crashtrace":
		if flags.input == "" {
			return errors.New("want the input to run, with -dst.input")
		}
	}
	return nil
}

// withDefaults fills zero fields and validates the rest.
func (o Options) withDefaults() (Options, error) {
	if o.Iterations == 0 {
		o.Iterations = defaultIterations
		if o.Time > 0 {
			o.Iterations = math.MaxInt // a time budget alone bounds the exploration
		}
	}
	if o.Strategy == "" {
		o.Strategy = "portfolio"
	}
	if o.Depth == 0 {
		o.Depth = schedule.DefaultDepth
	}
	if o.Preemptions == 0 {
		o.Preemptions = defaultPreemptions
	}
	if o.Watchdog == 0 {
		o.Watchdog = defaultWatchdog
	}
	if o.MaxSteps == 0 {
		o.MaxSteps = engine.DefaultMaxSteps
	}
	switch {
	case o.Iterations < 0:
		return o, fmt.Errorf("sched: Iterations is %d, must be positive", o.Iterations)
	case o.Time < 0:
		return o, fmt.Errorf("sched: Time is %v, must not be negative (0 is no time budget)", o.Time)
	case !validStrategy(o.Strategy):
		return o, fmt.Errorf("sched: unknown strategy %q: want random, pct, pos, surw, portfolio, hunt or bounded", o.Strategy)
	case o.Depth < 1:
		return o, fmt.Errorf("sched: Depth is %d, must be at least 1", o.Depth)
	case o.MaxSteps < 0:
		return o, fmt.Errorf("sched: MaxSteps is %d, must be positive", o.MaxSteps)
	case o.Timeout < 0:
		return o, fmt.Errorf("sched: Timeout is %v, must not be negative (0 is none)", o.Timeout)
	case o.PCTSteps < 0:
		return o, fmt.Errorf("sched: PCTSteps is %d, must be positive", o.PCTSteps)
	case o.FaultProbability < 0 || o.FaultProbability > 1:
		return o, fmt.Errorf("sched: FaultProbability is %v, must be in [0, 1]", o.FaultProbability)
	}
	if f := o.ClockFaults; f.LateProbability < 0 || f.LateProbability > 1 || f.JumpProbability < 0 || f.JumpProbability > 1 || f.BusyProbability < 0 || f.BusyProbability > 1 || f.MaxLate < 0 || f.MaxJump < 0 {
		return o, fmt.Errorf("sched: ClockFaults %+v: probabilities must be in [0, 1] and bounds positive", f)
	}
	for name, p := range o.Faults {
		if p < 0 || p > 1 {
			return o, fmt.Errorf("sched: probability of fault %q is %v, must be in [0, 1]", name, p)
		}
	}
	for name, d := range o.FaultBounds {
		if d <= 0 {
			return o, fmt.Errorf("sched: bound of fault %q is %v, must be positive", name, d)
		}
	}
	if o.Start.IsZero() {
		o = o.startAfterReadings() // a start given is kept as given
	}
	return o, nil
}

// startAfterReadings moves the clock's start past the real time the
// program has read outside a run (package init, TestMain), once per
// exploration, so that every schedule of it starts at the same instant and
// time never runs backwards for the program (engine.ClockStart). A start
// that Options give is kept; a trace's is moved, so that its replay in
// another process that read the clock later starts as far after that as
// the recording did.
func (o Options) startAfterReadings() Options {
	if s := engine.ClockStart(o.Start); !s.Equal(o.Start) {
		o.Start, o.startMoved = s, true
	}
	return o
}

// funcList splits a flag's comma-separated list of function names.
func funcList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// validStrategy reports whether name is a strategy of one schedule, or
// "portfolio", "hunt" or "bounded", which pick one per schedule.
func validStrategy(name string) bool {
	if name == "portfolio" || name == "hunt" || name == "bounded" {
		return true
	}
	_, err := schedule.ParseStrategy(name)
	return err == nil
}

// maxFuzzInput bounds what -dst.fuzzinput reads: libFuzzer's inputs are
// 4 KiB by default (-max_len), and a schedule's bytes past what its draws
// take are not read.
const maxFuzzInput = 1 << 20

// readFuzzInput reads the fuzz input file path (-dst.fuzzinput).
func readFuzzInput(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sched: -dst.fuzzinput: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFuzzInput+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("sched: -dst.fuzzinput=%s: %w", path, err)
	case len(b) > maxFuzzInput:
		return nil, fmt.Errorf("sched: -dst.fuzzinput=%s: larger than %d bytes: not a fuzz input", path, maxFuzzInput)
	}
	return append([]byte{}, b...), nil
}

// merged is base with over's entries set over it: base itself when over
// is empty, else a copy.
func merged[V any](base, over map[string]V) map[string]V {
	if len(over) == 0 {
		return base
	}
	m := maps.Clone(base)
	if m == nil {
		m = map[string]V{}
	}
	maps.Copy(m, over)
	return m
}
