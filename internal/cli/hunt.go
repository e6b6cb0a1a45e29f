package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/gotest"
	"github.com/dstgo/dst/internal/hunt"
)

// dstreplay hunt coordinates a race hunt: it builds the test binaries,
// runs them as worker processes with -dst.strategy=hunt, shares the workers
// out among the tests, and gathers what the workers report on stdout.

const huntHelp = `Hunt searches the tests that call schedtest.Test (with -wrap, every test function, as it
is written) for failing schedules, with a coverage-guided fuzz loop in each of -j worker
processes, until its budget is spent: -time of wall-clock time, or -execs executions across
all workers, whichever comes first (-time 1m when neither is given). Packages are given as
to go test (default .).

It rewrites the code onto the scheduler as dstreplay test does (-wrap and -rewrite mean
what they mean there), builds each package's test binary (go test -c -overlay, with -race if
asked), lists the tests that -run selects, and runs the binary in the package's directory as
the workers:

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
resumes from it, and its workers share it while they run. Each input is a file named by
its contents' hash, so that corpora of several machines merge: -merge adds the checked
inputs of other corpora to -corpus first, and the hunt resumes from them all as one.

Once a second a progress line goes to stderr. At the end (the budget spent, or SIGINT or
SIGTERM, which are passed on to the workers) a summary goes to stdout: per test, the
executions, corpus, coverage and failures, and for each failure its kind, message, the
sizes of its schedule before and after shrinking, and how to open it. Hunt exits with 1
when it found a failure, 0 when it found none, and 2 when the packages do not build, no
test matches, no test calls schedtest.Test (without -wrap), or no test reached a
scheduling point (the coverage stayed at zero: nothing was hunted).`

