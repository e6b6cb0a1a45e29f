package rewrite

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNotInModCache: a file beneath the module cache that the overlay would
// replace is an error naming its module and version (unescaped) and the
// version the build uses, not go's refusal of the overlay; a file
// elsewhere is none.
func TestNotInModCache(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "mod")
	var listing []listed
	p := listed{ImportPath: "github.com/Foo/bar/baz"}
	p.Module = &struct {
		Path, Version, Dir string
		Main               bool
		Replace            *struct{ Path, Version string }
	}{Path: "github.com/Foo/bar", Version: "v1.1.0", Dir: filepath.Join(cache, "github.com/!foo/bar@v1.1.0")}
	listing = append(listing, p)
	err := notInModCache(cache, filepath.Join(cache, "github.com", "!foo", "bar@v1.1.1", "baz", "baz.go"), listing)
	if err == nil || !strings.Contains(err.Error(), "cannot rewrite github.com/Foo/bar@v1.1.1:") || !strings.Contains(err.Error(), "the build uses github.com/Foo/bar@v1.1.0") {
		t.Errorf("a file of the module cache: %v, want an error naming github.com/Foo/bar@v1.1.1 and the build's v1.1.0", err)
	}
	for _, file := range []string{filepath.Join(t.TempDir(), "x.go"), filepath.Join(filepath.Dir(cache), "modx", "y.go")} {
		if err := notInModCache(cache, file, listing); err != nil {
			t.Errorf("%s, outside the module cache: %v", file, err)
		}
	}
	if err := notInModCache("", filepath.Join(cache, "a@v1.0.0", "a.go"), listing); err != nil {
		t.Errorf("no module cache: %v", err)
	}
}
