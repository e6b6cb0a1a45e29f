package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/dstgo/dst/internal/hunt"
	"github.com/dstgo/dst/internal/rewrite"
	"github.com/dstgo/dst/trace"
)

const testHelp = `Test runs go test on the packages with their code rewritten at compile time, so that Go's
own concurrency (go statements, channels, select, sync, sync/atomic, time, context,
runtime.Gosched, math/rand) runs on the scheduler inside a schedtest run, and as written
outside one. Nothing on disk changes: the rewritten files go to the user cache directory and
into go test through -overlay, so go's build cache keeps their compilation. The tested
packages, every package of their module they import, and every dependency are rewritten (as
the race detector instruments them all), but the standard library and the tool's own packages
and theirs. A dependency whose code the rewrite cannot carry over runs natively, with a line
on stderr naming it and the first such place. -rewrite=none rewrites no dependency; -rewrite
names dependencies that must be rewritten (where the rewrite refuses one, nothing runs), so
-rewrite=none,golang.org/x/sync/... rewrites that module alone. Reports, traces, the stepper
and delve show the original files and lines, and a trace records what was rewritten, so that
exec and debug rewrite it again the same way.

With -wrap, the tested packages' own tests run under the scheduler unedited: each
func TestX(t *testing.T) (and each fuzz target's function) is explored as a schedtest.Test
body (1000 schedules by default; -dst.* flags apply), its t.Run subtests are goroutines of
the run and its t.Parallel subtests run together, interleaved; see package
sched/native/nativetest for what differs from go test. Under -wrap, go.uber.org/goleak is
rewritten too, so that a goleak.VerifyNone a test defers sees the test's goroutines and not
the tool's; and so are net/http and httptest, where the tests use them: their servers',
connections' and transports' goroutines are the run's, over a simulated network (package
sched/simnet), unless -nativehttp leaves them as Go ships them (without -wrap,
-rewrite=net/http/... carries them over). The network's and the disk's faults fire when
-dst.faults gives them a probability: net.delay, net.partition, net.clog, net.reset,
net.refuse, net.short-read, net.dns, disk.eio, disk.enospc, disk.slow-sync, and node.crash for a
test whose service runs as the nodes of a sched/cluster (with disk.lost-dirent, a crash also undoes
the creations, renames and removals, of files and of directories, its directories had not
synced). Package net and package os get hooks of the tool's too: a simulated listener or
connection is Go's own *net.TCPListener or *net.TCPConn, every write and sync of an *os.File,
direct or through a bufio.Writer, meets the disk's faults, and a process a run starts (a test
running its own binary as a peer) runs its tests natively, while the run's clock keeps to real
time until it has been waited for.

The flags below come first; every other argument (packages, go test's flags, -dst.* flags)
goes to go test as given. A construct the rewrite cannot carry over, in a tested package, a
package of their module or one -rewrite names, is an error naming its file and line, and
nothing runs.

  dstreplay test ./... -run TestCache -dst.iters=1000
  dstreplay test -wrap golang.org/x/sync/errgroup
  dstreplay test -wrap -rewrite=none ./...
  dstreplay test -wrap ./... -dst.faults=net.delay=0.5:20ms,disk.enospc=0.1`

// testBoolFlags are go test's flags that take no value, to tell a package
// pattern from a flag's value.
var testBoolFlags = map[string]bool{"v": true, "race": true, "short": true, "failfast": true, "json": true,
	"cover": true, "benchmem": true, "x": true, "n": true, "a": true, "trimpath": true, "msan": true,
	"asan": true, "work": true, "i": true, "c": true, "fullpath": true, "modcacherw": true}

