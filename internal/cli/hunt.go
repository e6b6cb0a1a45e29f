package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/dstgo/dst/fuzzloop"
	"github.com/dstgo/dst/internal/gotest"
	"github.com/dstgo/dst/internal/huntwire"
	"github.com/dstgo/dst/trace"
)

// dstreplay hunt coordinates a race hunt: it builds the test binaries,
// runs them as worker processes with -dst.strategy=hunt, shares the workers
// out among the tests, and gathers what the workers report on stdout.

const huntHelp = `Hunt searches the tests that call schedtest.Test for failing schedules, with a
coverage-guided fuzz loop in each of -j worker processes, until its budget is spent:
-time of wall-clock time, or -execs executions across all workers, whichever comes first
(-time 1m when neither is given). Packages are given as to go test (default .).

It builds each package's test binary (go test -c, with -race if asked), lists the tests
that -run selects, and runs the binary in the package's directory as the workers:

	pkg.test -test.run '^TestX$' -dst.strategy=hunt -dst.time=... -dst.corpus=... -dst.worker=N -dst.keepgoing

With one test, every worker hunts it for the whole budget. With several, the workers take
turns in batches of -batch: every test has one batch first, then a free worker's next
test is drawn at random, favouring the tests whose last batches found new coverage and
those that have run few executions so far; every test keeps a minimum chance, so none
starves. A test that reports no progress
(it does not call schedtest.Test) is run once and then left out.

Each failure is shrunk by the worker that found it and saved, under each package's
testdata/dst or under -dir, and printed with the commands that open it (dstreplay show,
dstreplay exec). A worker process that dies without finishing (a fatal runtime error, a
kill) is a failure too: the input it was running is saved beside the failures as
crash-*.input, with its last output in a .txt, and the worker is restarted after a pause
that grows with each crash in a row; a test that crashes 5 times in a row without
progress is given up.

The corpus, the schedules worth mutating further, is kept per test under -corpus
(<dir>/<import path>/<TestName>) and survives the hunt: a later hunt of the same test
resumes from it, and its workers share it while they run.

Once a second a progress line goes to stderr. At the end (the budget spent, or SIGINT or
SIGTERM, which are passed on to the workers) a summary goes to stdout: per test, the
executions, corpus, coverage and failures, and for each failure its kind, message, the
sizes of its schedule before and after shrinking, and how to open it. Hunt exits with 1
when it found a failure, 0 when it found none, and 2 when the packages do not build, no
test matches, or no test calls schedtest.Test.`

// recoverCrash saves the input a dead worker was running; a variable so
// that tests can stand in for it.
var recoverCrash = fuzzloop.RecoverCrash

// Limits of the coordinator.
const (
	maxTail      = 64 << 10               // the output kept of each worker process
	maxLine      = 1 << 20                // longer lines are cut
	minBatch     = 250 * time.Millisecond // no worker is started for less
	maxCrashes   = 5                      // crashes of a test in a row before it is given up
	overrunGrace = 30 * time.Second       // how long a worker may run past its time
	maxBackoff   = 8 * time.Second        // the longest wait to restart a crashing test
	stopGrace    = 3 * time.Second        // from the interrupt to the kill
	crashLines   = 20                     // lines of a dead worker's output shown
)

// huntConfig is the command's flags.
type huntConfig struct {
	run     string
	budget  time.Duration // 0: no time limit
	execs   int64         // 0: no limit on executions
	jobs    int
	race    bool
	corpus  string // absolute
	dir     string // absolute; "": each package's default
	batch   time.Duration
	verbose bool
}

// check fills in the defaults and validates c.
func (c *huntConfig) check() error {
	switch {
	case c.jobs < 1:
		return fmt.Errorf("-j %d: want at least 1 worker process", c.jobs)
	case c.budget < 0:
		return fmt.Errorf("-time %v: want a positive duration", c.budget)
	case c.execs < 0:
		return fmt.Errorf("-execs %d: want a positive number of executions", c.execs)
	case c.batch < minBatch:
		return fmt.Errorf("-batch %v: want at least %v", c.batch, minBatch)
	}
	if c.run == "" {
		c.run = "."
	}
	if _, err := regexp.Compile(c.run); err != nil {
		return fmt.Errorf("-run %q: %v", c.run, err)
	}
	if c.budget == 0 && c.execs == 0 {
		c.budget = time.Minute
	}
	if c.corpus == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("no default corpus directory (%v): give one with -corpus", err)
		}
		c.corpus = filepath.Join(cache, "dst", "corpus")
	}
	var err error
	if c.corpus, err = filepath.Abs(c.corpus); err != nil {
		return err
	}
	if c.dir != "" {
		if c.dir, err = filepath.Abs(c.dir); err != nil {
			return err
		}
	}
	return nil
}