// checkHunt fills in the defaults of the flags in c and validates them.
func checkHunt(c *hunt.Settings) error {
	switch {
	case c.Jobs < 1:
		return fmt.Errorf("-j %d: want at least 1 worker process", c.Jobs)
	case c.Budget < 0:
		return fmt.Errorf("-time %v: want a positive duration", c.Budget)
	case c.Execs < 0:
		return fmt.Errorf("-execs %d: want a positive number of executions", c.Execs)
	case c.Batch < hunt.MinBatch:
		return fmt.Errorf("-batch %v: want at least %v", c.Batch, hunt.MinBatch)
	}
	if c.Run == "" {
		c.Run = "."
	}
	if _, err := regexp.Compile(c.Run); err != nil {
		return fmt.Errorf("-run %q: %v", c.Run, err)
	}
	if c.Budget == 0 && c.Execs == 0 {
		c.Budget = time.Minute
	}
	if c.Corpus == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("no default corpus directory (%v): give one with -corpus", err)
		}
		c.Corpus = filepath.Join(cache, "dst", "corpus")
	}
	var err error
	if c.Corpus, err = filepath.Abs(c.Corpus); err != nil {
		return err
	}
	if c.Dir != "" {
		if c.Dir, err = filepath.Abs(c.Dir); err != nil {
			return err
		}
	}
	return nil
}
func runHunt(e *env, args []string) int {
	c := lookup("hunt")
	fs := c.flags(e)
	var cfg hunt.Settings
	fs.StringVar(&cfg.Run, "run", "", "hunt only the tests whose names match `regexp` (default: all)")
	fs.DurationVar(&cfg.Budget, "time", 0, "stop after this wall-clock `duration` (default 1m when -execs is not given)")
	fs.Int64Var(&cfg.Execs, "execs", 0, "stop after `n` executions across all workers")
	fs.IntVar(&cfg.Jobs, "j", runtime.NumCPU(), "run `n` worker processes")
	fs.BoolVar(&cfg.Race, "race", false, "build the tests with -race")
	fs.StringVar(&cfg.Corpus, "corpus", "", "keep the corpus under `dir` (default: dst/corpus in the user cache directory)")
	fs.StringVar(&cfg.Dir, "dir", "", "save failures under `dir` (default: each package's testdata/dst)")
	fs.DurationVar(&cfg.Batch, "batch", 2*time.Second, "with several tests, the `length` of a worker's turn at one test")
	fs.BoolVar(&cfg.Verbose, "v", false, "show the workers' other output, and notes on the tests")
	github := fs.Bool("github", os.Getenv("GITHUB_ACTIONS") == "true", "report to GitHub Actions: an error annotation per failure on stdout, and a job summary appended to $GITHUB_STEP_SUMMARY (default: true when $GITHUB_ACTIONS is)")
	wrap := fs.Bool("wrap", false, "hunt every test function of the packages under the scheduler, as it is (as dstreplay test -wrap)")
	fs.StringVar(&cfg.Faults, "faults", "", "fire these fault points in every test, as -dst.faults: `name=p[:bound],...` (net.delay=0.2:20ms,net.partition=0.01:5s)")
	nativeHTTP := fs.Bool("nativehttp", false, "with -wrap, leave net/http and httptest native (as dstreplay test -nativehttp)")
	var extra, merge patternList
	fs.Var(&merge, "merge", "first add to -corpus the inputs of the corpora in `dirs` (comma-separated: other machines' hunts of the same tests, a cluster's shared corpus)")
	fs.Var(&extra, "rewrite", "rewrite the dependencies matching `patterns` (comma-separated import paths, with ...) or refuse to run; none: no dependency but those (as dstreplay test)")
	code := ExitOK
	if !c.parse(fs, args, anyArgs, &code) {
		return code
	}
	if cfg.Faults != "" {
		if _, _, err := engine.ParseFaults(cfg.Faults); err != nil {
			fmt.Fprintf(e.stderr, "dstreplay hunt: -faults=%s: %v\n", cfg.Faults, err)
			return ExitUsage
		}
	}
	if err := checkHunt(&cfg); err != nil {
		fmt.Fprintf(e.stderr, "dstreplay hunt: %v\n", err)
		return ExitUsage
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	for _, dir := range merge {
		st, err := hunt.MergeCorpus(cfg.Corpus, dir)
		if err != nil {
			fmt.Fprintf(e.stderr, "dstreplay hunt: -merge: %v\n", err)
			return ExitUsage
		}
		fmt.Fprintf(e.stderr, "dstreplay hunt: merged %s into the corpus: %d %s added, %d already there, %d not inputs\n",
			dir, st.Added, plural(st.Added, "input"), st.Present, len(st.Invalid))
		for _, why := range st.Invalid[:min(len(st.Invalid), 5)] {
			fmt.Fprintf(e.stderr, "\tskipped %s\n", termSafe(why))
		}
		if len(st.Invalid) > 5 {
			fmt.Fprintf(e.stderr, "\t(and %d more)\n", len(st.Invalid)-5)
		}
	}
	var build []string
	if cfg.Race {
		build = append(build, "-race")
	}
	rw, code := rewriteFor(e, "hunt", wrapMode{*wrap, *nativeHTTP}, extra, patterns, build)
	if code != ExitOK {
		return code
	}
	cfg.Overlay, cfg.Env = rw.overlay, rw.env
	if cfg.Verbose {
		fmt.Fprintf(e.stderr, "dstreplay hunt: %d file(s) rewritten (-overlay=%s)\n", rw.files, rw.overlay)
	}
	rerun := rerunCommand(wrapMode{*wrap, *nativeHTTP}, extra, cfg.Race)
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
	tests, err := hunt.Build(&cfg, patterns, tmp, e.stderr)
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay hunt: %v\n", err)
		return ExitUsage
	}
	if len(tests) == 0 {
		fmt.Fprintf(e.stderr, "dstreplay hunt: no test in %s matches -run %q\n", strings.Join(patterns, " "), cfg.Run)
		return ExitUsage
	}
	h := hunt.NewHunter(cfg, tests, e.stderr)
	showHunt(h, rerun, e.stderr)
	h.Run(sigs)
	code = huntSummary(h, rerun, e.stdout, e.stderr)
	if *github {
		root := os.Getenv("GITHUB_WORKSPACE")
		if root == "" {
			root, _ = os.Getwd()
		}
		githubAnnotations(e.stdout, h, root)
		if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
			if err := appendSummary(path, githubSummary(h, rerun, root)); err != nil {
				fmt.Fprintf(e.stderr, "dstreplay hunt: %v\n", err)
			}
		}
	}
	return code
}

