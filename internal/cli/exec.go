package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/dstgo/dst/internal/gotest"
	"github.com/dstgo/dst/trace"
)

func runExec(e *env, args []string) int {
	c := lookup("exec")
	fs := c.flags(e)
	race := fs.Bool("race", false, "run the test with -race")
	code := ExitOK
	if !c.parse(fs, args, 1, &code) {
		return code
	}
	path, r, pkg, ok := openRecorded(e, "exec", fs.Arg(0))
	if !ok {
		return ExitUsage
	}
	h, outcome, cut := r.Header, r.Outcome, r.Truncated
	r.Close()
	dir, err := resolvePackage(pkg) // says where to run from
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay exec: %s: %v\n", fs.Arg(0), err)
		return ExitUsage
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay exec: %v\n", err)
		return ExitUsage
	}
	fmt.Fprintf(e.stderr, "dstreplay exec: test %s of package %s, in %s\n", h.Test, pkg, dir)
	sayRewrite(e, "exec", &h, pkg)
	overlay, env, err := overlayFor(&h, pkg)
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay exec: %v\n", err)
		return ExitFailure
	}
	// go test takes packages before the test binary's flags only (after --
	// they go to the test binary), so the package, checked to be an import
	// path, follows go test's own flags, each in its -name=value form.
	argv := []string{"test", "-count=1"}
	if overlay != "" {
		argv = append(argv, overlay)
	}
	if *race || slices.Contains(h.Options, "race=1") {
		argv = append(argv, "-race") // a data race is reported only by the detector
	}
	argv = append(argv, pkg, "-run="+gotest.RunPattern(h.Test), "-dst.trace="+path)
	fmt.Fprintf(e.stderr, "dstreplay exec: running in %s: %s\n", cwd, commandLine("go", argv, env...))
	cmd := exec.Command("go", argv...)
	var out bytes.Buffer
	// The test's output quotes the trace (a divergence, the recorded
	// outcome): escaped, whatever quotes it. os/exec copies stdout and
	// stderr in two goroutines, which both write to out: one at a time.
	var mu sync.Mutex
	stdout, stderr := newTermSafeStream(e.stdout), newTermSafeStream(e.stderr)
	cmd.Stdout = lockedWriter{&mu, io.MultiWriter(stdout, &out)}
	cmd.Stderr = lockedWriter{&mu, io.MultiWriter(stderr, &out)}
	cmd.Env = append(os.Environ(), env...)
	runErr := cmd.Run()
	stdout.Flush()
	stderr.Flush()
	got := "pass"
	switch m := failedAs.FindSubmatch(out.Bytes()); {
	case m != nil:
		got = string(m[1])
	case runErr != nil && buildFailed.Match(out.Bytes()):
		fmt.Fprintf(e.stderr, "dstreplay exec: package %s does not build now (the go command's errors are above): the trace cannot be re-run until it does\n", pkg)
		return ExitFailure
	case runErr != nil:
		got = "a failure outside the replay"
	case noTests.Match(out.Bytes()):
		fmt.Fprintf(e.stderr, "dstreplay exec: package %s has no test %s now (renamed or removed?): nothing re-ran\n", pkg, h.Test)
		return ExitFailure
	}
	if outcome == nil {
		fmt.Fprintf(e.stderr, "dstreplay exec: the re-run ended with %s; the recorded run's outcome is unknown: %v\n", got, cut)
		return ExitFailure
	}
	want := outcome.Kind
	if got != want {
		fmt.Fprintf(e.stderr, "dstreplay exec: the recorded run ended with %s, the re-run with %s\n", termSafe(want), got)
		return ExitFailure
	}
	if strings.Contains(out.String(), "diverged from the recording") || strings.Contains(out.String(), "ran differently from its recording") {
		fmt.Fprintf(e.stderr, "dstreplay exec: same outcome (%s), but the re-run diverged from the recording (see above)\n", termSafe(want))
		return ExitFailure
	}
	fmt.Fprintf(e.stderr, "dstreplay exec: the re-run ended as recorded: %s\n", termSafe(want))
	return ExitOK
}

// buildFailed and noTests find, in go test's output, a package that did
// not build and a -run pattern that matched no test.
var (
	buildFailed = regexp.MustCompile(`(?m)^FAIL\s+\S+ \[(build|setup) failed\]$`)
	noTests     = regexp.MustCompile(`(?m)^(testing: warning: no tests to run|ok\s+\S+\s+\S+ \[no tests to run\])$`)
)

// failedAs finds the failure kind in the harness's report of a replay.
var failedAs = regexp.MustCompile(`sched: ([a-z ]+) \(replaying `)

// openRecorded opens the trace file arg for a command that re-runs the test
// that recorded it (exec, debug). It returns the file's absolute path (the
// test runs in its package's directory), the open trace and the test's
// package, or says why it cannot and returns false. The package, the test
// and the rewrite's options, which go to the go command, are checked
// (checkRecorded): a trace is untrusted input.
func openRecorded(e *env, cmd, arg string) (path string, r *trace.Reader, pkg string, ok bool) {
	path, err := filepath.Abs(arg)
	if err != nil {
		fmt.Fprintf(e.stderr, "dstreplay %s: %v\n", cmd, err)
		return "", nil, "", false
	}
	if r, ok = open(e, cmd, path); !ok {
		return "", nil, "", false
	}
	h := &r.Header
	pkg = strings.TrimSuffix(h.Package, "_test")
	if pkg == "" || h.Test == "" || strings.HasPrefix(h.Test, "sched.") || strings.HasPrefix(h.Test, "schedtest.") {
		fmt.Fprintf(e.stderr, "dstreplay %s: %s was not recorded by a go test test (test %q, package %q): nothing to re-run\n", cmd, arg, h.Test, h.Package)
		r.Close()
		return "", nil, "", false
	}
	if err := checkRecorded(h, pkg); err != nil {
		fmt.Fprintf(e.stderr, "dstreplay %s: %s: %v\n", cmd, arg, err)
		r.Close()
		return "", nil, "", false
	}
	return path, r, pkg, true
}

// lockedWriter writes to w holding mu, which the writers of one command's
// output share.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