func runHunt(e *env, args []string) int {
	c := lookup("hunt")
	fs := c.flags(e)
	var cfg huntConfig
	fs.StringVar(&cfg.run, "run", "", "hunt only the tests whose names match `regexp` (default: all)")
	fs.DurationVar(&cfg.budget, "time", 0, "stop after this wall-clock `duration` (default 1m when -execs is not given)")
	fs.Int64Var(&cfg.execs, "execs", 0, "stop after `n` executions across all workers")
	fs.IntVar(&cfg.jobs, "j", runtime.NumCPU(), "run `n` worker processes")
	fs.BoolVar(&cfg.race, "race", false, "build the tests with -race")
	fs.StringVar(&cfg.corpus, "corpus", "", "keep the corpus under `dir` (default: dst/corpus in the user cache directory)")
	fs.StringVar(&cfg.dir, "dir", "", "save failures under `dir` (default: each package's testdata/dst)")
	fs.DurationVar(&cfg.batch, "batch", 2*time.Second, "with several tests, the `length` of a worker's turn at one test")
	fs.BoolVar(&cfg.verbose, "v", false, "show the workers' other output, and notes on the tests")
	code := ExitOK
	if !c.parse(fs, args, anyArgs, &code) {
		return code
	}
	if err := cfg.check(); err != nil {
		fmt.Fprintf(e.stderr, "dstreplay hunt: %v\n", err)
		return ExitUsage
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	// From here, SIGINT and SIGTERM end the hunt rather than the command;
	// one that comes while the binaries build is seen when the hunt starts.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	tmp, err := os.MkdirTemp("", "dstreplay-hunt-")
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay hunt: %v\n", err)
		return ExitUsage
	}
	defer os.RemoveAll(tmp)
	tests, err := buildTests(e, &cfg, patterns, tmp)
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay hunt: %v\n", err)
		return ExitUsage
	}
	if len(tests) == 0 {
		fmt.Fprintf(e.stderr, "dstreplay hunt: no test in %s matches -run %q\n", strings.Join(patterns, " "), cfg.run)
		return ExitUsage
	}
	for _, t := range tests {
		if err := os.MkdirAll(t.corpusDir, 0o755); err != nil {
			fmt.Fprintf(e.stderr, "dstreplay hunt: %v\n", err)
			return ExitUsage
		}
	}
	return newHunter(cfg, tests, e.stdout, e.stderr).run(sigs)
}

// huntPackage is a package with tests to hunt, and its test binary.
type huntPackage struct {
	path, dir, bin string
}

