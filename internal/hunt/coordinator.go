package hunt

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/gotest"
)

// Limits of the coordinator.
const (
	maxTail      = 64 << 10               // the output kept of each worker process
	maxLine      = 1 << 20                // longer lines are cut
	MinBatch     = 250 * time.Millisecond // no worker is started for less
	maxCrashes   = 5                      // crashes of a test in a row before it is given up
	overrunGrace = 30 * time.Second       // how long a worker may run past its time
	maxBackoff   = 8 * time.Second        // the longest wait to restart a crashing test
	stopGrace    = 3 * time.Second        // from the interrupt to the kill
	crashLines   = 20                     // lines of a dead worker's output shown
)

// Settings are a hunt's: dstreplay hunt's flags, checked.
type Settings struct {
	Run     string        // the tests' names match it
	Budget  time.Duration // 0: no time limit
	Execs   int64         // 0: no limit on executions
	Jobs    int           // worker processes
	Race    bool          // build with -race
	Corpus  string        // absolute
	Dir     string        // absolute; "": each package's default
	Batch   time.Duration // at least MinBatch
	Verbose bool
	// Faults, when set, are the fault points the tests fire, as
	// -dst.faults takes them (name=p[:bound],...).
	Faults string
	// Overlay, when set, is the go command's -overlay file the test
	// binaries are built with (dstreplay's rewrite).
	Overlay string
	// Env is added to the environment of every test binary the hunt runs
	// (the rewrite's marker, which reports and traces read).
	Env []string
}

// proc is one run of a worker process.
type proc struct {
	slot  int
	test  *Test
	cmd   *exec.Cmd
	out   *tail
	iters int64     // -dst.iters; 0 when not given
	begin time.Time // when it started
	until time.Time // when its time is up; zero for none

	sawStatus, final    bool
	execs, failing, new int64 // the latest report's

	stopping bool      // it was told to stop: its end is no crash
	killAt   time.Time // when to kill it if it has not stopped
}

// event is what a worker's goroutine tells the coordinator.
type event struct {
	p       *proc
	status  *StatusLine
	failure *FailureLine
	line    string // other output, with -v
	bad     error  // a malformed protocol line
	exited  bool
	err     error // how it exited
}

// A Hunter runs a hunt: it starts the workers, shares them out among the
// tests, and gathers what they report. Set the hooks before Run; read the
// results after it.
type Hunter struct {
	Settings Settings
	// Log receives notes: the workers' commands and their other output
	// with Verbose, malformed protocol lines, tests given up, findings
	// seen again.
	Log io.Writer
	// OnProgress is called once a second; OnFinding for each new distinct
	// failure, as it is found. Either may be nil.
	OnProgress func(Progress)
	OnFinding  func(*Finding)
	// Command makes the worker process of t; Recover saves the input a dead
	// worker was running (RecoverCrash). Tests stand in for them.
	Command func(t *Test, args []string) *exec.Cmd
	Recover func(corpusDir string, worker int, failDir, test string, output []byte) (string, error)
	// Backoff is the wait to restart a test after its first crash in a
	// row; it doubles after each, up to a limit.
	Backoff time.Duration

	// The results, and the state while it runs.
	Tests       []*Test
	Findings    []*Finding
	Execs       int64         // reported by all processes
	Elapsed     time.Duration // from the start to the end of Run
	Interrupted os.Signal     // the signal that stopped it, if one did

	rng       intN
	raceDir   string          // with Settings.Race: where the workers' race detectors write
	before    map[string]bool // saved failures there before the hunt, by absolute path
	events    chan event
	slots     []*proc // nil: free
	running   int
	begin     time.Time
	deadline  time.Time // zero: none
	stopping  bool
	doneExecs int64 // reported by processes that have ended
	lastTick  time.Time
	lastExecs int64
}

// NewHunter returns a hunter of tests, with the settings s, whose notes go
// to log.
func NewHunter(s Settings, tests []*Test, log io.Writer) *Hunter {
	return &Hunter{
		Settings: s, Tests: tests, Log: log,
		Command: func(t *Test, args []string) *exec.Cmd {
			cmd := exec.Command(t.Pkg.Bin, args...)
			cmd.Dir = t.Pkg.Dir
			if len(s.Env) > 0 {
				cmd.Env = append(os.Environ(), s.Env...)
			}
			return cmd
		},
		Recover: RecoverCrash,
		Backoff: 250 * time.Millisecond,
		rng:     rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		events:  make(chan event, 64),
		slots:   make([]*proc, s.Jobs),
	}
}

