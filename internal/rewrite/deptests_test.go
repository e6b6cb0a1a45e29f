package rewrite_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// TestRewriteLeavesDependencyTestsAlone: -rewrite of a dependency rewrites
// the dependency's code, not its own tests, which go test does not build
// for the packages under test: under -wrap a dependency's test that the
// wrap would refuse (it hands its *testing.T to code that is not rewritten,
// as gopkg.in/yaml.v3's suite does with gopkg.in/check.v1) does not stop
// the rewrite. The packages under test, and a package of the module that
// they import, keep being rewritten.
func TestRewriteLeavesDependencyTestsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a module of its own")
	}
	refused := `package %s

import (
	"log/slog"
	"testing"
	"testing/slogtest"
)

func TestHandler(t *testing.T) {
	slogtest.Run(t, func(*testing.T) slog.Handler { return nil }, nil)
}
`
	files := map[string]string{
		"go.mod":           "require example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n",
		"dep/go.mod":       "module example.com/dep\n\ngo 1.22\n",
		"dep/dep.go":       "package dep\n\nfunc Go(f func()) { go f() }\n",
		"dep/dep_test.go":  strings.Replace(refused, "%s", "dep", 1),
		"dep/x_test.go":    strings.Replace(refused, "%s", "dep_test", 1),
		"inner/inner.go":   "package inner\n\nfunc Go(f func()) { go f() }\n",
		"inner/in_test.go": strings.Replace(refused, "%s", "inner", 1),
		"m.go":             "package m\n\nimport (\n\t\"example.com/dep\"\n\t\"example.com/m/inner\"\n)\n\nfunc Run() { dep.Go(func() {}); inner.Go(func() {}); go func() {}() }\n",
		"m_test.go":        "package m\n\nimport \"testing\"\n\nfunc TestRun(t *testing.T) { Run() }\n",
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	dir := tempModule(t, env, files)
	overlay, _, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"."}, Wrap: true,
		Rewrite: []string{"example.com/dep/..."}, Env: env, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("the rewrite refused a dependency's test, which go test does not build: %v", err)
	}
	got := replaced(t, overlay)
	for _, f := range []string{"dep/dep.go", "inner/inner.go", "m.go", "m_test.go"} {
		if _, ok := got[filepath.Join(dir, f)]; !ok {
			t.Errorf("%s is not rewritten; the overlay: %v", f, got)
		}
	}
	for _, f := range []string{"dep/dep_test.go", "dep/x_test.go", "inner/in_test.go"} {
		if _, ok := got[filepath.Join(dir, f)]; ok {
			t.Errorf("%s, a test that go test does not build here, is rewritten", f)
		}
	}

	// The tests of a package under test are rewritten: this one, which
	// hands its t to the standard library's slogtest, is left to run
	// natively, and says so.
	overlay, _, err = rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"./inner"}, Wrap: true, Env: env,
		CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("testing ./inner: %v", err)
	}
	path, ok := replaced(t, overlay)[filepath.Join(dir, "inner", "in_test.go")]
	if !ok {
		t.Fatalf("in_test.go, under test, is not rewritten")
	}
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), "TestHandler runs natively") {
		t.Errorf("in_test.go's test does not say it runs natively: %v\n%s", err, data)
	}
}