func runTest(e *env, args []string) int {
	c := lookup("test")
	fs := c.flags(e)
	fs.String("rewrite", "", "rewrite the dependencies matching `patterns` (comma-separated import paths, with ...) or refuse to run; none: no dependency but those (default: every dependency, those the rewrite refuses natively)")
	fs.Bool("overlay", false, "print the path of the -overlay file and stop (for go build, go vet, gopls)")
	fs.Bool("wrap", false, "run every test function (and fuzz target) of the tested packages under the scheduler, as it is")
	fs.Bool("nativehttp", false, "with -wrap, leave net/http and httptest as they are: their goroutines run natively, on Go's network (default: on the scheduler, over the simulated network)")
	var extra []string
	overlayOnly, wrap, nativeHTTP := false, false, false
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, hasValue := flagName(a)
		switch name {
		case "h", "help":
			code := ExitOK
			c.parse(fs, []string{"-h"}, anyArgs, &code)
			return code
		case "rewrite":
			v := ""
			if hasValue {
				v = a[strings.IndexByte(a, '=')+1:]
			} else if i+1 < len(args) {
				i++
				v = args[i]
			}
			if v == "" {
				fmt.Fprintf(e.stderr, "dstreplay test: -rewrite wants import path patterns\n")
				return ExitUsage
			}
			extra = append(extra, strings.Split(v, ",")...)
			continue
		case "overlay":
			overlayOnly = true
			continue
		case "wrap":
			wrap = true
			continue
		case "nativehttp":
			nativeHTTP = true
			continue
		}
		rest = append(rest, a)
	}
	patterns, flags, others := splitTestArgs(rest)
	given := len(patterns) > 0
	if !given {
		patterns = []string{"."}
	}
	rw, code := rewriteFor(e, "test", wrapMode{wrap, nativeHTTP}, extra, patterns, flags)
	if code != ExitOK {
		return code
	}
	if overlayOnly {
		fmt.Fprintln(e.stdout, rw.overlay)
		return ExitOK
	}
	fmt.Fprintf(e.stderr, "dstreplay test: %d file(s) rewritten (-overlay=%s)\n", rw.files, rw.overlay)
	if note := raceNote(rest); note != "" {
		fmt.Fprintf(e.stderr, "dstreplay test: %s\n", note)
	}
	// The packages first: go test hands every argument from the first flag
	// it does not know (-dst.*) on to the test binary, so a package after
	// one would be tested as "." while the rewrite was of the package.
	argv := []string{"test", "-overlay=" + rw.overlay}
	if given {
		argv = append(argv, patterns...)
	}
	cmd := exec.Command("go", append(argv, others...)...)
	unrequired := &watch{w: e.stderr, needle: hunt.NotRequired}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, e.stdout, unrequired
	cmd.Env = append(os.Environ(), rw.env...)
	if err := cmd.Run(); err != nil {
		var xe *exec.ExitError
		if errors.As(err, &xe) {
			if unrequired.seen {
				fmt.Fprintf(e.stderr, "dstreplay test: %s\n", hunt.NotRequiredHint)
			}
			return xe.ExitCode()
		}
		fmt.Fprintf(e.stderr, "dstreplay test: %v\n", err)
		return ExitUsage
	}
	return ExitOK
}

// watch passes what is written on to w, and notes whether needle was in
// it, across writes.
type watch struct {
	w      io.Writer
	needle string
	tail   []byte // the end of what was written, shorter than needle
	seen   bool
}

func (x *watch) Write(b []byte) (int, error) {
	if !x.seen {
		joined := append(slices.Clip(x.tail), b...)
		x.seen = bytes.Contains(joined, []byte(x.needle))
		x.tail = append(x.tail[:0], joined[max(0, len(joined)-len(x.needle)+1):]...)
	}
	return x.w.Write(b)
}

// rewritten is the code of a command's packages rewritten onto the
// scheduler: the -overlay file for the go command, how many files it
// replaces, and the environment the test binaries run in (the rewrite's
// flags, which reports and traces carry; where the command ran; how the
// tool was invoked, for the commands reports print).
type rewritten struct {
	overlay string
	files   int
	env     []string
}

// wrapMode is how -wrap was given: whether it was, and whether
// -nativehttp leaves the standard HTTP stack native under it.
type wrapMode struct{ wrap, nativeHTTP bool }

