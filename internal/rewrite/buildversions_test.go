package rewrite_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// TestRewriteUsesBuildVersions: the packages that only a tested
// dependency's tests import are rewritten at the versions the build uses,
// and the overlay replaces no file beneath the module cache. Regression
// (github.com/smallnest/chanx@v1.2.0, whose tests import go.uber.org/goleak
// and an older testify than goleak v1.3.0's): go list refuses those
// packages as roots ("updates to go.mod needed"), and the retry with a copy
// of go.mod that go may update required goleak v1.3.0 directly, whose
// go.mod then selected testify v1.8.0 and go-spew v1.1.1 where the build
// uses v1.7.0 and v1.1.0 (goleak is in the pruned graph only through
// dstreplay's own go.mod, so its go.mod is never read there): the files of
// the versions the build does not use went into the overlay as they are,
// beneath GOMODCACHE, and go test refused the overlay.
//
// Here example.com/hub (dstreplay's part) requires example.com/leak
// v1.3.0, whose go.mod requires example.com/tfy v1.8.0; the main module
// requires hub and example.com/lib, whose go.mod requires leak v1.1.0 and
// tfy v1.7.0 and whose tests import both: the build uses leak v1.3.0 and
// tfy v1.7.0.
func TestRewriteUsesBuildVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	code := func(pkg, version string) string {
		return "package " + pkg + "\n\nconst Version = \"" + version + "\"\n\n" +
			"func Equal(a, b int) bool {\n\tc := make(chan bool)\n\tgo func() { c <- a == b }()\n\treturn <-c\n}\n"
	}
	proxy := fileProxy(t, []proxyModule{
		{"example.com/hub", "v1.0.0", map[string]string{
			"go.mod": "module example.com/hub\n\ngo 1.21\n\nrequire example.com/leak v1.3.0\n",
			"hub.go": "package hub\n",
		}},
		{"example.com/leak", "v1.1.0", map[string]string{
			"go.mod":  "module example.com/leak\n\ngo 1.21\n",
			"leak.go": code("leak", "v1.1.0"),
		}},
		{"example.com/leak", "v1.3.0", map[string]string{
			"go.mod":  "module example.com/leak\n\ngo 1.21\n\nrequire example.com/tfy v1.8.0\n",
			"leak.go": code("leak", "v1.3.0"),
		}},
		{"example.com/tfy", "v1.7.0", map[string]string{
			"go.mod": "module example.com/tfy\n\ngo 1.21\n",
			"tfy.go": code("tfy", "v1.7.0"),
		}},
		{"example.com/tfy", "v1.8.0", map[string]string{
			"go.mod": "module example.com/tfy\n\ngo 1.21\n",
			"tfy.go": code("tfy", "v1.8.0"),
		}},
		{"example.com/lib", "v1.0.0", map[string]string{
			"go.mod": "module example.com/lib\n\ngo 1.21\n\nrequire (\n\texample.com/leak v1.1.0\n\texample.com/tfy v1.7.0\n)\n",
			"lib.go": code("lib", "v1.0.0"),
			"lib_test.go": "package lib\n\nimport (\n\t\"testing\"\n\n\t\"example.com/leak\"\n\t\"example.com/tfy\"\n)\n\n" +
				"func TestEqual(t *testing.T) {\n\tif !Equal(1, 1) || !tfy.Equal(2, 2) || !leak.Equal(3, 3) {\n\t\tt.Fatal(\"not equal\")\n\t}\n}\n",
		}},
	})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	online, offline := proxyEnvs(t, proxy)
	goIn(t, dir, online, "get", "example.com/hub@v1.0.0")
	goIn(t, dir, online, "get", "-t", "example.com/lib@v1.0.0")
	goIn(t, t.TempDir(), online, "mod", "download", "example.com/leak@v1.1.0", "example.com/leak@v1.3.0",
		"example.com/tfy@v1.7.0", "example.com/tfy@v1.8.0")
	was := readModFiles(t, dir)
	if strings.Contains(string(was["go.mod"]), "example.com/leak") {
		t.Fatalf("the main module requires example.com/leak, which the test needs it not to:\n%s", was["go.mod"])
	}

	const graph = "-f={{.Path}} {{.Version}}"
	native := goIn(t, dir, offline, "list", "-m", graph, "all")
	if got := goIn(t, dir, offline, "list", "-deps", "-test", "-f={{with .Module}}{{.Path}}@{{.Version}}{{end}}", "example.com/lib"); !strings.Contains(got, "example.com/leak@v1.3.0\n") || !strings.Contains(got, "example.com/tfy@v1.7.0\n") {
		t.Fatalf("the build does not use example.com/leak v1.3.0 and example.com/tfy v1.7.0, as the test needs it to:\n%s", got)
	}
	modCache := strings.TrimSpace(goIn(t, dir, offline, "env", "GOMODCACHE"))

	var stderr strings.Builder
	overlay, _, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"example.com/lib"}, Deps: true, Wrap: true,
		Env: offline, CacheDir: t.TempDir(), Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	got := replaced(t, overlay)
	for name := range got {
		if rel, err := filepath.Rel(modCache, name); err == nil && filepath.IsLocal(rel) {
			t.Errorf("the overlay replaces %s, beneath the module cache", name)
		}
	}
	for _, want := range []string{"example.com/lib@v1.0.0/src/lib.go", "example.com/leak@v1.3.0/src/leak.go", "example.com/tfy@v1.7.0/src/tfy.go"} {
		found := false
		for name := range got {
			found = found || strings.HasSuffix(filepath.ToSlash(name), "/"+want)
		}
		if !found {
			t.Errorf("the overlay does not rewrite %s in its copy (stderr %q); it replaces %v", want, stderr.String(), slices.Sorted(maps.Keys(got)))
		}
	}
	if got := goIn(t, dir, offline, "list", "-m", "-overlay="+overlay, graph, "all"); got != native {
		t.Errorf("the module graph under the overlay:\n%s\nnatively:\n%s", got, native)
	}
	was.unchanged(t, dir)
}
