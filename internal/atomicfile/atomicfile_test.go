package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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

// The temporary files Write creates are the ones IsTemp recognizes.
func TestIsTempNamesWritesTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	var during []string
	err := Write(filepath.Join(dir, "x.trace"), false, func(w io.Writer) error {
		during = entries(t, dir)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(during) != 1 || !IsTemp(during[0]) {
		t.Fatalf("during the write the directory held %v, want one temporary file IsTemp recognizes", during)
	}
	for _, name := range []string{"x.trace", ".tmp-", ".tmp-x", ".tmp-x-", ".tmp--12", ".tmp-x-12a", "tmp-x-12", ".hidden"} {
		if IsTemp(name) {
			t.Errorf("IsTemp(%q) = true", name)
		}
	}
}

// A write killed before its rename leaves a temporary file: RemoveStale
// removes the old ones, and nothing else.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	plant := func(name string, mtime time.Time) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("half a trace"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := plant(".tmp-deadlock-1.trace-123456", old)
	plant(".tmp-deadlock-2.trace-654321", time.Now()) // a write under way
	plant(".tmp-notours", old)
	plant(".tmp-notes-2024", old)  // a file of the user's: not a trace's
	plant(".tmp-draft.txt-1", old) // nor this one
	plant(".tmp-.trace-1", old)    // nor this one: no trace is named ".trace"
	plant("deadlock-3.trace", old)
	if err := os.Mkdir(filepath.Join(dir, ".tmp-dir-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(stale, filepath.Join(dir, ".tmp-link-2")); err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveStale(dir, 10*time.Minute, ".trace")
	if err != nil || len(removed) != 1 || removed[0] != stale {
		t.Fatalf("RemoveStale = %v, %v; want [%s]", removed, err, stale)
	}
	want := []string{".tmp-.trace-1", ".tmp-deadlock-2.trace-654321", ".tmp-dir-1", ".tmp-draft.txt-1", ".tmp-link-2", ".tmp-notes-2024", ".tmp-notours", "deadlock-3.trace"}
	if got := entries(t, dir); !slices.Equal(got, want) {
		t.Fatalf("left %v, want %v", got, want)
	}
	// With age 0, a temporary file of any age goes.
	if removed, err := RemoveStale(dir, 0, ".trace"); err != nil || len(removed) != 1 {
		t.Fatalf("RemoveStale(0) = %v, %v", removed, err)
	}
	// A directory that does not exist holds nothing to remove.
	if removed, err := RemoveStale(filepath.Join(dir, "none"), 0, ".trace"); err != nil || removed != nil {
		t.Fatalf("RemoveStale of a missing directory = %v, %v", removed, err)
	}
}
