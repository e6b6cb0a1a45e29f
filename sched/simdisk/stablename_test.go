package simdisk

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStableName: a path in a temporary directory is named without the
// part each process draws anew (t.TempDir's test directory and counter,
// os.MkdirTemp's directory); any other path is itself.
func TestStableName(t *testing.T) {
	tmp := os.TempDir()
	for _, c := range []struct{ path, want string }{
		{filepath.Join(tmp, "TestStore123456", "001", "data", "log"), "$TMPDIR/…/data/log"},
		{filepath.Join(tmp, "TestStore123456", "042", "log"), "$TMPDIR/…/log"},
		{filepath.Join(tmp, "dst-race-98765", "log"), "$TMPDIR/…/log"},
		{filepath.Join(tmp, "log"), filepath.Join(tmp, "log")},
		{"/srv/data/log", "/srv/data/log"},
		{"data/log", "data/log"},
	} {
		if got := stableName(c.path); got != c.want {
			t.Errorf("stableName(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}
