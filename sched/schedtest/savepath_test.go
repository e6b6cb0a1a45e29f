package schedtest_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched/schedtest"
)

// subtestSep separates the names of DST_SUBTESTS.
const subtestSep = "\x1f"

// TestChildSubtests runs the deadlock (or, fixed, the body without it) in a
// subtest of each name DST_SUBTESTS lists, as a table-driven test whose
// names come from its data does.
func TestChildSubtests(t *testing.T) {
	var body func(*schedtest.T)
	switch os.Getenv("DST_CHILD") {
	case "subtests":
		body = abba(false)
	case "subtests-fixed":
		body = abba(true)
	default:
		t.Skip("run by TestSavedPathsStayInTheTestsDirectory")
	}
	for _, name := range strings.Split(os.Getenv("DST_SUBTESTS"), subtestSep) {
		t.Run(name, func(t *testing.T) {
			schedtest.TestWith(t, schedtest.Options{Iterations: 100}, body)
		})
	}
}

// childSubtests runs TestChildSubtests in mode with the subtests names.
func childSubtests(t *testing.T, saveDir, mode string, names []string, args ...string) (string, error) {
	t.Helper()
	t.Setenv("DST_SUBTESTS", strings.Join(names, subtestSep))
	return childSaving(t, saveDir, ".", mode, append([]string{os.Args[0], "-test.run=^TestChildSubtests$"}, args...)...)
}

// TestSavedPathsStayInTheTestsDirectory: a subtest's name, whatever it
// holds, names a directory inside the test's own under the directory of
// saved failures, one of its own, where the next run finds its trace again.
func TestSavedPathsStayInTheTestsDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	names := []string{
		"../../../../escaped", "a/../../../../../escaped2", "..", ".", ".hidden", "",
		"a,b", "a;b", "a_b", `x\y`, "CON", "%2e%2e", "trailing.", strings.Repeat("long,", 80),
	}
	root := t.TempDir()
	saved := filepath.Join(root, "a", "b", "dst")
	tests := filepath.Join(saved, "TestChildSubtests") + string(filepath.Separator)
	out, err := childSubtests(t, saved, "subtests", names)
	if err == nil {
		t.Fatalf("the failing subtests passed:\n%s", out)
	}
	var traces []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if !strings.HasPrefix(path, tests) {
				t.Errorf("a file was saved outside %s: %s", tests, path)
			}
			traces = append(traces, path)
		}
		return nil
	})
	if len(traces) != len(names) {
		t.Fatalf("%d subtests failed, %d traces saved: %q\n%s", len(names), len(traces), traces, out)
	}
	// The next run replays each subtest's own saved failure first.
	out, err = childSubtests(t, saved, "subtests", names)
	if err == nil {
		t.Fatalf("the failing subtests passed:\n%s", out)
	}
	if n := strings.Count(out, "(a saved failure: delete"); n != len(names) {
		t.Fatalf("%d subtests, %d replayed a saved failure:\n%s", len(names), n, out)
	}
}

