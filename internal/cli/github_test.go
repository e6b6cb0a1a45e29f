package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/hunt"
)

// The GitHub Actions formats: an annotation per finding with the file
// relative to the repository and GitHub's escapes (a message of several
// lines, a title with ':' and ','), none with a file outside it; the job
// summary's table and sections, cells that hold a '|' escaped, and the
// commands with paths relative to the repository.
func TestGitHubFormats(t *testing.T) {
	root := t.TempDir()
	pkg := &hunt.Package{Path: "example.com/m/p", Dir: filepath.Join(root, "p")}
	a := hunt.NewTest(pkg, "TestA", t.TempDir(), t.TempDir())
	b := hunt.NewTest(pkg, "TestB", t.TempDir(), t.TempDir())
	a.Execs, a.Cover, a.Sched, a.Failures = 1200, 40, true, 1
	b.Execs, b.Sched = 300, true
	h := hunt.NewHunter(hunt.Settings{Jobs: 2}, []*hunt.Test{a, b}, io.Discard)
	h.Execs, h.Elapsed = 1500, 3*time.Second
	h.Findings = []*hunt.Finding{
		{Test: a, Kind: "deadlock", Message: "deadlock: 2 blocked, a|b\nsecond line 100%", File: filepath.Join(root, "p", "p.go"), Line: 66,
			Trace: filepath.Join(root, "p", "testdata", "dst", "TestA", "deadlock-1.trace"), Worker: 1, At: 2 * time.Second, Count: 3,
			Sized: true, Before: hunt.Size{Preemptions: 9, Steps: 20, Goroutines: 3}, After: hunt.Size{Preemptions: 1, Steps: 18, Goroutines: 3}},
		{Test: a, Kind: "crash", Message: "fatal error: concurrent map writes", File: "/elsewhere/x.go", Line: 3,
			Saved: filepath.Join(root, "p", "testdata", "dst", "TestA", "crash-1.input")},
	}
	var w bytes.Buffer
	githubAnnotations(&w, h, root)
	want := "::error file=p/p.go,line=66,title=dstreplay hunt%3A deadlock in TestA::deadlock: 2 blocked, a|b%0Asecond line 100%25%0Atrace: p/testdata/dst/TestA/deadlock-1.trace\n" +
		"::error title=dstreplay hunt%3A crash in TestA::fatal error: concurrent map writes\n"
	if w.String() != want {
		t.Errorf("annotations:\n%s\nwant:\n%s", &w, want)
	}
	md := githubSummary(h, "go tool dstreplay test -wrap -count=1", root)
	for _, want := range []string{
		"## dstreplay hunt: 2 failures\n",
		"2 tests hunted for 3s with 2 workers: 1500 executions.",
		"| TestA | 1200 | 0 | 40 | 1 |  |\n",
		"| TestB | 300 | 0 | 0 | 0 | no scheduling point reached |\n",
		"### deadlock in TestA\n\nAt `p/p.go:66`. First found by worker 1 after 2s, 3 times in all.",
		"Shrunk: 9 → 1 preemptions, 20 → 18 steps, 3 → 3 goroutines.",
		"dstreplay exec p/testdata/dst/TestA/deadlock-1.trace",
		"### crash in TestA\n\nFirst found by worker 0",
		"go tool dstreplay test -wrap -count=1 example.com/m/p -run '^TestA$' -dst.input=p/testdata/dst/TestA/crash-1.input",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the summary lacks %q:\n%s", want, md)
		}
	}
	if got := mdCell("a|b\nc"); got != `a\|b c` {
		t.Errorf("mdCell = %q", got)
	}
}

// TestHuntAction runs the hunt action's script (.github/actions/hunt) as
// its step does on GitHub, on a buggy example: it exits 1, annotates the
// failure and writes the job summary; a bad input and a hunt that cannot
// run exit 2, the latter with a summary that says so.
func TestHuntAction(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dstreplay and hunts examples/plain")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "dstreplay")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/dstreplay").CombinedOutput(); err != nil {
		t.Fatalf("building dstreplay: %v\n%s", err, out)
	}
	summary := filepath.Join(tmp, "summary.md")
	step := func(env ...string) (string, int) {
		cmd := exec.Command("bash", filepath.Join(root, ".github", "actions", "hunt", "hunt.sh"))
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "DST_DEMO=1", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+root,
			"GITHUB_STEP_SUMMARY="+summary, "DST_HUNT_DSTREPLAY="+bin, "DST_HUNT_CORPUS="+filepath.Join(tmp, "corpus"))
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		var xe *exec.ExitError
		if err != nil && !errors.As(err, &xe) {
			t.Fatal(err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := step("DST_HUNT_PACKAGES=./examples/plain", "DST_HUNT_TIME=3s", "DST_HUNT_WRAP=true",
		"DST_HUNT_RUN=^TestBuggyLedger$", "DST_HUNT_ARGS=-j 1 -dir "+filepath.Join(tmp, "fail"))
	md, _ := os.ReadFile(summary)
	if code != 1 || !regexp.MustCompile(`(?m)^::error file=examples/plain/plain\.go,line=\d+,title=dstreplay hunt%3A deadlock in TestBuggyLedger::`).MatchString(out) ||
		!strings.Contains(string(md), "## dstreplay hunt: 1 failure\n") {
		t.Errorf("exit %d, want 1:\n%s\nsummary:\n%s", code, out, md)
	}
	if out, code := step("DST_HUNT_WRAP=yes"); code != 2 || !strings.Contains(out, `wrap is "yes": want true or false`) {
		t.Errorf("wrap=yes: exit %d, want 2:\n%s", code, out)
	}
	os.Remove(summary)
	out, code = step("DST_HUNT_PACKAGES=./examples/plain", "DST_HUNT_RUN=^TestNoSuchTest$", "DST_HUNT_TIME=1s")
	md, _ = os.ReadFile(summary)
	if code != 2 || !strings.Contains(string(md), "## dstreplay hunt: did not hunt (exit 2)") {
		t.Errorf("a hunt that cannot run: exit %d, want 2:\n%s\nsummary:\n%s", code, out, md)
	}
}
