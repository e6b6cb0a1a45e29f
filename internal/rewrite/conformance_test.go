package rewrite_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// tempModule makes a module in a temporary directory that requires this
// one (replaced by this checkout), with the given files, and tidies it. A
// "go.mod" among files is added to the module's go.mod (more requirements
// and replacements).
func tempModule(t *testing.T, env []string, files map[string]string) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n\nrequire github.com/dstgo/dst v0.0.0\n\nreplace github.com/dstgo/dst => " + root + "\n" + files["go.mod"]
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = string(sum)
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir, tidy.Env = dir, env
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	return dir
}

// lines runs go with args in dir and returns the JSON objects of the lines
// of its output that start with prefix.
func lines(t *testing.T, dir string, env []string, prefix string, args ...string) []map[string]any {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	var objs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), prefix+" "); ok {
			var o map[string]any
			if err := json.Unmarshal([]byte(line), &o); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			objs = append(objs, o)
		}
	}
	return objs
}

func strs(v any) []string {
	var s []string
	for _, x := range v.([]any) {
		s = append(s, x.(string))
	}
	return s
}

// TestConformance runs the constructs of testdata/conformance as Go runs
// them and rewritten: outside a run the rewritten code observes what Go's
// does; under the scheduler, over 200 schedules, it observes the same where
// Go's outcome is deterministic and every outcome Go allows where it is not,
// never fails, and records the same trace bytes for the same seed.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	cases, err := os.ReadFile(filepath.Join("testdata", "conformance", "cases.go"))
	if err != nil {
		t.Fatal(err)
	}
	harness, err := os.ReadFile(filepath.Join("testdata", "conformance", "harness_test.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	dir := tempModule(t, env, map[string]string{"cases.go": string(cases), "harness_test.go": string(harness)})

	plain := map[string]string{}
	for _, o := range lines(t, dir, env, "NATIVE", "test", "-v", "-count=1", "-run=^TestNative$", ".") {
		plain[o["name"].(string)] = o["got"].(string)
	}
	overlay, n, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"."}, Env: env, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 { // cases.go, and the harness's range over a map
		t.Errorf("%d files rewritten, want 2", n)
	}
	// Under -race, the rewritten runs are built with -race too: the same
	// outcomes and one trace per seed under the race detector's handoff.
	race := "-race=false"
	if raceEnabled {
		race = "-race"
	}
	objs := lines(t, dir, env, "NATIVE", "test", race, "-v", "-count=1", "-overlay="+overlay, "-run=^TestNative$", ".")
	if len(objs) != len(plain) || len(plain) == 0 {
		t.Fatalf("%d cases rewritten, %d plain", len(objs), len(plain))
	}
	// The cases whose outcome Go leaves to chance outside a run too (a
	// pool's item put on another P may not be found) are checked under the
	// scheduler only.
	chance := map[string]bool{"SelectBothReady": true, "SendOrder": true, "MapRangeOrder": true, "Pool": true}
	for _, o := range objs {
		name, got := o["name"].(string), o["got"].(string)
		if want := plain[name]; got != want && !chance[name] {
			t.Errorf("%s outside a run: rewritten %q, Go %q", name, got, want)
		}
	}
	for _, o := range lines(t, dir, env, "SCHED", "test", race, "-v", "-count=1", "-overlay="+overlay, "-run=^TestScheduled$", ".") {
		name := o["name"].(string)
		if f := o["failure"].(string); f != "" {
			t.Errorf("%s failed under the scheduler:\n%s", name, f)
			continue
		}
		if o["deterministic"] != true {
			t.Errorf("%s: one seed recorded twice gave different traces", name)
		}
		got := strs(o["outcomes"])
		want := []string{plain[name]}
		if o["allowed"] != nil {
			want = strs(o["allowed"])
			if !slices.Contains(want, plain[name]) {
				t.Errorf("%s: Go gave %q, not among the outcomes the case allows %q", name, plain[name], want)
			}
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s under the scheduler: outcomes %q, want %q", name, got, want)
		}
	}
}