// showHunt has h's progress and its findings, as they come, written to w.
// rerun is the command, before the package, that runs a test again.
func showHunt(h *hunt.Hunter, rerun string, w io.Writer) {
	h.OnProgress = func(p hunt.Progress) {
		orderProgress(p.Tests)
		fmt.Fprintln(w, formatProgress(p))
	}
	h.OnFinding = func(f *hunt.Finding) {
		fmt.Fprintf(w, "dstreplay hunt: %s (worker %d, %v): %s\n", f.Test, f.Worker, f.At.Round(time.Second), f.Headline())
		writeFinding(w, f, rerun, true)
	}
}

// writeFinding writes the details of f under its headline, indented: its
// shrinking and how to open it, and a crash's output when asked; rerun is
// the command, before the package, that runs its test again.
func writeFinding(w io.Writer, f *hunt.Finding, rerun string, output bool) {
	if f.Exit != "" {
		fmt.Fprintf(w, "\tthe worker process exited: %s\n", f.Exit)
		if output && len(f.Output) > 0 {
			fmt.Fprintf(w, "\tits last output:\n")
			for _, l := range f.Output {
				fmt.Fprintf(w, "\t\t%s\n", l)
			}
		}
	}
	if f.Sized {
		b, a := f.Before, f.After
		fmt.Fprintf(w, "\tshrunk: steps %d → %d, preemptions %d → %d, goroutines %d → %d, values %d → %d\n",
			b.Steps, a.Steps, b.Preemptions, a.Preemptions, b.Goroutines, a.Goroutines, b.Values, a.Values)
	}
	switch {
	case f.Trace != "" && f.Kind == "crash":
		fmt.Fprintf(w, "\tits trace up to the crash: dstreplay %s\n", f.Trace)
	case f.TraceErr != nil:
		fmt.Fprintf(w, "\tno trace: %v\n", f.TraceErr)
	}
	switch {
	case f.Trace != "" && f.Kind != "crash":
		fmt.Fprintf(w, "\tdstreplay show %s\n\tdstreplay exec %s\n", f.Trace, f.Trace)
	case f.Saved != "":
		fmt.Fprintf(w, "\tthe input it was running: %s\n\t%s %s -run '%s' -dst.input=%s\n",
			f.Saved, rerun, f.Test.Pkg.Path, gotest.RunPattern(f.Test.Name), f.Saved)
	case errors.Is(f.SaveErr, fs.ErrNotExist):
		fmt.Fprintf(w, "\tit had not begun to run inputs\n")
	case f.SaveErr != nil:
		fmt.Fprintf(w, "\tthe input it was running is lost: %v\n", f.SaveErr)
	case f.Exit == "":
		fmt.Fprintf(w, "\t(the worker could not save it)\n")
	}
}

// rerunCommand is the command, before the package, that runs a hunted
// test again as the hunt built it: dstreplay test with the hunt's rewrite
// flags (the code is rewritten as the hunt rewrote it), -count=1 and -race
// when the hunt had it.
func rerunCommand(w wrapMode, extra []string, race bool) string {
	dir, _ := os.Getwd()
	how := cmp.Or(invocation(dir), "dstreplay")
	cmd := how + " test"
	if w.wrap {
		cmd += " -wrap"
	}
	if w.wrap && w.nativeHTTP {
		cmd += " -nativehttp"
	}
	if len(extra) > 0 {
		cmd += " -rewrite=" + shellQuote(strings.Join(extra, ","))
	}
	return cmd + " -count=1" + cond(race, " -race", "")
}

