package rewrite_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// TestRewriteDeps: with Deps, every dependency is rewritten (issue 25); one
// the rewrite refuses stays native, with one line naming it and the first
// place, which a warm cache says again; the packages that call it are
// rewritten knowing it is native (a channel handed to it is marked); the
// same dependency named by -rewrite is refused loudly, as the tested
// packages are; without Deps no dependency is rewritten, and the two
// overlays are not one cache entry.
func TestRewriteDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a module of its own")
	}
	files := map[string]string{
		"go.mod": "require (\n\texample.com/bad v0.0.0\n\texample.com/good v0.0.0\n)\n\n" +
			"replace example.com/bad => ./bad\n\nreplace example.com/good => ./good\n",
		"good/go.mod":  "module example.com/good\n\ngo 1.22\n",
		"good/good.go": "package good\n\nfunc Go(f func()) { go f() }\n",
		"bad/go.mod":   "module example.com/bad\n\ngo 1.22\n",
		"bad/bad.go": "package bad\n\ntype B bool\n\ntype S struct{ OK B }\n\n" +
			"// Recv receives into a field of a named boolean type, which the rewrite refuses.\n" +
			"func Recv(c chan int, s *S) { _, s.OK = <-c }\n",
		"m.go": "package m\n\nimport (\n\t\"example.com/bad\"\n\t\"example.com/good\"\n)\n\n" +
			"func Run() { c := make(chan int); good.Go(func() { c <- 1 }); bad.Recv(c, new(bad.S)) }\n",
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestRun(t *testing.T) { Run() }\n",
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	dir := tempModule(t, env, files)
	cache := t.TempDir()
	opts := rewrite.Options{Dir: dir, Patterns: []string{"."}, Wrap: true, Deps: true, Env: env, CacheDir: cache}
	var stderr bytes.Buffer
	opts.Stderr = &stderr
	overlay, _, err := rewrite.Overlay(opts)
	if err != nil {
		t.Fatalf("a dependency the rewrite refuses fails the rewrite: %v", err)
	}
	note := regexp.MustCompile(`^dstreplay: example.com/bad is not rewritten and runs natively: \S+bad\.go:8:\d+: the ok of this receive is a example.com/bad.B but not a variable's name[^\n]*\n$`)
	if !note.MatchString(stderr.String()) {
		t.Errorf("stderr: %q, want one line naming example.com/bad and the place", stderr.String())
	}
	got := replaced(t, overlay)
	if _, ok := got[filepath.Join(dir, "good", "good.go")]; !ok {
		t.Errorf("good/good.go (a dependency) is not rewritten; the overlay: %v", got)
	}
	if _, ok := got[filepath.Join(dir, "bad", "bad.go")]; ok {
		t.Errorf("bad/bad.go, which the rewrite refuses, is in the overlay: %v", got)
	}
	m, err := os.ReadFile(got[filepath.Join(dir, "m.go")])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m), `"example.com/bad.Recv", "m.go:8")`) || strings.Contains(string(m), `"example.com/good.Go"`) {
		t.Errorf("m.go's rewrite does not take bad for native and good for rewritten:\n%s", m)
	}

	stderr.Reset()
	again, _, err := rewrite.Overlay(opts)
	if err != nil || again != overlay {
		t.Errorf("warm: %s, %v; want the same overlay %s", again, err, overlay)
	}
	if !note.MatchString(stderr.String()) {
		t.Errorf("warm, stderr: %q, want the line again", stderr.String())
	}

	strict := opts
	strict.Rewrite = []string{"example.com/bad/..."}
	if _, _, err := rewrite.Overlay(strict); err == nil || !strings.Contains(err.Error(), "bad.go:8") {
		t.Errorf("with -rewrite naming example.com/bad: %v, want the rewrite's refusal", err)
	}

	none := opts
	none.Deps = false
	stderr.Reset()
	plain, _, err := rewrite.Overlay(none)
	if err != nil {
		t.Fatal(err)
	}
	if plain == overlay {
		t.Errorf("with and without Deps, the same cache entry %s", plain)
	}
	got = replaced(t, plain)
	if _, ok := got[filepath.Join(dir, "good", "good.go")]; ok || stderr.Len() > 0 {
		t.Errorf("without Deps, a dependency is rewritten (%v) or a line says so (%q)", got, stderr.String())
	}
}

// TestToolModules: the modules the scheduler's packages link into a test
// binary are those the rewrite never rewrites.
func TestToolModules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,Module", "github.com/dstgo/dst/sched/...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var mods []string
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p struct {
			Standard bool
			Module   *struct{ Path string }
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if !p.Standard && p.Module != nil && p.Module.Path != "github.com/dstgo/dst" && !slices.Contains(mods, p.Module.Path) {
			mods = append(mods, p.Module.Path)
		}
	}
	slices.Sort(mods)
	if got := slices.Sorted(slices.Values(rewrite.ToolModules)); !slices.Equal(got, mods) {
		t.Errorf("toolModules = %v, want the scheduler's modules %v", got, mods)
	}
}

// TestRewriteDepsOfDependencyTests: a dependency that only a tested
// dependency's tests import is not in the main module's pruned module
// graph, and go list refuses it as a root ("updates to go.mod needed"): it
// is rewritten all the same, and the main module's go.mod is left as it
// is. Regression (github.com/panjf2000/ants/v2's suite from a module of
// its own): testify and golang.org/x/sync/errgroup stayed native, silently.
func TestRewriteDepsOfDependencyTests(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a module of its own")
	}
	files := map[string]string{
		"go.mod":        "require example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n\nreplace example.com/tdep => ./tdep\n",
		"m.go":          "package m\n\nimport _ \"example.com/dep\"\n",
		"dep/go.mod":    "module example.com/dep\n\ngo 1.22\n\nrequire example.com/tdep v0.0.0\n",
		"dep/dep.go":    "package dep\n\nfunc Go(f func()) { go f() }\n",
		"dep/x_test.go": "package dep_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/tdep\"\n)\n\nfunc TestGo(t *testing.T) { tdep.Go(func() {}) }\n",
		"tdep/go.mod":   "module example.com/tdep\n\ngo 1.22\n",
		"tdep/tdep.go":  "package tdep\n\nfunc Go(f func()) { go f() }\n",
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	dir := tempModule(t, env, files)
	goMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	env = append(os.Environ(), "GOFLAGS=", "GOPROXY=off")
	var stderr bytes.Buffer
	overlay, _, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"example.com/dep"}, Wrap: true, Deps: true,
		Env: env, CacheDir: t.TempDir(), Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	got := replaced(t, overlay)
	for _, f := range []string{"dep/dep.go", "dep/x_test.go", "tdep/tdep.go"} {
		if _, ok := got[filepath.Join(dir, f)]; !ok {
			t.Errorf("%s is not rewritten (stderr %q); the overlay: %v", f, stderr.String(), got)
		}
	}
	if after, err := os.ReadFile(filepath.Join(dir, "go.mod")); err != nil || !bytes.Equal(after, goMod) {
		t.Errorf("the main module's go.mod changed:\n%s\nwas:\n%s", after, goMod)
	}
}
