package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dstgo/dst/internal/gotest"
	"github.com/dstgo/dst/trace"
)

// dstreplay debug starts delve on the test that recorded a trace, replaying
// the trace with -dst.break, which makes the scheduler call
// engine.Breakpoint at the chosen step. An init script breaks there,
// continues, and selects the frame of the step's operation in the code
// under test.

const debugHelp = `Debug starts delve (dlv test) on the test that recorded the trace, in its package, replaying
the trace (go test -dst.trace) and stopped at a step: the goroutine whose scheduling point
that step is (its op event in dstreplay show) is about to run the operation, and the frame
of the code under test that calls it is selected. Inspect it with locals, args, print; move
with up, down, frame N. finish_op runs the operation and stops after it, in that function,
where next and step go on; continue runs on; restart then continue replays up to the step
again. The other goroutines run at their scheduling points as recorded. The replay's
watchdog is off while delve holds it.

By default it stops where the bug shows: at the last scheduling point of the goroutine that
failed (the first t.Error, t.Fatal, panic or data race the trace records, a fail or panic
event in dstreplay show), before the failing line, which next and step reach. A run that
failed as a whole (a deadlock, a leak) stops at the trace's last step.

Run it from inside the module that holds the test's package, with the environment the test
needs. Arguments after -- go to dlv; with --headless, the client breaks on
` + breakFunc + `. Delve is found on $PATH, then in $GOBIN and
$GOPATH/bin; install it with:

	go install ` + dlvPackage + `@latest`

const (
	dlvPackage = "github.com/go-delve/delve/cmd/dlv"
	// breakFunc is the function the scheduler calls at the -dst.break step.
	breakFunc = "github.com/dstgo/dst/internal/engine.Breakpoint"
)