func cond(c bool, a, b string) string {
	if c {
		return a
	}
	return b
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
func formatProgress(p hunt.Progress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hunt %v: %d %s, %s execs (%s/s now, %s/s overall), corpus %d, cover %d, %d %s",
		p.Elapsed.Round(time.Second), p.Workers, plural(p.Workers, "worker"), short(float64(p.Execs)),
		short(p.RateNow), short(p.RateAll), p.Corpus, p.Cover, p.Failures, plural(p.Failures, "failure"))
	if len(p.Tests) < 2 {
		if len(p.Tests) == 1 && p.Tests[0].Out != "" {
			fmt.Fprintf(&b, "; %s left out: %s", p.Tests[0].Name, p.Tests[0].Out)
		}
		return b.String()
	}
	b.WriteString("\n ")
	width := 0
	for i, t := range p.Tests {
		part := t.Name + " " + short(float64(t.Execs)) + " execs"
		if t.Failures > 0 {
			part += fmt.Sprintf(" %d fail", t.Failures)
		}
		switch {
		case t.Out != "":
			part += " (out: " + t.Out + ")"
		case t.Dropped:
			part += " (out)"
		}
		if width > 0 && width+len(part) > progressWidth {
			fmt.Fprintf(&b, " (%d more)", len(p.Tests)-i)
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

// orderProgress puts the tests that run now first, then those that ran
// most; those given up go last.
func orderProgress(tests []hunt.TestProgress) {
	slices.SortStableFunc(tests, func(a, b hunt.TestProgress) int {
		if a.Dropped != b.Dropped {
			return cmp.Compare(boolInt(a.Dropped), boolInt(b.Dropped))
		}
		if a.Running != b.Running {
			return cmp.Compare(boolInt(b.Running), boolInt(a.Running))
		}
		return cmp.Compare(b.Execs, a.Execs)
	})
}

// huntSummary writes the table of h's tests and its findings to w, and returns the exit
// code.
func huntSummary(h *hunt.Hunter, rerun string, w, stderr io.Writer) int {
	elapsed := h.Elapsed.Round(time.Millisecond * 100)
	how := "hunted"
	if h.Interrupted != nil {
		how = fmt.Sprintf("interrupted (%v) after hunting", h.Interrupted)
	}
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(h.Execs) / s
	}
	fmt.Fprintf(w, "%s %d %s for %v with %d %s: %d execs (%s/s)\n\n", how, len(h.Tests), plural(len(h.Tests), "test"),
		elapsed, h.Settings.Jobs, plural(h.Settings.Jobs, "worker"), h.Execs, short(rate))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "test\texecs\tcorpus\tcover\tfailures\t\n")
	sched, covered := false, false
	for _, t := range h.Tests {
		sched = sched || t.Sched
		covered = covered || t.Cover > 0
		note := ""
		switch {
		case t.Dropped != "":
			note = "(" + t.Dropped + ")"
		case t.Unreached():
			note = "(no scheduling point reached)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", t, t.Execs, t.CorpusSize, t.Cover, t.Failures, note)
	}
	tw.Flush()
	if len(h.Findings) == 0 {
		fmt.Fprintf(w, "\nno failures\n")
		if !sched {
			fmt.Fprintf(stderr, "dstreplay hunt: none of the tests calls schedtest.Test: nothing was hunted (-wrap hunts tests as they are written)\n")
			return ExitUsage
		}
		if !covered && h.Execs > 0 {
			fmt.Fprintf(stderr, "dstreplay hunt: the coverage stayed at zero over %d executions: no test reached a scheduling point "+
				"(a goroutine, channel, lock, timer or select on the scheduler), so there was no schedule to hunt; code that is "+
				"not rewritten runs natively (see the notes on stderr, and -rewrite), and a test that starts no goroutine has "+
				"no interleaving\n", h.Execs)
			return ExitUsage
		}
		return ExitOK
	}
	fmt.Fprintf(w, "\n%d %s:\n", len(h.Findings), plural(len(h.Findings), "failure"))
	for _, f := range h.Findings {
		fmt.Fprintf(w, "\n%s: %s\n", f.Test, f.Headline())
		fmt.Fprintf(w, "\tfirst found by worker %d after %v", f.Worker, f.At.Round(time.Second))
		if f.Count > 1 {
			fmt.Fprintf(w, ", %d times in all", f.Count)
		}
		fmt.Fprintln(w)
		writeFinding(w, f, rerun, false)
	}
	return ExitFailure
}

// patternList is a flag of comma-separated patterns that may be given
// more than once.
type patternList []string

func (l *patternList) String() string { return strings.Join(*l, ",") }

func (l *patternList) Set(v string) error {
	if v == "" {
		return errors.New("want import path patterns")
	}
	*l = append(*l, strings.Split(v, ",")...)
	return nil
}