// http reports whether the standard HTTP stack is rewritten onto the
// scheduler by default: under -wrap, unless -nativehttp.
func (w wrapMode) http() bool { return w.wrap && !w.nativeHTTP }

// rewriteFor rewrites the packages that patterns match, with go's build
// flags (-race, -tags), their module's packages and the dependencies that
// -wrap and -rewrite's patterns (extra) say, for the command cmd; on
// failure it has said why on stderr and returns the exit code. Under -wrap
// (without -nativehttp) net/http and httptest are rewritten too, where the
// tests depend on them, as -rewrite=net/http/... would, but a refusal
// leaves them native with a note; the marker says -nativehttp when given,
// so that reports, traces and replays know.
func rewriteFor(e *env, cmd string, w wrapMode, extra, patterns, flags []string) (rewritten, int) {
	wrap := w.wrap
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay %s: %v\n", cmd, err)
		return rewritten{}, ExitUsage
	}
	set, deps, err := rewriteSet(wrap, extra, true)
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay %s: %v\n", cmd, err)
		return rewritten{}, ExitUsage
	}
	path, n, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: patterns, Rewrite: set, Deps: deps, Wrap: wrap, HTTP: w.http(), Flags: flags, Stderr: e.stderr})
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay %s: %v\n", cmd, err)
		return rewritten{}, ExitFailure
	}
	rw := rewritten{overlay: path, files: n,
		env: []string{rewrite.EnvMarker + "=" + markerValue(w, extra, deps), "DST_TEST_DIR=" + dir}}
	if how := invocation(dir); how != "" {
		rw.env = append(rw.env, envTool+"="+how)
	}
	return rw, ExitOK
}

// raceNote is what dstreplay test says of data races given go test's
// arguments: that they are not checked, unless -race is among them. -race
// is not the default: a lock removed from a map update is found by the race
// detector alone, but the detector makes a suite take several times as long
// (about 5 times the test time on the examples and golang.org/x/sync), so
// the user is told, once per command (and each test says it with -v).
func raceNote(args []string) string {
	race := false
	for _, a := range args {
		if a == "--" || a == "-args" || a == "--args" {
			break
		}
		if name, hasValue := flagName(a); name == "race" {
			race = true
			if hasValue {
				race, _ = strconv.ParseBool(a[strings.IndexByte(a, '=')+1:])
			}
		}
	}
	if race {
		return ""
	}
	return "data races are not checked: add -race to check them (it takes several times as long)"
}

// splitTestArgs picks the package patterns out of go test's arguments, and
// the build flags that change what loads (-tags, -race); others is the
// arguments without the patterns, in their order.
func splitTestArgs(args []string) (patterns, build, others []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, hasValue := flagName(a)
		if a == "--" || a == "-args" || a == "--args" {
			others = append(others, args[i:]...)
			break // the test binary's arguments
		}
		if name == "" {
			patterns = append(patterns, a)
			continue
		}
		others = append(others, a)
		switch {
		case name == "race":
			build = append(build, "-race")
		case name == "tags" && hasValue:
			build = append(build, a)
		case name == "tags" && i+1 < len(args):
			build = append(build, "-tags="+args[i+1])
		}
		if !hasValue && !testBoolFlags[name] && !strings.HasPrefix(name, "dst.") && i+1 < len(args) {
			i++ // the flag's value
			others = append(others, args[i])
		}
	}
	return patterns, build, others
}

// markerValue is what dstreplay test sets EnvMarker to: the flags that
// rewrote the code, which the harness puts into its reproduce lines and
// traces. The -rewrite flag always says whether the dependencies were
// rewritten ("..." first) or not ("none" first): a trace recorded before
// every dependency was rewritten by default names neither, and is re-run as
// it was recorded (see overlayFor).
func markerValue(w wrapMode, extra []string, deps bool) string {
	var flags []string
	if w.wrap {
		flags = append(flags, "-wrap")
	}
	if w.wrap && w.nativeHTTP {
		flags = append(flags, "-nativehttp")
	}
	named := []string{"none"}
	if deps {
		named = []string{allDeps}
	}
	for _, p := range extra {
		if p != allDeps && p != noDeps {
			named = append(named, p)
		}
	}
	flags = append(flags, "-rewrite="+strings.Join(named, ","))
	return strings.Join(flags, " ")
}

