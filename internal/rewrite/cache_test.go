package rewrite_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/rewrite"
)

// TestOverlayCached: an unchanged module's second rewrite is the first
// one's overlay, found without loading the packages; a changed file makes a
// new one with the change in it. The module's external test package is
// rewritten with it (regression: it was given to go/packages by its own
// path, which no module provides, and the rewrite failed).
func TestOverlayCached(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	src := "package m\n\nfunc F(c chan int) { c <- 1 }\n"
	xtest := "package m_test\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { c := make(chan int, 1); c <- 1 }\n"
	dir := tempModule(t, env, map[string]string{"m.go": src, "x_test.go": xtest})
	opts := rewrite.Options{Dir: dir, Patterns: []string{"."}, Env: env, CacheDir: t.TempDir()}
	first, n, err := rewrite.Overlay(opts)
	if err != nil || n != 2 {
		t.Fatalf("%v, %d files", err, n)
	}
	again, _, err := rewrite.Overlay(opts)
	if err != nil || again != first {
		t.Fatalf("the second rewrite: %v, %s, want %s", err, again, first)
	}
	later := time.Now().Add(time.Second)
	path := filepath.Join(dir, "m.go")
	if err := os.WriteFile(path, []byte(strings.Replace(src, "1", "2", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, later, later)
	changed, _, err := rewrite.Overlay(opts)
	if err != nil || changed == first {
		t.Fatalf("after a change: %v, %s (the first: %s)", err, changed, first)
	}
	data, _ := os.ReadFile(changed)
	if !strings.Contains(string(data), "m.go") {
		t.Fatalf("the new overlay: %s", data)
	}
}