// TestOlderSavedFailuresReplay: a trace saved where older versions saved
// it (a subtest's unsafe characters replaced by '_') still replays in its
// test, and not in the test whose own directory that is.
func TestOlderSavedFailuresReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	saved := t.TempDir()
	if out, err := childSubtests(t, saved, "subtests", []string{"a,b"}); err == nil {
		t.Fatalf("the failing subtest passed:\n%s", out)
	}
	traces, _ := filepath.Glob(filepath.Join(saved, "TestChildSubtests", "*", "*.trace"))
	if len(traces) != 1 {
		t.Fatalf("saved: %q", traces)
	}
	older := filepath.Join(saved, "TestChildSubtests", "a_b", filepath.Base(traces[0]))
	if err := os.MkdirAll(filepath.Dir(older), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(traces[0], older); err != nil {
		t.Fatal(err)
	}
	out, err := childSubtests(t, saved, "subtests-fixed", []string{"a,b", "a_b"}, "-test.v")
	if err != nil {
		t.Fatalf("the fixed subtests failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"was saved by TestChildSubtests/a,b, not by TestChildSubtests/a_b: not replayed",
		"the saved failure " + older + " no longer fails",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// TestFlagsAreCheckedFirst: every -dst.* flag is checked before anything
// runs, a saved failure's replay included, and a wrong one is named with
// its value.
func TestFlagsAreCheckedFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	saved := t.TempDir()
	if out, err := childSaving(t, saved, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$"); err == nil {
		t.Fatalf("the buggy test passed:\n%s", out)
	}
	res := testutil.Fails(t, schedtest.Options{}, schedtest.Deadlock, abba(false))
	handle := res.Recording.Handle()
	c := "A"
	if handle[10] == 'A' {
		c = "B"
	}
	damaged := handle[:10] + c + handle[11:]
	for _, tt := range []struct {
		flags []string
		want  []string
	}{
		{[]string{"-dst.time=-1s"}, []string{"sched: -dst.time=-1s: must not be negative"}},
		{[]string{"-dst.maxsteps=-1"}, []string{"sched: -dst.maxsteps=-1: must not be negative"}},
		{[]string{"-dst.iters=-5"}, []string{"sched: -dst.iters=-5: must not be negative"}},
		{[]string{"-dst.depth=-1"}, []string{"sched: -dst.depth=-1: must not be negative"}},
		{[]string{"-dst.pctsteps=-1"}, []string{"sched: -dst.pctsteps=-1: must not be negative"}},
		{[]string{"-dst.strategy=bfs"}, []string{`sched: -dst.strategy=bfs: unknown strategy "bfs"`}},
		{[]string{"-dst.worker=-2"}, []string{"sched: -dst.worker=-2: want the worker's number"}},
		{[]string{"-dst.replay=" + damaged}, []string{"sched: -dst.replay=" + damaged[:32] + "...: entropy: handle: the handle is damaged: checksum mismatch; copy it again from the report"}},
		{[]string{"-dst.trace=" + filepath.Join(saved, "none.trace")}, []string{"sched: -dst.trace=" + filepath.Join(saved, "none.trace") + ": "}},
		{[]string{"-dst.seed=1", "-dst.replay=" + handle}, []string{"sched: -dst.replay and -dst.seed each name the schedule to run: give one"}},
		{[]string{"-dst.time=-1s", "-dst.maxsteps=-1"}, []string{"sched: -dst.time=-1s:", "sched: -dst.maxsteps=-1:"}},
	} {
		out, err := childSaving(t, saved, ".", "abba", append([]string{os.Args[0], "-test.run=^TestChildABBA$"}, tt.flags...)...)
		if err == nil {
			t.Errorf("%q: the test passed:\n%s", tt.flags, out)
			continue
		}
		for _, want := range tt.want {
			if !strings.Contains(out, want) {
				t.Errorf("%q: no %q in:\n%s", tt.flags, want, out)
			}
		}
		if strings.Contains(out, "replaying") {
			t.Errorf("%q: the saved failure replayed before the flags were checked:\n%s", tt.flags, out)
		}
	}
}

// TestStaleSaveTempsAreRemoved: the temporary files of saves killed before
// their rename are removed by the next save when they are old enough that
// no save under way can own them, and by -dst.prune, which says so.
func TestStaleSaveTempsAreRemoved(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	saved := t.TempDir()
	dir := filepath.Join(saved, "TestChildABBA")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	plant := func(name string, age time.Duration) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("half a trace"), 0o644); err != nil {
			t.Fatal(err)
		}
		mtime := time.Now().Add(-age)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exists := func(p string) bool {
		_, err := os.Lstat(p)
		return err == nil
	}
	old := plant(".tmp-deadlock-0x1.trace-1234", time.Hour)
	recent := plant(".tmp-deadlock-0x2.trace-5678", 5*time.Minute)
	now := plant(".tmp-deadlock-0x3.trace-9012", 0) // a save under way
	out, err := childSaving(t, saved, ".", "abba", os.Args[0], "-test.run=^TestChildABBA$")
	if err == nil || !strings.Contains(out, "trace saved as") {
		t.Fatalf("the buggy test should fail and save its trace:\n%s", out)
	}
	if exists(old) || !exists(recent) || !exists(now) {
		t.Fatalf("after a save: the hour-old temporary file is there: %v (want false); the 5-minute-old: %v, the new: %v (want true)",
			exists(old), exists(recent), exists(now))
	}
	out, err = childSaving(t, saved, ".", "abba-fixed", os.Args[0], "-test.run=^TestChildABBA$", "-test.v", "-dst.prune")
	if err != nil {
		t.Fatalf("with -dst.prune: %v\n%s", err, out)
	}
	if exists(recent) || !exists(now) {
		t.Fatalf("after -dst.prune: the 5-minute-old temporary file is there: %v (want false), the new: %v (want true)\n%s",
			exists(recent), exists(now), out)
	}
	if !regexp.MustCompile(`removed 1 temporary file that interrupted saves left in \S+TestChildABBA \(.*-dst.prune\)`).MatchString(out) {
		t.Errorf("-dst.prune does not say what it removed:\n%s", out)
	}
}

// TestVersionedDependencySavesWhereTestRan: a package of a module at a
// version (the module cache's, or the rewrite cache's copy of it), run by
// dstreplay test from another module, saves its failures under
// testdata/dst/<import path> where dstreplay test ran, and replays them
// from there; its own directory gets nothing (regression, issue 25: a trace
// saved in the rewrite cache's copy made the next run rebuild the copy as
// modified).
func TestVersionedDependencySavesWhereTestRan(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	dep := filepath.Join(t.TempDir(), "example.com", "m@v1.2.3")
	if err := os.MkdirAll(dep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dep, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ran := t.TempDir()
	run := func() (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildABBA$", "-test.v")
		cmd.Dir = dep
		cmd.Env = append(os.Environ(), "DST_CHILD=abba", "DST_TEST_DIR="+ran, "DST_DIR=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(); err == nil {
		t.Fatalf("the buggy test passed:\n%s", out)
	}
	want := filepath.Join(ran, "testdata", "dst", "github.com", "dstgo", "dst", "sched", "schedtest", "TestChildABBA")
	if traces, _ := filepath.Glob(filepath.Join(want, "*.trace")); len(traces) != 1 {
		t.Errorf("%d traces in %s, want 1", len(traces), want)
	}
	filepath.WalkDir(dep, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "go.mod" {
			t.Errorf("%s was written in the dependency's directory", path)
		}
		return nil
	})
	if out, _ := run(); !strings.Contains(out, "(replaying "+want) {
		t.Errorf("the second run did not replay the saved trace:\n%s", out)
	}
}

// TestNoSavesThroughLinks: a symbolic link on the way down to a test's
// saved failures (testdata itself, or the test's directory, planted by a
// checkout) fails the test, naming the link, before anything is saved,
// replayed or deleted through it.
// Regression (found in review, fixed): the trace was written through the
// link, the next run replayed what the link pointed at, and -dst.prune
// deleted it.
func TestNoSavesThroughLinks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	for _, c := range []struct{ name, dstDir, link string }{
		{"test's directory", "saved", "saved/TestChildABBA"},
		{"testdata/dst", "", "testdata/dst"}, // the default, under the package's directory
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			outside := filepath.Join(root, "outside")
			victim := filepath.Join(outside, "TestChildABBA", "deadlock-0x1.trace")
			if c.dstDir != "" {
				victim = filepath.Join(outside, "deadlock-0x1.trace")
			}
			if err := os.MkdirAll(filepath.Dir(victim), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(victim, []byte("not a trace of ours"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(root, c.link)
			os.MkdirAll(filepath.Dir(link), 0o755)
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			saveDir := ""
			if c.dstDir != "" {
				saveDir = filepath.Join(root, c.dstDir)
			}
			for _, mode := range []string{"abba", "abba-fixed"} {
				out, err := childSaving(t, saveDir, root, mode, os.Args[0], "-test.run=^TestChildABBA$", "-dst.prune")
				if err == nil || !strings.Contains(out, "is a symbolic link: saved failures are written, replayed and deleted only in directories beneath") {
					t.Fatalf("%s: the link was not refused: %v\n%s", mode, err, out)
				}
				if strings.Contains(out, "trace saved as") || strings.Contains(out, "replaying") {
					t.Errorf("%s: saved or replayed through the link:\n%s", mode, out)
				}
			}
			entries, _ := os.ReadDir(filepath.Dir(victim))
			if len(entries) != 1 {
				t.Errorf("the directory the link points at holds %d files, want the 1 planted", len(entries))
			}
		})
	}
}

// TestSavesThroughLinkedTestdata: a package's testdata may be a link (to
// fixtures shared in a monorepo): its failures are saved and replayed in
// testdata/dst as usual.
func TestSavesThroughLinkedTestdata(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary")
	}
	root := t.TempDir()
	shared := filepath.Join(root, "shared")
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, filepath.Join(root, "testdata")); err != nil {
		t.Fatal(err)
	}
	out, err := childSaving(t, "", root, "abba", os.Args[0], "-test.run=^TestChildABBA$")
	if err == nil || !strings.Contains(out, "trace saved as") {
		t.Fatalf("the buggy test should fail and save its trace:\n%s", out)
	}
	if traces, _ := filepath.Glob(filepath.Join(shared, "dst", "TestChildABBA", "*.trace")); len(traces) != 1 {
		t.Fatalf("saved %q, want one trace in testdata/dst/TestChildABBA\n%s", traces, out)
	}
	if out, err := childSaving(t, "", root, "abba-fixed", os.Args[0], "-test.run=^TestChildABBA$", "-test.v"); err != nil || !strings.Contains(out, "no longer fails") {
		t.Fatalf("the saved failure was not replayed: %v\n%s", err, out)
	}
}