// The -rewrite patterns that say whether every dependency is rewritten:
// "..." (go's pattern that matches every package, which sched/native's
// advice reads as such) says yes, "none" no.
const (
	allDeps = "..."
	noDeps  = "none"
)

// overlayFor returns, for a trace recorded by code that dstreplay test
// rewrote, the -overlay flag that rewrites the package pkg again with the
// trace's flags (-wrap, -rewrite), for go run in the current directory
// (which may be another module than pkg's: a dependency's tests), and the
// environment's marker; nothing for other traces. A trace whose -rewrite
// says neither "..." nor "none" was recorded when no dependency was
// rewritten unless named, and is rewritten so again.
func overlayFor(h *trace.Header, pkg string) (string, []string, error) {
	if !slices.Contains(h.Options, "rewritten=1") {
		return "", nil, nil
	}
	opts := rewrite.Options{Patterns: []string{pkg}}
	var extra []string
	var w wrapMode
	for _, o := range h.Options {
		switch k, v, _ := strings.Cut(o, "="); k {
		case "rewritten.wrap":
			opts.Wrap, w.wrap = true, true
		case "rewritten.nativehttp":
			w.nativeHTTP = true
		case "rewritten.rewrite":
			extra = strings.Split(v, ",")
		}
	}
	opts.HTTP = w.http()
	var err error
	opts.Rewrite, opts.Deps, err = rewriteSet(opts.Wrap, extra, false)
	if err != nil {
		return "", nil, fmt.Errorf("the trace's rewrite options: %w", err)
	}
	marker := markerValue(w, extra, opts.Deps)
	path, _, err := rewrite.Overlay(opts)
	if err != nil {
		return "", nil, fmt.Errorf("the trace was recorded by rewritten code (dstreplay test), and rewriting %s again failed: %w", pkg, err)
	}
	return "-overlay=" + path, []string{rewrite.EnvMarker + "=" + marker}, nil
}

// wrapRewrite is what -wrap rewrites besides the dependencies -rewrite
// names: go.uber.org/goleak, whose VerifyNone a wrapped test defers and so
// calls inside the run. Not rewritten, it lists every goroutine of the
// process, the tool's among them (the goroutine that runs the run, the
// watchdog), and reports those as leaks, after native sleeps the watchdog
// notes. Rewritten, its runtime.Stack is native.Stack, which lists the
// goroutines the program would have under go test: those outside the run
// and the run's live ones, so a goroutine the test leaves behind is still
// reported; and its sleeps between retries are the run's, on the virtual
// clock, during which the test's goroutines run to their end. A pattern
// that matches no package the tests import rewrites nothing. It is
// rewritten by name (the rewrite may not refuse it) even with
// -rewrite=none.
var wrapRewrite = []string{"go.uber.org/goleak/..."}

// rewriteSet is what to rewrite given the -rewrite patterns (extra): the
// dependencies that must be rewritten, those named and under -wrap
// wrapRewrite's, and whether every other one is rewritten too (where the
// rewrite does not refuse it). That is "..." among the patterns, not
// "none", or else deps.
func rewriteSet(wrap bool, extra []string, deps bool) ([]string, bool, error) {
	var named []string
	all, none := false, false
	for _, p := range extra {
		switch p {
		case allDeps:
			all = true
		case noDeps:
			none = true
		default:
			named = append(named, p)
		}
	}
	switch {
	case all && none:
		return nil, false, errors.New("-rewrite names both ... (every dependency) and none")
	case all:
		deps = true
	case none:
		deps = false
	}
	if wrap {
		named = append(named, wrapRewrite...)
	}
	return named, deps, nil
}