func runDebug(e *env, args []string) int {
	c := lookup("debug")
	fs := c.flags(e)
	step := fs.Int64("step", 0, "stop at this `step` (default: the failing goroutine's last, else the trace's last)")
	dlvPath := fs.String("dlv", "", "the delve binary (default: dlv on $PATH, $GOBIN or $GOPATH/bin)")
	race := fs.Bool("race", false, "build the test with -race")
	initFile := fs.String("init", "", "a `file` of delve commands to run once stopped (end it with exit to leave)")
	code := ExitOK
	var dlvArgs []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, dlvArgs = args[:i], args[i+1:]
	}
	if !c.parse(fs, args, 1, &code) {
		return code
	}
	path, r, pkg, ok := openRecorded(e, "debug", fs.Arg(0))
	if !ok {
		return ExitUsage
	}
	header := r.Header
	if r.Truncated != nil { // sched replays whole traces only
		fmt.Fprintf(e.stderr, "dstreplay debug: %s: %v\n", fs.Arg(0), r.Truncated)
		r.Close()
		return ExitFailure
	}
	tmp, err := os.MkdirTemp("", "dstreplay-debug-")
	if err != nil {
		r.Close()
		fmt.Fprintf(e.stderr, "dstreplay debug: %v\n", err)
		return ExitFailure
	}
	defer os.RemoveAll(tmp)
	script := filepath.Join(tmp, "init")
	test, outcome := r.Header.Test, r.Outcome
	var stopNote, failText string // why debug stops where it does, by default
	last, err := lastStep(r)
	switch {
	case err != nil:
	case last == 0:
		err = fmt.Errorf("%s has no scheduling point to stop at", fs.Arg(0))
	case *step == 0:
		*step = last
		var g int32
		if s, fg, text, ok, ferr := failStep(r); ferr != nil {
			err = ferr
		} else if ok {
			*step, g, failText = s, fg, text
		}
		if g != 0 {
			stopNote = fmt.Sprintf(", goroutine %d's last scheduling point before it failed", g)
		}
	case *step < 1 || *step > last:
		err = fmt.Errorf("--step %d is out of range: the steps of %s are 1 to %d", *step, fs.Arg(0), last)
	}
	var what string
	if err == nil {
		var stop trace.Event
		var at int64
		if stop, at, err = stepEvent(r, *step); err == nil {
			what = stop.Format(labelsBefore(r, at))
			err = writeDebugInit(script, *step, stop, *initFile)
		}
	}
	r.Close()
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay debug: %v\n", err)
		return ExitUsage
	}
	dir, err := resolvePackage(pkg) // a trace that cannot be debugged here says so before a missing delve does
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay debug: %s: %v\n", fs.Arg(0), err)
		return ExitUsage
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay debug: %v\n", err)
		return ExitUsage
	}
	dlv, ok := findDlv(e, *dlvPath)
	if !ok {
		return ExitFailure
	}

	// The binary goes beside the script, not into the current directory.
	// dir is absolute (resolvePackage), so never a flag of dlv's.
	argv := []string{"test", dir, "--init", script, "--output", filepath.Join(tmp, "debug.test")}
	sayRewrite(e, "debug", &header, pkg)
	overlay, env, err := overlayFor(&header, pkg)
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay debug: %v\n", err)
		return ExitFailure
	}
	var build []string
	if *race || slices.Contains(header.Options, "race=1") {
		build = append(build, "-race")
	}
	if overlay != "" {
		build = append(build, overlay)
	}
	if len(build) > 0 {
		argv = append(argv, "--build-flags="+strings.Join(build, " "))
	}
	if !isTTY(e.stdout) || !isTTY(e.stderr) || !isTTY(os.Stdin) {
		argv = append(argv, "--allow-non-terminal-interactive=true") // dlv refuses otherwise
	}
	argv = append(argv, dlvArgs...)
	argv = append(argv, "--", "-test.run="+gotest.RunPattern(test), "-dst.trace="+path, fmt.Sprintf("-dst.break=%d", *step))
	fmt.Fprintf(e.stderr, "dstreplay debug: stopping at step %d of %d%s: %s\n", *step, last, stopNote, termSafe(what))
	if failText != "" {
		fmt.Fprintf(e.stderr, "dstreplay debug: after it, it failed: %s\n", termSafe(failText))
	} else if *step == last && outcome != nil && outcome.Kind != "pass" {
		failure, _, _ := strings.Cut(outcomeText(outcome), "\n")
		fmt.Fprintf(e.stderr, "dstreplay debug: after it, the run failed: %s\n", termSafe(failure))
	}
	fmt.Fprintf(e.stderr, "dstreplay debug: test %s of package %s, in %s\n", test, pkg, dir)
	fmt.Fprintf(e.stderr, "dstreplay debug: running in %s: %s\n", cwd, commandLine(dlv, argv, env...))
	cmd := exec.Command(dlv, argv...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, e.stdout, e.stderr
	cmd.Env = append(os.Environ(), env...)
	// Ctrl-C is delve's, to stop the program: dstreplay must outlive it.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	err = cmd.Run()
	signal.Stop(sigs)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		fmt.Fprintf(e.stderr, "dstreplay debug: dlv exited with status %d\n", exit.ExitCode())
		return ExitFailure
	case err != nil:
		fmt.Fprintf(e.stderr, "dstreplay debug: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// failStep is where debug stops by default in a failed run: the last
// scheduling point of the goroutine that failed first (the first fail or
// panic event of a goroutine's), before it failed, so that the failing line
// is ahead. ok is false when no goroutine failed (a pass, or a failure of
// the whole run, such as a deadlock). text is the failure.
func failStep(r *trace.Reader) (step int64, g int32, text string, ok bool, err error) {
	for i := range r.Len() {
		ev, err := r.Event(i)
		if err != nil {
			return 0, 0, "", false, err
		}
		if ev.G == 0 || ev.Kind != trace.KindFail && ev.Kind != trace.KindPanic {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			op, err := r.Event(j)
			if err != nil {
				return 0, 0, "", false, err
			}
			if op.Kind == trace.KindOp && op.G == ev.G {
				if ev.Kind == trace.KindPanic {
					ev.Text = "panic: " + ev.Text
				}
				return op.Step, ev.G, ev.Text, true, nil
			}
		}
		return 0, 0, "", false, nil
	}
	return 0, 0, "", false, nil
}

// lastStep is the step of the trace's last event.
func lastStep(r *trace.Reader) (int64, error) {
	if r.Len() == 0 {
		return 0, nil
	}
	ev, err := r.Event(r.Len() - 1)
	return ev.Step, err
}

// stepEvent returns the op event of step, and its index.
func stepEvent(r *trace.Reader, step int64) (trace.Event, int64, error) {
	i, err := r.SeekStep(step)
	for ; err == nil && i < r.Len(); i++ {
		var ev trace.Event
		if ev, err = r.Event(i); err != nil || ev.Step != step {
			break
		}
		if ev.Kind == trace.KindOp {
			return ev, i, nil
		}
	}
	if err == nil {
		err = fmt.Errorf("trace: step %d has no op event", step)
	}
	return trace.Event{}, 0, err
}

// lookDlv finds delve: on $PATH, or in $GOBIN or $GOPATH/bin, where go
// install puts it.
func lookDlv() (string, bool) {
	if p, err := exec.LookPath("dlv"); err == nil {
		return p, true
	}
	out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output()
	if err != nil {
		return "", false
	}
	lines := strings.Split(string(out), "\n")
	dirs := []string{lines[0]}
	if len(lines) > 1 {
		for _, d := range filepath.SplitList(lines[1]) {
			dirs = append(dirs, filepath.Join(d, "bin"))
		}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(d, "dlv")); err == nil {
			return p, true
		}
	}
	return "", false
}

// findDlv returns the delve binary to run, or says how to install it.
func findDlv(e *env, given string) (string, bool) {
	if given != "" {
		if p, err := exec.LookPath(given); err == nil {
			return p, true
		}
		fmt.Fprintf(e.stderr, "dstreplay debug: --dlv %s: no such program. Install delve with:\n\n\tgo install %s@latest\n\n", given, dlvPackage)
		return "", false
	}
	if p, ok := lookDlv(); ok {
		return p, true
	}
	fmt.Fprintf(e.stderr, "dstreplay debug: delve (dlv) is not installed: not on $PATH, nor in $GOBIN or $GOPATH/bin. Install it with:\n\n\tgo install %s@latest\n\n", dlvPackage)
	return "", false
}

// isTTY reports whether f is a terminal.
func isTTY(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// writeDebugInit writes delve's init file at path: it sources a Starlark
// script beside it, which stops at step and selects the frame at the
// location of the step's event, then the user's file of commands.
func writeDebugInit(path string, step int64, ev trace.Event, user string) error {
	star := path + ".star"
	var b strings.Builder
	fmt.Fprintf(&b, "source %s\n", star)
	if user != "" {
		abs, err := filepath.Abs(user)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("--init: %w", err)
		}
		fmt.Fprintf(&b, "source %s\n", abs)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	consts := fmt.Sprintf("HOOK, STEP, FILE, LINE, FUNC, WHAT = %s, %d, %s, %d, %s, %s\n",
		starlarkString(breakFunc), step, starlarkString(filepath.Base(ev.Loc.File)), ev.Loc.Line, starlarkString(ev.Loc.Func),
		starlarkString(fmt.Sprintf("g%d's %s", ev.G, trace.OpName(ev.Op))))
	return os.WriteFile(star, []byte(debugScriptHead+consts+debugScript), 0o644)
}

// starlarkString is s (from a trace: untrusted) as a Starlark string
// literal: Go's quoting, which Starlark reads, of s made valid UTF-8
// (Starlark refuses \x escapes above 0x7f in a string).
func starlarkString(s string) string {
	return strconv.Quote(strings.ToValidUTF8(s, "\uFFFD"))
}

// debugScript is the Starlark script (delve's scripting language) that
// stops at the step, after debugScriptHead and the constants: the
// breakpoint's function, the step, the base name of the operation's file,
// its line and its function (empty and 0 when the trace has no locations),
// and what the operation is.
const (
	debugScriptHead = `# Written by dstreplay debug: stop the replay at the step and select the
# frame of the code under test that is about to run the step's operation.
`
	debugScript = `
def main():
	dlv_command("break dststep " + HOOK)
	exited = dlv_command("continue") # the error, when the process exited
	if exited != None or state().State.Exited:
		print("")
		print("dstreplay: the test ended without reaching step %d: did it skip (an environment variable it needs?), or do the test and the trace differ?" % STEP)
		return
	got = eval(None, "step").Variable.Value
	i = caller()
	print("")
	if i < 0:
		print("dstreplay: stopped at step %s, before %s; frame 0 is the scheduler's hook: stack shows the goroutine's stack, frame N selects its caller" % (got, WHAT))
		return
	dlv_command("frame %d" % i)
	print("")
	print("dstreplay: stopped at step %s, before %s at %s:%d; frame %d (selected) is that call." % (got, WHAT, FILE, LINE, i))
	print("  locals, args, print x   inspect it (up, down, frame N select another frame; stack shows them all)")
	print("  finish_op               run the operation and stop after it, back in frame %d's function: next and step work from there" % i)
	print("  continue                run on; the other goroutines run at their scheduling points as recorded")

def caller():
	"""The frame of the operation's caller (at FILE:LINE) on the stack of the goroutine stopped in HOOK, or -1."""
	s = state().State
	if FILE == "" or s.Exited or s.SelectedGoroutine == None:
		return -1
	frames = stacktrace(s.SelectedGoroutine.ID, 64).Locations
	if len(frames) == 0 or frames[0].Function == None or frames[0].Function.Name_ != HOOK:
		return -1
	for i in range(len(frames)):
		f = frames[i]
		if f.Line == LINE and (f.File == FILE or f.File.endswith("/" + FILE)):
			return i
	# A deferred call (defer mu.Unlock()) runs from its function's exit,
	# which the stack places on another line: the frame of that function.
	for i in range(len(frames)):
		f = frames[i].Function
		if FUNC != "" and f != None and f.Name_ == FUNC:
			return i
	return -1

def command_finish_op(args):
	"""Run the operation dstreplay debug stopped before to its end, and stop after it in the code that called it.

	finish_op

Only while stopped at the step: it steps out of the scheduler's hook and the shim, as many stepout would."""
	i = caller()
	if i < 0:
		print("finish_op: not stopped at step %d, before %s at %s:%d" % (STEP, WHAT, FILE, LINE))
		return
	for n in range(i):
		s = raw_command("stepOut").State
		if s.Exited:
			print("finish_op: the test ended before the operation returned")
			return
		if s.NextInProgress:
			print("finish_op: a breakpoint interrupted it")
			break
	dlv_command("frame 0")
`
)
