package rewrite_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// TestFuncNames runs a test that names closures at run time (a closure
// after a go statement, a nested one, one in a method, one in a test's
// body, package-level ones after a timer's method value, one in an init
// function, a runtime.Frame's Function) natively, then rewritten without
// and with -wrap: each name is the one go test gives.
func TestFuncNames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	files := map[string]string{}
	for _, name := range []string{"names.go", "names_test.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "funcnames", name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	dir := tempModule(t, env, files)
	goTest := func(env []string, args ...string) string {
		cmd := exec.Command("go", append([]string{"test", "-count=1", "-run=^TestNames$", "-v"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("go test %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	out := goTest(env, ".")
	_, names, ok := strings.Cut(out, "NAMES ")
	if !ok {
		t.Fatalf("natively, no names:\n%s", out)
	}
	names, _, _ = strings.Cut(names, "\n")
	t.Logf("natively: %s", names)
	for _, wrap := range []bool{false, true} {
		overlay, _, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"."}, Wrap: wrap, Env: env, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		env := append(env, "WANT_NAMES="+names)
		args := []string{"-overlay=" + overlay, "."}
		if wrap {
			env = append(env, rewrite.EnvMarker+"=-wrap")
			args = append(args, "-dst.iters=2")
		}
		goTest(env, args...)
	}
}