// Run hunts until the budget is spent or a signal comes from sigs (which
// it passes on to the workers).
func (h *Hunter) Run(sigs <-chan os.Signal) {
	h.before = savedBefore(h.Tests)
	if h.Settings.Race {
		if d, err := os.MkdirTemp("", "dstreplay-hunt-race-"); err == nil {
			h.raceDir = d
			defer os.RemoveAll(d)
		}
	}
	h.begin = time.Now()
	h.lastTick = h.begin
	if h.Settings.Budget > 0 {
		h.deadline = h.begin.Add(h.Settings.Budget)
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
	h.Elapsed = time.Since(h.begin)
}

// nextWake is how long until a test waiting after a crash may start again
// within the budget; 0 if none is waiting.
func (h *Hunter) nextWake(now time.Time) time.Duration {
	var d time.Duration
	for _, t := range h.Tests {
		if h.stopping || t.Dropped != "" || !t.notBefore.After(now) {
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
func (h *Hunter) fill(now time.Time) {
	for slot, p := range h.slots {
		if p == nil && !h.startNext(slot, now) {
			return
		}
	}
}

// startNext starts a worker in slot, and reports whether it did.
func (h *Hunter) startNext(slot int, now time.Time) bool {
	if h.stopping {
		return false
	}
	var remaining time.Duration
	if !h.deadline.IsZero() {
		if remaining = h.deadline.Sub(now); remaining < MinBatch {
			return false
		}
	}
	var iters int64
	if h.Settings.Execs > 0 {
		// What is not yet spent, nor promised to the running workers,
		// shared among the free slots.
		left, free := h.Settings.Execs-h.doneExecs, 0
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
	live, unstarted, cands := 0, 0, []*Test(nil)
	for _, t := range h.Tests {
		if t.Dropped != "" {
			continue
		}
		live++
		if t.Batches == 0 && t.Running == 0 {
			unstarted++
		}
		// Until a test shows that it hunts, it runs on one worker.
		if (t.Sched || t.Running == 0) && !now.Before(t.notBefore) {
			cands = append(cands, t)
		}
	}
	if len(cands) == 0 {
		return false
	}
	if unstarted > 0 {
		// Every test has its first batch before any has a second.
		first := cands[:0:0]
		for _, t := range cands {
			if t.Batches == 0 && t.Running == 0 {
				first = append(first, t)
			}
		}
		if len(first) > 0 {
			cands = first
		}
	}
	stats := make([]pickStats, len(cands))
	for i, t := range cands {
		stats[i] = pickStats{execs: t.Execs, batches: t.Batches, sinceNew: t.sinceNew}
	}
	t := cands[pickTest(stats, h.rng)]
	d := remaining // one test: the whole budget
	if live > 1 {
		d = h.Settings.Batch
		if remaining > 0 {
			d = min(d, remaining)
		}
		if remaining > 0 && unstarted > 0 {
			// Every test has a first batch within half of what is
			// left, however many there are: ten tests of 2 s batches
			// on two workers would spend a 10 s budget on first
			// batches, and a test drawn last none at all.
			d = min(d, max(MinBatch, remaining*time.Duration(h.Settings.Jobs)/time.Duration(2*unstarted)))
		}
	}
	h.start(t, slot, d.Round(time.Millisecond), iters, now)
	return true
}

// workerArgs are the arguments of a worker process.
func workerArgs(t *Test, slot int, d time.Duration, iters int64, dir, faults string) []string {
	args := []string{"-test.run=" + gotest.RunPattern(t.Name), "-test.count=1", "-dst.strategy=hunt"}
	if d > 0 {
		args = append(args, "-dst.time="+d.String())
	}
	if iters > 0 {
		args = append(args, "-dst.iters="+strconv.FormatInt(iters, 10))
	}
	args = append(args, "-dst.corpus="+t.CorpusDir, "-dst.worker="+strconv.Itoa(slot), "-dst.keepgoing")
	if dir != "" {
		args = append(args, "-dst.dir="+dir)
	}
	if faults != "" {
		args = append(args, "-dst.faults="+faults)
	}
	return args
}

// start runs a worker process for t in slot.
func (h *Hunter) start(t *Test, slot int, d time.Duration, iters int64, now time.Time) {
	args := workerArgs(t, slot, d, iters, h.Settings.Dir, h.Settings.Faults)
	cmd := h.Command(t, args)
	if h.Settings.Race && h.raceDir != "" {
		// Every race the worker runs into counts, and its report goes to
		// a file the worker reads to place it (engine.RaceEnv).
		env := cmd.Env
		if env == nil {
			env = os.Environ()
		}
		cmd.Env = append(env, "GORACE="+engine.RaceEnv(filepath.Join(h.raceDir, "w"+strconv.Itoa(slot))))
	}
	p := &proc{slot: slot, test: t, cmd: cmd, out: &tail{}, iters: iters, begin: now}
	// The slot's last process left its input behind: were this one to die
	// before running any, that input must not be taken for its crash.
	os.Remove(CurrentPath(t.CorpusDir, slot))
	if d > 0 {
		p.until = now.Add(d)
	}
	if h.Settings.Verbose {
		fmt.Fprintf(h.Log, "dstreplay hunt: worker %d: %s %s\n", slot, t, strings.Join(args, " "))
	}
	stdout := &lineWriter{fn: func(l []byte) {
		st, f, err := Parse(l)
		switch {
		case st != nil:
			h.events <- event{p: p, status: st}
		case f != nil:
			h.events <- event{p: p, failure: f}
		default:
			p.out.add(l)
			if err != nil || h.Settings.Verbose {
				h.events <- event{p: p, line: string(l), bad: err}
			}
		}
	}}
	stderr := &lineWriter{fn: func(l []byte) {
		p.out.add(l)
		if h.Settings.Verbose {
			h.events <- event{p: p, line: string(l)}
		}
	}}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = stopGrace // for the output of any children it leaves behind
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(h.Log, "dstreplay hunt: %s: cannot start a worker: %v\n", t, err)
		t.Dropped = "its worker did not start"
		return
	}
	h.slots[slot] = p
	h.running++
	t.Running++
	go func() {
		err := cmd.Wait()
		stdout.flush()
		stderr.flush()
		h.events <- event{p: p, exited: true, err: err}
	}()
}

func (h *Hunter) handle(ev event) {
	p := ev.p
	switch {
	case ev.status != nil:
		h.status(p, ev.status)
	case ev.failure != nil:
		h.failure(p, ev.failure)
	case ev.exited:
		h.exited(p, ev.err)
	case ev.bad != nil:
		fmt.Fprintf(h.Log, "dstreplay hunt: worker %d (%s): %v: %s\n", p.slot, p.test, ev.bad, ev.line)
	default:
		fmt.Fprintf(h.Log, "w%d %s| %s\n", p.slot, p.test, ev.line)
	}
}

func (h *Hunter) status(p *proc, st *StatusLine) {
	t := p.test
	if p.sawStatus && st.New > p.new {
		t.crashes = 0 // progress (the first line's may be the corpus loading)
	}
	t.Sched, p.sawStatus = true, true
	if d := st.Execs - p.execs; d > 0 {
		t.Execs += d
		h.Execs += d
	}
	if d := st.Failing - p.failing; d > 0 {
		t.Failing += d
	}
	p.execs, p.failing = st.Execs, st.Failing
	t.CorpusSize, t.Cover = st.Corpus, st.Cover
	p.new = st.New
	p.final = p.final || st.Final
	h.checkFailsAlways(t)
}

// Past alwaysExecs executions, a test whose failure is saved and that fails
// on at least alwaysShare of its schedules is left out: schedules that all
// fail the same way teach the hunt nothing, and the budget is better spent
// on other tests, or on a hunt after the fix.
const (
	alwaysExecs = 1000
	alwaysShare = 0.9
)

// checkFailsAlways leaves t out, and stops its workers, if it fails on
// nearly every schedule and its failure is saved.
func (h *Hunter) checkFailsAlways(t *Test) {
	if t.Dropped != "" || t.Failures == 0 || t.Execs < alwaysExecs || float64(t.Failing) < alwaysShare*float64(t.Execs) {
		return
	}
	pct := int(100 * float64(t.Failing) / float64(t.Execs))
	t.Out = fmt.Sprintf("fails on %d%% of schedules", pct)
	t.Dropped = fmt.Sprintf("it fails on %d%% of its schedules and its failure is saved: fix it to hunt it further", pct)
	fmt.Fprintf(h.Log, "dstreplay hunt: %s fails on %d%% of its schedules and its failure is saved: left out, "+
		"so that the budget goes elsewhere (fix it to hunt it further)\n", t, pct)
	now := time.Now()
	for _, p := range h.slots {
		if p != nil && p.test == t && !p.stopping {
			h.interrupt(p, os.Interrupt, now)
		}
	}
}

func (h *Hunter) failure(p *proc, f *FailureLine) {
	h.record(&Finding{
		Test: p.test, Kind: f.Kind, Message: f.Message, Signature: f.Signature, Worker: p.slot,
		Trace: f.Trace, Input: f.Entropy, Before: f.Before, After: f.After, Sized: f.After != Size{},
		File: f.File, Line: f.Line,
	})
}

func (h *Hunter) exited(p *proc, err error) {
	t := p.test
	h.slots[p.slot] = nil
	h.running--
	t.Running--
	h.doneExecs += p.execs
	t.Batches++ // if perhaps cut short
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
		t.Dropped = "no progress reported: skipped, or no schedtest.Test"
		if h.Settings.Verbose {
			fmt.Fprintf(h.Log, "dstreplay hunt: %s reported no progress (it was skipped, or does not call schedtest.Test); left out\n", t)
		}
	default:
		h.crashed(p, err)
	}
}

// police stops the workers that overran their time, and kills those that
// did not stop when told.
func (h *Hunter) police(now time.Time) {
	for _, p := range h.slots {
		switch {
		case p == nil:
		case !p.stopping && !p.until.IsZero() && now.Sub(p.until) > overrunGrace:
			fmt.Fprintf(h.Log, "dstreplay hunt: worker %d (%s) ran %v past its time; stopping it\n", p.slot, p.test, overrunGrace)
			h.interrupt(p, os.Interrupt, now)
		case p.stopping && !p.killAt.IsZero() && now.After(p.killAt):
			p.cmd.Process.Kill()
			p.killAt = time.Time{}
		}
	}
}

func (h *Hunter) interrupt(p *proc, sig os.Signal, now time.Time) {
	p.stopping = true
	p.killAt = now.Add(stopGrace)
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.cmd.Process.Kill()
	}
}

// stop passes sig on to the workers, which are killed if they do not stop
// shortly; a second signal kills them at once.
func (h *Hunter) stop(sig os.Signal) {
	now := time.Now()
	if h.stopping {
		for _, p := range h.slots {
			if p != nil {
				p.cmd.Process.Kill()
			}
		}
		return
	}
	h.stopping, h.Interrupted = true, sig
	fmt.Fprintf(h.Log, "dstreplay hunt: %v: stopping the workers\n", sig)
	for _, p := range h.slots {
		if p != nil {
			h.interrupt(p, sig, now)
		}
	}
}

// Progress is where a hunt stands, as its progress line shows it.
type Progress struct {
	Elapsed          time.Duration
	Workers          int
	Execs            int64
	RateNow, RateAll float64 // executions per second
	Corpus, Cover    int     // summed over the tests
	Failures         int     // distinct
	Tests            []TestProgress
}

// TestProgress is where one test of a hunt stands.
type TestProgress struct {
	Name     string
	Execs    int64
	Failures int
	Dropped  bool
	Out      string // why it was left out, in a few words, if it was
	Running  bool   // a worker runs it now
}

// progress tells OnProgress where the hunt stands.
func (h *Hunter) progress(now time.Time) {
	if h.OnProgress == nil {
		return
	}
	p := Progress{Elapsed: now.Sub(h.begin), Workers: h.running, Execs: h.Execs, Failures: len(h.Findings)}
	if dt := now.Sub(h.lastTick).Seconds(); dt > 0 {
		p.RateNow = float64(h.Execs-h.lastExecs) / dt
	}
	if dt := p.Elapsed.Seconds(); dt > 0 {
		p.RateAll = float64(h.Execs) / dt
	}
	h.lastTick, h.lastExecs = now, h.Execs
	for _, t := range h.Tests {
		p.Corpus += t.CorpusSize
		p.Cover += t.Cover
		p.Tests = append(p.Tests, TestProgress{Name: t.String(), Execs: t.Execs, Failures: t.Failures,
			Dropped: t.Dropped != "", Out: t.Out, Running: t.Running > 0})
	}
	h.OnProgress(p)
}
