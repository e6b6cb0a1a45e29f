package rewrite_test

import (
	"os"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// TestFlagsForEveryTestedPackage: dstreplay test passes -dst.* flags to
// every package it tests; a package whose tests never import the harness
// (only a benchmark; an external test package with no concurrency) takes
// them too, instead of failing with "flag provided but not defined".
func TestFlagsForEveryTestedPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	files := map[string]string{
		"bench/b.go":      "package bench\n\nfunc F() int { c := make(chan int, 1); c <- 1; return <-c }\n",
		"bench/b_test.go": "package bench\n\nimport \"testing\"\n\nfunc BenchmarkF(b *testing.B) { for range b.N { F() } }\n",
		"ext/e.go":        "package ext\n\nfunc G() int { return 2 }\n",
		"ext/e_test.go":   "package ext_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/ext\"\n)\n\nfunc TestG(t *testing.T) {\n\tif ext.G() != 2 {\n\t\tt.Fatal(\"G\")\n\t}\n}\n",
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	dir := tempModule(t, env, files)
	pkgs := []string{"./bench", "./ext"}
	for _, wrap := range []bool{false, true} {
		overlay, _, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: pkgs, Wrap: wrap, Env: env, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		got, out := goTestJSON(t, dir, env, "-overlay="+overlay, "-run=.", "-bench=.", "-benchtime=1x", "./bench", "./ext", "-dst.iters=5")
		if got["TestG"] != "pass" {
			t.Errorf("wrap %v: TestG: %q\n%s", wrap, got["TestG"], out["TestG"])
		}
		if !strings.Contains(out["BenchmarkF"], "ns/op") {
			t.Errorf("wrap %v: BenchmarkF did not run:\n%s", wrap, out["BenchmarkF"])
		}
	}
}