// buildTests lists the packages, builds their test binaries into tmp and
// lists the tests that cfg.run selects.
func buildTests(e *env, cfg *huntConfig, patterns []string, tmp string) ([]*huntTest, error) {
	out, err := goCommand("go list "+strings.Join(patterns, " "), append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}"}, patterns...), e.stderr)
	if err != nil {
		return nil, err
	}
	var pkgs []*huntPackage
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) != 4 || f[2] == "0" && f[3] == "0" {
			continue // no test files
		}
		pkgs = append(pkgs, &huntPackage{path: f[0], dir: f[1], bin: filepath.Join(tmp, fmt.Sprintf("%d.test", len(pkgs)))})
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no test files in %s", strings.Join(patterns, " "))
	}
	if cfg.verbose {
		fmt.Fprintf(e.stderr, "dstreplay hunt: building %d test binaries\n", len(pkgs))
	}
	errs := make([]error, len(pkgs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, p := range pkgs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			argv := []string{"test", "-c", "-o", p.bin}
			if cfg.race {
				argv = append(argv, "-race")
			}
			_, errs[i] = goCommand("building the tests of "+p.path, append(argv, p.path), nil)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var tests []*huntTest
	var noHunt []string
	for _, p := range pkgs {
		// -dst.keepgoing: a binary without sched, or with a sched that
		// cannot hunt, rejects it.
		cmd := exec.Command(p.bin, "-test.list", cfg.run, "-dst.keepgoing")
		cmd.Dir = p.dir
		out, err := cmd.CombinedOutput()
		if err != nil && bytes.Contains(out, []byte("flag provided but not defined: -dst.")) {
			noHunt = append(noHunt, p.path)
			if cfg.verbose {
				fmt.Fprintf(e.stderr, "dstreplay hunt: %s: its test binary does not take the hunt's -dst flags (no sched, or an old one); left out\n", p.path)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing the tests of %s: %v\n%s", p.path, err, out)
		}
		for line := range strings.Lines(string(out)) {
			name := strings.TrimSpace(line)
			if !testName.MatchString(name) {
				continue // a benchmark, example or fuzz test, or other output
			}
			tests = append(tests, &huntTest{
				pkg:       p,
				name:      name,
				corpusDir: filepath.Join(cfg.corpus, filepath.FromSlash(p.path), name),
				failDir:   failDir(cfg.dir, p.dir),
				sinceNew:  neverNew,
			})
		}
	}
	if len(noHunt) == len(pkgs) {
		return nil, fmt.Errorf("the test binaries of %s do not take the hunt's -dst flags: their tests do not use sched, or a sched that cannot hunt", strings.Join(noHunt, ", "))
	}
	if len(pkgs) > 1 {
		for _, t := range tests {
			t.label = path.Base(t.pkg.path) + "." + t.name
		}
	}
	return tests, nil
}

var testName = regexp.MustCompile(`^Test[\p{L}\p{N}_]*$`)

// goCommand runs the go command, and returns its output. Its stderr goes
// to warn when it succeeds, and into the error, after what, when it fails.
func goCommand(what string, argv []string, warn io.Writer) ([]byte, error) {
	cmd := exec.Command("go", argv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", what, err, bytes.TrimRight(stderr.Bytes(), "\n"))
	}
	if warn != nil {
		warn.Write(stderr.Bytes())
	}
	return out, nil
}

// failDir is where the workers of a test in pkgDir save failures: -dir,
// else what the worker takes by default ($DST_DIR, else testdata/dst).
func failDir(dir, pkgDir string) string {
	if dir != "" {
		return dir
	}
	if d := os.Getenv("DST_DIR"); d != "" && d != "off" {
		if filepath.IsAbs(d) {
			return d
		}
		return filepath.Join(pkgDir, d)
	}
	return filepath.Join(pkgDir, "testdata", "dst")
}

// huntTest is a test being hunted, and what its workers reported.
type huntTest struct {
	pkg       *huntPackage
	name      string
	label     string // the name in the progress and summary; name when empty
	corpusDir string
	failDir   string

	execs             int64     // over all its processes
	corpusSize, cover int       // the latest report's
	batches           int       // processes that ended
	sinceNew          int       // batches since the last one that found new coverage
	sched             bool      // it reported progress: it calls schedtest.Test
	running           int       // its worker processes
	crashes           int       // in a row, without progress in between
	notBefore         time.Time // after a crash, when to start it again
	failures          int       // distinct
	dropped           string
}

func (t *huntTest) String() string {
	if t.label != "" {
		return t.label
	}
	return t.name
}

// neverNew is sinceNew for a test that has not found new coverage.
const neverNew = 64

// Weights of tests when picking the next one to run (see testWeight).
const (
	weightFresh = 16 // a test that has not run yet
	weightFloor = 1  // what every test keeps
	weightNew   = 8  // the last batch found new coverage; halved with every batch since
	weightFew   = 4  // at most, for having run few executions compared with the others
)

// pickStats is what picking a test looks at.
type pickStats struct {
	execs    int64
	batches  int
	sinceNew int
}

// testWeight is a test's chance of being picked, relative to the others'.
// mean is the mean of all candidates' executions.
func testWeight(s pickStats, mean float64) int {
	if s.batches == 0 {
		return weightFresh
	}
	w := weightFloor
	if s.sinceNew < 8 {
		w += weightNew >> s.sinceNew
	}
	few := 1.0 // all at zero executions: as few as any
	if d := float64(s.execs) + mean; d > 0 {
		few = mean / d
	}
	return w + int(weightFew*few+0.5)
}

// intN is a source of random numbers in [0, n).
type intN interface{ IntN(n int) int }

// pickTest draws the index of the test for the next batch, each with a
// chance proportional to its testWeight; but while some tests have not run,
// only those, so that every test runs once before any runs twice.
func pickTest(stats []pickStats, r intN) int {
	var mean float64
	fresh := false
	for _, s := range stats {
		mean += float64(s.execs)
		fresh = fresh || s.batches == 0
	}
	mean /= float64(len(stats))
	weights := make([]int, len(stats))
	total := 0
	for i, s := range stats {
		if !fresh || s.batches == 0 {
			weights[i] = testWeight(s, mean)
		}
		total += weights[i]
	}
	n := r.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(stats) - 1
}

// proc is one run of a worker process.
type proc struct {
	slot  int
	test  *huntTest
	cmd   *exec.Cmd
	out   *tail
	iters int64     // -dst.iters; 0 when not given
	begin time.Time // when it started
	until time.Time // when its time is up; zero for none

	sawStatus, final bool
	execs, new       int64 // the latest report's

	stopping bool      // it was told to stop: its end is no crash
	killAt   time.Time // when to kill it if it has not stopped
}

// huntEvent is what a worker's goroutine tells the coordinator.
type huntEvent struct {
	p       *proc
	status  *huntwire.Status
	failure *huntwire.Failure
	line    string // other output, with -v
	bad     error  // a malformed protocol line
	exited  bool
	err     error // how it exited
}

// finding is a distinct failure: of one test, with one signature (or,
// for a crash, one message). The smallest of its schedules is the one
// shown, and the only one whose files are kept.
type finding struct {
	test          *huntTest
	kind, message string
	signature     string // the worker's, or the message
	input         string // the schedule's input file, beside its trace
	worker        int
	at            time.Duration // into the hunt
	count         int
	trace         string
	before, after fuzzloop.Size
	sized         bool
	// A crash: how the process ended, its last output, and the input it
	// was running.
	exit    string
	output  []string
	saved   string
	saveErr error
	// Its trace up to the crash (in trace), or why there is none.
	traceErr error
}

type hunter struct {
	cfg            huntConfig
	tests          []*huntTest
	stdout, stderr io.Writer
	// command makes the worker process of t.
	command func(t *huntTest, args []string) *exec.Cmd
	rng     intN
	backoff time.Duration   // the wait to restart a test after its first crash in a row; doubled after each
	before  map[string]bool // saved failures there before the hunt, by absolute path

	events      chan huntEvent
	slots       []*proc // nil: free
	running     int
	begin       time.Time
	deadline    time.Time // zero: none
	stopping    bool
	interrupted os.Signal
	execs       int64 // reported by all processes
	doneExecs   int64 // reported by processes that have ended
	findings    []*finding
	lastTick    time.Time
	lastExecs   int64
}

func newHunter(cfg huntConfig, tests []*huntTest, stdout, stderr io.Writer) *hunter {
	return &hunter{
		cfg: cfg, tests: tests, stdout: stdout, stderr: stderr,
		command: func(t *huntTest, args []string) *exec.Cmd {
			cmd := exec.Command(t.pkg.bin, args...)
			cmd.Dir = t.pkg.dir
			return cmd
		},
		rng:     rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		backoff: 250 * time.Millisecond,
		events:  make(chan huntEvent, 64),
		slots:   make([]*proc, cfg.jobs),
	}
}

// run hunts until the budget is spent or a signal comes from sigs, prints
// the summary and returns the exit code.
func (h *hunter) run(sigs <-chan os.Signal) int {
	h.before = savedBefore(h.tests)
	h.begin = time.Now()
	h.lastTick = h.begin
	if h.cfg.budget > 0 {
		h.deadline = h.begin.Add(h.cfg.budget)
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		now := time.Now()
		h.fill(now)
		var wake <-chan time.Time
		if d := h.nextWake(now); d > 0 {
			wake = time.After(d)
		} else if h.running == 0 {
			break
		}
		select {
		case ev := <-h.events:
			h.handle(ev)
		case <-tick.C:
			now := time.Now()
			h.progress(now)
			h.police(now)
		case sig := <-sigs:
			h.stop(sig)
		case <-wake:
		}
	}
	return h.summary(time.Now())
}

// nextWake is how long until a test waiting after a crash may start again
// within the budget; 0 if none is waiting.
func (h *hunter) nextWake(now time.Time) time.Duration {
	var d time.Duration
	for _, t := range h.tests {
		if h.stopping || t.dropped != "" || !t.notBefore.After(now) {
			continue
		}
		if !h.deadline.IsZero() && !t.notBefore.Before(h.deadline) {
			continue
		}
		if w := t.notBefore.Sub(now); d == 0 || w < d {
			d = w
		}
	}
	return d
}

// fill starts workers in the free slots while the budget allows.
func (h *hunter) fill(now time.Time) {
	for slot, p := range h.slots {
		if p == nil && !h.startNext(slot, now) {
			return
		}
	}
}

// startNext starts a worker in slot, and reports whether it did.
func (h *hunter) startNext(slot int, now time.Time) bool {
	if h.stopping {
		return false
	}
	var remaining time.Duration
	if !h.deadline.IsZero() {
		if remaining = h.deadline.Sub(now); remaining < minBatch {
			return false
		}
	}
	var iters int64
	if h.cfg.execs > 0 {
		// What is not yet spent, nor promised to the running workers,
		// shared among the free slots.
		left, free := h.cfg.execs-h.doneExecs, 0
		for _, p := range h.slots {
			if p != nil {
				left -= p.iters
			} else {
				free++
			}
		}
		if left <= 0 {
			return false
		}
		iters = (left + int64(free) - 1) / int64(free)
	}
	live, cands := 0, []*huntTest(nil)
	for _, t := range h.tests {
		if t.dropped != "" {
			continue
		}
		live++
		// Until a test shows that it hunts, it runs on one worker.
		if (t.sched || t.running == 0) && !now.Before(t.notBefore) {
			cands = append(cands, t)
		}
	}
	if len(cands) == 0 {
		return false
	}
	stats := make([]pickStats, len(cands))
	for i, t := range cands {
		stats[i] = pickStats{execs: t.execs, batches: t.batches, sinceNew: t.sinceNew}
	}
	t := cands[pickTest(stats, h.rng)]
	d := remaining // one test: the whole budget
	if live > 1 {
		d = h.cfg.batch
		if remaining > 0 {
			d = min(d, remaining)
		}
	}
	h.start(t, slot, d.Round(time.Millisecond), iters, now)
	return true
}

// workerArgs are the arguments of a worker process.
func workerArgs(t *huntTest, slot int, d time.Duration, iters int64, dir string) []string {
	args := []string{"-test.run=" + gotest.RunPattern(t.name), "-test.count=1", "-dst.strategy=hunt"}
	if d > 0 {
		args = append(args, "-dst.time="+d.String())
	}
	if iters > 0 {
		args = append(args, "-dst.iters="+strconv.FormatInt(iters, 10))
	}
	args = append(args, "-dst.corpus="+t.corpusDir, "-dst.worker="+strconv.Itoa(slot), "-dst.keepgoing")
	if dir != "" {
		args = append(args, "-dst.dir="+dir)
	}
	return args
}

// start runs a worker process for t in slot.
func (h *hunter) start(t *huntTest, slot int, d time.Duration, iters int64, now time.Time) {
	args := workerArgs(t, slot, d, iters, h.cfg.dir)
	cmd := h.command(t, args)
	p := &proc{slot: slot, test: t, cmd: cmd, out: &tail{}, iters: iters, begin: now}
	// The slot's last process left its input behind: were this one to die
	// before running any, that input must not be taken for its crash.
	os.Remove(fuzzloop.CurrentPath(t.corpusDir, slot))
	if d > 0 {
		p.until = now.Add(d)
	}
	if h.cfg.verbose {
		fmt.Fprintf(h.stderr, "dstreplay hunt: worker %d: %s %s\n", slot, t, strings.Join(args, " "))
	}
	stdout := &lineWriter{fn: func(l []byte) {
		st, f, err := huntwire.Parse(l)
		switch {
		case st != nil:
			h.events <- huntEvent{p: p, status: st}
		case f != nil:
			h.events <- huntEvent{p: p, failure: f}
		default:
			p.out.add(l)
			if err != nil || h.cfg.verbose {
				h.events <- huntEvent{p: p, line: string(l), bad: err}
			}
		}
	}}
	stderr := &lineWriter{fn: func(l []byte) {
		p.out.add(l)
		if h.cfg.verbose {
			h.events <- huntEvent{p: p, line: string(l)}
		}
	}}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = stopGrace // for the output of any children it leaves behind
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(h.stderr, "dstreplay hunt: %s: cannot start a worker: %v\n", t, err)
		t.dropped = "its worker did not start"
		return
	}
	h.slots[slot] = p
	h.running++
	t.running++
	go func() {
		err := cmd.Wait()
		stdout.flush()
		stderr.flush()
		h.events <- huntEvent{p: p, exited: true, err: err}
	}()
}

func (h *hunter) handle(ev huntEvent) {
	p := ev.p
	switch {
	case ev.status != nil:
		h.status(p, ev.status)
	case ev.failure != nil:
		h.failure(p, ev.failure)
	case ev.exited:
		h.exited(p, ev.err)
	case ev.bad != nil:
		fmt.Fprintf(h.stderr, "dstreplay hunt: worker %d (%s): %v: %s\n", p.slot, p.test, ev.bad, ev.line)
	default:
		fmt.Fprintf(h.stderr, "w%d %s| %s\n", p.slot, p.test, ev.line)
	}
}

func (h *hunter) status(p *proc, st *huntwire.Status) {
	t := p.test
	if p.sawStatus && st.New > p.new {
		t.crashes = 0 // progress (the first line's may be the corpus loading)
	}
	t.sched, p.sawStatus = true, true
	if d := st.Execs - p.execs; d > 0 {
		t.execs += d
		h.execs += d
	}
	p.execs = st.Execs
	t.corpusSize, t.cover = st.Corpus, st.Cover
	p.new = st.New
	p.final = p.final || st.Final
}

func (h *hunter) failure(p *proc, f *huntwire.Failure) {
	h.record(&finding{
		test: p.test, kind: f.Kind, message: f.Message, signature: f.Signature, worker: p.slot,
		trace: f.Trace, input: f.Entropy, before: f.Before, after: f.After, sized: f.After != fuzzloop.Size{},
	})
}

// record adds f to the findings, or counts it again.
func (h *hunter) record(f *finding) {
	f.at, f.count = time.Since(h.begin), 1
	if f.signature == "" {
		f.signature = f.message // a crash's, or an older worker's
	}
	for _, g := range h.findings {
		if g.test != f.test || g.kind != f.kind || g.signature != f.signature {
			continue
		}
		g.count++
		// One schedule of a failure is enough: the smaller one stays, and
		// the other's trace and input, which a worker saved, go.
		drop := f
		if f.sized && g.sized && f.after.Less(g.after) {
			drop = &finding{trace: g.trace, input: g.input}
			g.trace, g.input, g.message, g.before, g.after, g.worker = f.trace, f.input, f.message, f.before, f.after, f.worker
		}
		if drop.trace != "" && drop.trace != g.trace && f.kind != "crash" && !h.before[drop.trace] {
			os.Remove(drop.trace)
			if drop.input != "" && !h.before[drop.input] {
				os.Remove(drop.input)
			}
		}
		if h.cfg.verbose {
			fmt.Fprintf(h.stderr, "dstreplay hunt: %s (worker %d): %s again (%d times)\n", f.test, f.worker, f.kind, g.count)
		}
		return
	}
	h.findings = append(h.findings, f)
	f.test.failures++
	fmt.Fprintf(h.stderr, "dstreplay hunt: %s (worker %d, %v): %s\n", f.test, f.worker, f.at.Round(time.Second), f.headline())
	h.writeFinding(h.stderr, f, true)
}

// savedBefore lists the files in the tests' directories of saved failures
// before the hunt: a worker that finds one of those schedules again writes
// the same file, which the hunt must not remove as a duplicate.
func savedBefore(tests []*huntTest) map[string]bool {
	seen := map[string]bool{}
	for _, t := range tests {
		// Subtests save under their test's directory.
		filepath.WalkDir(filepath.Join(t.failDir, t.name), func(path string, d fs.DirEntry, err error) error {
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

func (f *finding) headline() string {
	if f.message == "" || strings.HasPrefix(f.message, f.kind) {
		return cmp.Or(f.message, f.kind)
	}
	return f.kind + ": " + f.message
}

// writeFinding writes the details of f under its headline, indented: its
// shrinking and how to open it, and a crash's output when asked.
func (h *hunter) writeFinding(w io.Writer, f *finding, output bool) {
	if f.exit != "" {
		fmt.Fprintf(w, "\tthe worker process exited: %s\n", f.exit)
		if output && len(f.output) > 0 {
			fmt.Fprintf(w, "\tits last output:\n")
			for _, l := range f.output {
				fmt.Fprintf(w, "\t\t%s\n", l)
			}
		}
	}
	if f.sized {
		b, a := f.before, f.after
		fmt.Fprintf(w, "\tshrunk: steps %d → %d, preemptions %d → %d, goroutines %d → %d, values %d → %d\n",
			b.Steps, a.Steps, b.Preemptions, a.Preemptions, b.Goroutines, a.Goroutines, b.Values, a.Values)
	}
	switch {
	case f.trace != "" && f.kind == "crash":
		fmt.Fprintf(w, "\tits trace up to the crash: dstreplay %s\n", f.trace)
	case f.traceErr != nil:
		fmt.Fprintf(w, "\tno trace: %v\n", f.traceErr)
	}
	switch {
	case f.trace != "" && f.kind != "crash":
		fmt.Fprintf(w, "\tdstreplay show %s\n\tdstreplay exec %s\n", f.trace, f.trace)
	case f.saved != "":
		fmt.Fprintf(w, "\tthe input it was running: %s\n\tgo test -count=1%s %s -run '%s' -dst.input=%s\n",
			f.saved, cond(h.cfg.race, " -race", ""), f.test.pkg.path, gotest.RunPattern(f.test.name), f.saved)
	case errors.Is(f.saveErr, fs.ErrNotExist):
		fmt.Fprintf(w, "\tit had not begun to run inputs\n")
	case f.saveErr != nil:
		fmt.Fprintf(w, "\tthe input it was running is lost: %v\n", f.saveErr)
	case f.exit == "":
		fmt.Fprintf(w, "\t(the worker could not save it)\n")
	}
}

func cond(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

func (h *hunter) exited(p *proc, err error) {
	t := p.test
	h.slots[p.slot] = nil
	h.running--
	t.running--
	h.doneExecs += p.execs
	t.batches++ // if perhaps cut short
	if p.final && p.new > 0 {
		t.sinceNew = 0
	} else {
		t.sinceNew = min(t.sinceNew+1, neverNew)
	}
	switch {
	case p.final:
		t.crashes = 0
	case p.stopping:
		// Stopped by the hunt: no crash.
	case !p.sawStatus && err == nil:
		t.dropped = "no progress reported: skipped, or no schedtest.Test"
		if h.cfg.verbose {
			fmt.Fprintf(h.stderr, "dstreplay hunt: %s reported no progress (it was skipped, or does not call schedtest.Test); left out\n", t)
		}
	default:
		h.crashed(p, err)
	}
}

// crashed handles a worker that ended before its hunt did.
func (h *hunter) crashed(p *proc, err error) {
	t := p.test
	out := p.out.bytes()
	exit := "exit status 0"
	if err != nil {
		exit = err.Error()
	}
	if !p.sawStatus {
		exit += ", before it reported any progress"
	}
	saved, saveErr := recoverCrash(t.corpusDir, p.slot, t.failDir, t.name, out)
	f := &finding{test: t, kind: "crash", message: crashMessage(out, exit), worker: p.slot,
		exit: exit, output: lastLines(out, crashLines), saved: saved, saveErr: saveErr}
	if saved != "" {
		f.trace, f.traceErr = h.traceCrash(t, saved)
	}
	h.record(f)
	if t.crashes++; t.crashes >= maxCrashes && t.dropped == "" {
		t.dropped = fmt.Sprintf("given up after %d crashes in a row", t.crashes)
		fmt.Fprintf(h.stderr, "dstreplay hunt: %s: %s\n", t, t.dropped)
	}
	// Not at once: a crash loop is not a hunt, and the other workers may
	// show progress meanwhile.
	t.notBefore = time.Now().Add(min(h.backoff<<(t.crashes-1), maxBackoff))
}

// crashTraceTimeout bounds the re-run that records a crash's trace.
const crashTraceTimeout = 30 * time.Second

// traceCrash re-runs the input a dead worker was running, in a process of
// its own that writes the trace event by event as it goes
// (-dst.crashtrace): the crash kills that process too, and leaves the trace
// up to it. The trace goes beside the input, renamed into place once the
// process is gone.
func (h *hunter) traceCrash(t *huntTest, input string) (string, error) {
	path := strings.TrimSuffix(input, ".input") + ".trace"
	tmp := filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	defer os.Remove(tmp)
	cmd := h.command(t, []string{"-test.run", gotest.RunPattern(t.name), "-test.count=1",
		"-dst.input=" + input, "-dst.crashtrace=" + tmp, "-dst.dir=off", "-dst.shrink=false"})
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

// police stops the workers that overran their time, and kills those that
// did not stop when told.
func (h *hunter) police(now time.Time) {
	for _, p := range h.slots {
		switch {
		case p == nil:
		case !p.stopping && !p.until.IsZero() && now.Sub(p.until) > overrunGrace:
			fmt.Fprintf(h.stderr, "dstreplay hunt: worker %d (%s) ran %v past its time; stopping it\n", p.slot, p.test, overrunGrace)
			h.interrupt(p, os.Interrupt, now)
		case p.stopping && !p.killAt.IsZero() && now.After(p.killAt):
			p.cmd.Process.Kill()
			p.killAt = time.Time{}
		}
	}
}

func (h *hunter) interrupt(p *proc, sig os.Signal, now time.Time) {
	p.stopping = true
	p.killAt = now.Add(stopGrace)
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.cmd.Process.Kill()
	}
}

// stop passes sig on to the workers, which are killed if they do not stop
// shortly; a second signal kills them at once.
func (h *hunter) stop(sig os.Signal) {
	now := time.Now()
	if h.stopping {
		for _, p := range h.slots {
			if p != nil {
				p.cmd.Process.Kill()
			}
		}
		return
	}
	h.stopping, h.interrupted = true, sig
	fmt.Fprintf(h.stderr, "dstreplay hunt: %v: stopping the workers\n", sig)
	for _, p := range h.slots {
		if p != nil {
			h.interrupt(p, sig, now)
		}
	}
}

// progress is what the progress line shows.
type progress struct {
	elapsed          time.Duration
	workers          int
	execs            int64
	rateNow, rateAll float64 // executions per second
	corpus, cover    int
	failures         int
	tests            []testProgress // with several tests
}

type testProgress struct {
	name     string
	execs    int64
	failures int
	dropped  bool
	running  bool // a worker runs it now
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// progressWidth is about how wide the per-test part of the progress may be.
const progressWidth = 150

// formatProgress is the progress line (two with several tests), without
// the newline.
func formatProgress(p progress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hunt %v: %d %s, %s execs (%s/s now, %s/s overall), corpus %d, cover %d, %d %s",
		p.elapsed.Round(time.Second), p.workers, plural(p.workers, "worker"), short(float64(p.execs)),
		short(p.rateNow), short(p.rateAll), p.corpus, p.cover, p.failures, plural(p.failures, "failure"))
	if len(p.tests) < 2 {
		return b.String()
	}
	b.WriteString("\n ")
	width := 0
	for i, t := range p.tests {
		part := t.name + " " + short(float64(t.execs)) + " execs"
		if t.failures > 0 {
			part += fmt.Sprintf(" %d fail", t.failures)
		}
		if t.dropped {
			part += " (out)"
		}
		if width > 0 && width+len(part) > progressWidth {
			fmt.Fprintf(&b, " (%d more)", len(p.tests)-i)
			break
		}
		if width > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + part)
		width += len(part) + 2
	}
	return b.String()
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// short formats a count compactly: 9999, 12.3k, 123k, 4.5M.
func short(v float64) string {
	if v < 10_000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	unit, s := 1e3, "k"
	switch {
	case v >= 1e9:
		unit, s = 1e9, "G"
	case v >= 1e6:
		unit, s = 1e6, "M"
	}
	x := v / unit
	if x < 100 {
		return strconv.FormatFloat(x, 'f', 1, 64) + s
	}
	return strconv.FormatFloat(x, 'f', 0, 64) + s
}

func (h *hunter) progress(now time.Time) {
	p := progress{elapsed: now.Sub(h.begin), workers: h.running, execs: h.execs, failures: len(h.findings)}
	if dt := now.Sub(h.lastTick).Seconds(); dt > 0 {
		p.rateNow = float64(h.execs-h.lastExecs) / dt
	}
	if dt := p.elapsed.Seconds(); dt > 0 {
		p.rateAll = float64(h.execs) / dt
	}
	h.lastTick, h.lastExecs = now, h.execs
	for _, t := range h.tests {
		p.corpus += t.corpusSize
		p.cover += t.cover
		if len(h.tests) > 1 {
			p.tests = append(p.tests, testProgress{name: t.String(), execs: t.execs, failures: t.failures,
				dropped: t.dropped != "", running: t.running > 0})
		}
	}
	orderProgress(p.tests)
	fmt.Fprintln(h.stderr, formatProgress(p))
}

// orderProgress puts the tests that run now first, then those that ran
// most; those given up go last.
func orderProgress(tests []testProgress) {
	slices.SortStableFunc(tests, func(a, b testProgress) int {
		if a.dropped != b.dropped {
			return cmp.Compare(boolInt(a.dropped), boolInt(b.dropped))
		}
		if a.running != b.running {
			return cmp.Compare(boolInt(b.running), boolInt(a.running))
		}
		return cmp.Compare(b.execs, a.execs)
	})
}

// summary prints the table of tests and the failures, and returns the exit
// code.
func (h *hunter) summary(now time.Time) int {
	elapsed := now.Sub(h.begin).Round(time.Millisecond * 100)
	w := h.stdout
	how := "hunted"
	if h.interrupted != nil {
		how = fmt.Sprintf("interrupted (%v) after hunting", h.interrupted)
	}
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(h.execs) / s
	}
	fmt.Fprintf(w, "%s %d %s for %v with %d %s: %d execs (%s/s)\n\n", how, len(h.tests), plural(len(h.tests), "test"),
		elapsed, h.cfg.jobs, plural(h.cfg.jobs, "worker"), h.execs, short(rate))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "test\texecs\tcorpus\tcover\tfailures\t\n")
	sched := false
	for _, t := range h.tests {
		sched = sched || t.sched
		note := ""
		if t.dropped != "" {
			note = "(" + t.dropped + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", t, t.execs, t.corpusSize, t.cover, t.failures, note)
	}
	tw.Flush()
	if len(h.findings) == 0 {
		fmt.Fprintf(w, "\nno failures\n")
		if !sched {
			fmt.Fprintf(h.stderr, "dstreplay hunt: none of the tests calls schedtest.Test: nothing was hunted\n")
			return ExitUsage
		}
		return ExitOK
	}
	fmt.Fprintf(w, "\n%d %s:\n", len(h.findings), plural(len(h.findings), "failure"))
	for _, f := range h.findings {
		fmt.Fprintf(w, "\n%s: %s\n", f.test, f.headline())
		fmt.Fprintf(w, "\tfirst found by worker %d after %v", f.worker, f.at.Round(time.Second))
		if f.count > 1 {
			fmt.Fprintf(w, ", %d times in all", f.count)
		}
		fmt.Fprintln(w)
		h.writeFinding(w, f, false)
	}
	return ExitFailure
}

// tail keeps the last maxTail bytes of a worker's output, whole lines.
type tail struct {
	mu  sync.Mutex
	b   []byte
	cut bool
}

func (t *tail) add(line []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(append(t.b, line...), '\n')
	if len(t.b) > 2*maxTail {
		t.b = append(t.b[:0:0], t.b[len(t.b)-maxTail:]...)
		t.cut = true
	}
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, cut := t.b, t.cut
	if len(b) > maxTail {
		b, cut = b[len(b)-maxTail:], true
	}
	if cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:] // from the first whole line
		}
	}
	return bytes.Clone(b)
}

// lineWriter calls fn with each line written to it, without the newline;
// a line longer than maxLine is cut into pieces.
type lineWriter struct {
	buf []byte
	fn  func(line []byte)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	start := 0
	for {
		i := bytes.IndexByte(w.buf[start:], '\n')
		if i < 0 {
			break
		}
		w.fn(w.buf[start : start+i])
		start += i + 1
	}
	for len(w.buf)-start > maxLine {
		w.fn(w.buf[start : start+maxLine])
		start += maxLine
	}
	w.buf = append(w.buf[:0], w.buf[start:]...)
	return len(p), nil
}

// flush passes on the last line if it had no newline.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.fn(w.buf)
		w.buf = w.buf[:0]
	}
}
