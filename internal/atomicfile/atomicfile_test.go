package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// entries lists dir's file names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWrite(t *testing.T) {
	for _, durable := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "a", "b", "x.trace") // the directories are created
		if err := WriteBytes(path, durable, []byte("first")); err != nil {
			t.Fatal(err)
		}
		if err := WriteBytes(path, durable, []byte("second")); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || string(b) != "second" {
			t.Fatalf("durable %v: read %q, %v", durable, b, err)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o644 {
			t.Fatalf("durable %v: mode %v, %v", durable, fi.Mode(), err)
		}
		if names := entries(t, filepath.Dir(path)); len(names) != 1 {
			t.Fatalf("durable %v: left behind %v", durable, names)
		}
	}
}

// A write that fails leaves the old file as it was, and no temporary file.
func TestWriteFailureKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.input")
	if err := WriteBytes(path, false, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, true, func(w io.Writer) error {
		io.WriteString(w, "half of the ne")
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Fatalf("got %v, want the write's error naming the path", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("the old file became %q", b)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("left behind %v", names)
	}
	// A path under a regular file cannot be written; the error names it.
	bad := filepath.Join(path, "under")
	if err := WriteBytes(bad, false, nil); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("under a file: got %v", err)
	}
}
