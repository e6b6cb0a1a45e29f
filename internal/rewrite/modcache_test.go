package rewrite_test

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// proxyModule is a module version served by a file:// GOPROXY.
type proxyModule struct {
	path, version string
	files         map[string]string // go.mod among them
}

// fileProxy writes mods in the layout of a module proxy under a new
// directory and returns its file:// URL.
func fileProxy(t *testing.T, mods []proxyModule) string {
	t.Helper()
	dir := t.TempDir()
	lists := map[string][]string{}
	for _, m := range mods {
		at := filepath.Join(dir, filepath.FromSlash(m.path), "@v")
		if err := os.MkdirAll(at, 0o755); err != nil {
			t.Fatal(err)
		}
		lists[at] = append(lists[at], m.version)
		info := `{"Version":"` + m.version + `","Time":"2020-01-01T00:00:00Z"}`
		if err := os.WriteFile(filepath.Join(at, m.version+".info"), []byte(info), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(at, m.version+".mod"), []byte(m.files["go.mod"]), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(at, m.version+".zip"))
		if err != nil {
			t.Fatal(err)
		}
		z := zip.NewWriter(f)
		for name, text := range m.files {
			w, err := z.Create(m.path + "@" + m.version + "/" + name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte(text)); err != nil {
				t.Fatal(err)
			}
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for at, versions := range lists {
		if err := os.WriteFile(filepath.Join(at, "list"), []byte(strings.Join(versions, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return "file://" + filepath.ToSlash(dir)
}

// goIn runs go with args in dir and returns its output, failing the test
// when it fails.
func goIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// proxyEnvs are the environments of a test whose modules come from the
// file:// proxy: a module cache of its own (writable, so that t.TempDir
// can remove it), filled through the proxy (online) or read alone
// (offline).
func proxyEnvs(t *testing.T, proxy string) (online, offline []string) {
	base := append(os.Environ(), "GOMODCACHE="+t.TempDir(), "GOSUMDB=off", "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=-modcacherw")
	return append(slices.Clip(base), "GOPROXY="+proxy), append(slices.Clip(base), "GOPROXY=off")
}

// modFiles are the main module's go.mod and go.sum, as they were.
type modFiles map[string][]byte

// readModFiles reads the go.mod and go.sum of the module in dir.
func readModFiles(t *testing.T, dir string) modFiles {
	t.Helper()
	m := modFiles{}
	for _, name := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		m[name] = b
	}
	return m
}

// unchanged checks that the module in dir still has the go.mod and go.sum
// it had.
func (m modFiles) unchanged(t *testing.T, dir string) {
	t.Helper()
	for name, was := range m {
		if now, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(now) != string(was) {
			t.Errorf("the main module's %s changed:\n%s\nwas:\n%s", name, now, was)
		}
	}
}

// TestModuleCopyKeepsModuleGraph: a dependency from the module cache is
// replaced by its copy at the version the build selects, and only there,
// so the module graph under the overlay is the native one and builds
// offline with the main module's go.sum. Regression (issue 25,
// github.com/sourcegraph/conc@v0.3.0 and github.com/sony/gobreaker under
// -wrap): replaced at every version, the copy's go.mod (testify v1.8.1's)
// stood in for an older version (testify v1.3.0, which go.uber.org/atomic,
// a module without graph pruning, requires), whose requirements the go
// command then read in full: "missing go.sum entry for go.mod file" for a
// module the native build never reads the go.mod of.
//
// Here example.com/u has no go directive (no graph pruning) and requires
// example.com/t v1.0.0; the main module selects example.com/t v1.1.0, which
// requires example.com/x, whose go.mod the native graph never reads.
func TestModuleCopyKeepsModuleGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	proxy := fileProxy(t, []proxyModule{
		{"example.com/t", "v1.0.0", map[string]string{
			"go.mod": "module example.com/t\n",
			"t.go":   "package t\n\nfunc F() int { return 0 }\n",
		}},
		{"example.com/t", "v1.1.0", map[string]string{
			"go.mod": "module example.com/t\n\ngo 1.21\n\nrequire example.com/x v1.0.0\n",
			"t.go":   "package t\n\nfunc F() int { return 1 }\n",
		}},
		{"example.com/u", "v1.0.0", map[string]string{
			"go.mod": "module example.com/u\n\nrequire example.com/t v1.0.0\n",
			"u.go":   "package u\n\nfunc G() int { return 2 }\n",
		}},
		{"example.com/x", "v1.0.0", map[string]string{
			"go.mod": "module example.com/x\n\ngo 1.21\n",
			"x.go":   "package x\n",
		}},
	})
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26\n\nrequire example.com/t v1.1.0\n",
		"m.go": "package m\n\nimport (\n\t\"example.com/t\"\n\t\"example.com/u\"\n)\n\n" +
			"func H() int { return t.F() + u.G() }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	online, offline := proxyEnvs(t, proxy)
	goIn(t, dir, online, "mod", "tidy")
	// Every version in the module cache (go list -m reads their .info and
	// go.mod files), downloaded from outside the main module, whose go.sum
	// stays as tidy left it.
	goIn(t, t.TempDir(), online, "mod", "download", "example.com/t@v1.0.0", "example.com/t@v1.1.0", "example.com/u@v1.0.0", "example.com/x@v1.0.0")
	was := readModFiles(t, dir)
	if strings.Contains(string(was["go.sum"]), "example.com/x v1.0.0/go.mod") {
		t.Fatalf("go.sum has a line for example.com/x's go.mod, which the test needs it not to have:\n%s", was["go.sum"])
	}

	const graph = "-f={{.Path}} {{.Version}}"
	native := goIn(t, dir, offline, "list", "-m", graph, "all")
	var stderr strings.Builder
	overlay, _, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"."}, Rewrite: []string{"example.com/t"},
		Env: offline, CacheDir: t.TempDir(), Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if got := goIn(t, dir, offline, "list", "-m", "-overlay="+overlay, graph, "all"); got != native {
		t.Errorf("the module graph under the overlay:\n%s\nnatively:\n%s", got, native)
	}
	repl := goIn(t, dir, offline, "list", "-m", "-overlay="+overlay, "-f={{.Version}} {{with .Replace}}{{.Path}} {{.Version}}{{end}}", "example.com/t")
	if v, to, _ := strings.Cut(strings.TrimSpace(repl), " "); v != "v1.1.0" || !filepath.IsAbs(strings.TrimSpace(to)) {
		t.Errorf("example.com/t under the overlay: %q, want v1.1.0 replaced by a directory (its copy)", repl)
	}
	goIn(t, dir, offline, "build", "-overlay="+overlay, "./...")
	was.unchanged(t, dir)
}
