package cli_test

import (
	"strings"
	"testing"
)

// diskModule saves a config file: the buggy Save writes it in place, so a
// write that stops short (a full disk) leaves neither the old config nor
// the new one; the fixed twin writes a temporary file, syncs it and
// renames it over the old one.
var diskModule = map[string]string{
	"config.go": `package config

import (
	"bufio"
	"os"
	"path/filepath"
)

func Save(path, v string) error { return os.WriteFile(path, []byte(v), 0o644) }

// SaveBuffered is Save through a bufio.Writer: no direct write of a file.
func SaveBuffered(path, v string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString(v)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func SaveAtomic(path, v string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".config-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(v); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
`,
	"config_test.go": `package config

import (
	"os"
	"path/filepath"
	"testing"
)

func check(t *testing.T, save func(path, v string) error) {
	path := filepath.Join(t.TempDir(), "config")
	if err := save(path, "version one"); err != nil {
		return // nothing saved yet: nothing to lose
	}
	err := save(path, "version two, longer")
	b, _ := os.ReadFile(path)
	switch got := string(b); {
	case err == nil && got != "version two, longer":
		t.Fatalf("saved, but the file holds %q", got)
	case err != nil && got != "version one" && got != "version two, longer":
		t.Fatalf("a failed save left %q: neither the old config nor the new (%v)", got, err)
	}
}

func TestBuggy(t *testing.T)    { check(t, Save) }
func TestBuffered(t *testing.T) { check(t, SaveBuffered) }
func TestFixed(t *testing.T) { check(t, SaveAtomic) }
`,
}

// TestWrapDiskFaults: under -wrap, with -dst.faults, the direct writes and
// syncs of unmodified code fail as a full or failing disk's do: the config
// saved in place is found corrupted by a short write, and the report says
// what the fault did, and so is the one saved in place through a
// bufio.Writer; the one saved through a temporary file and a rename passes
// with both faults on. Without the flag the buggy save passes.
func TestWrapDiskFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	m := newOwnModule(t, diskModule)
	out, err := m.sh("go tool dstreplay test -wrap . -count=1 -v -run '^TestBuggy$' -dst.iters=50 -dst.dir=off")
	if err != nil || !strings.Contains(out, "--- PASS: TestBuggy") {
		t.Fatalf("without faults: %v; want a pass\n%s", err, out)
	}
	out, err = m.sh("go tool dstreplay test -wrap . -count=1 -run '^TestBuggy$' -dst.faults=disk.enospc=0.3 -dst.dir=off")
	for _, want := range []string{"a failed save left", "disk.enospc (step", "simdisk: a write to ", "ENOSPC"} {
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("with disk.enospc: %v; want a failure that says %q\n%s", err, want, out)
		}
	}
	// The same save through a bufio.Writer: its writes are package os's
	// own, which hands them to simdisk (internal/rewrite/ossim.go).
	out, err = m.sh("go tool dstreplay test -wrap . -count=1 -run '^TestBuffered$' -dst.faults=disk.enospc=0.3 -dst.dir=off")
	if err == nil || !strings.Contains(out, "a failed save left") || !strings.Contains(out, "ENOSPC") {
		t.Errorf("through bufio, with disk.enospc: %v; want a failure\n%s", err, out)
	}
	out, err = m.sh("go tool dstreplay test -wrap . -count=1 -v -run '^TestFixed$' -dst.iters=500 -dst.faults=disk.enospc=0.3,disk.eio=0.3,disk.slow-sync=0.5 -dst.dir=off")
	if err != nil || !strings.Contains(out, "500 schedules passed") {
		t.Errorf("the fixed twin with disk faults: %v; want 500 schedules passed\n%s", err, out)
	}
}
