package simdisk_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simdisk"
	"github.com/dstgo/dst/vtime"
)

// TestFaults: each fault fires when given a probability, with the error a
// file system gives; ENOSPC leaves a part of what was written, EIO none.
func TestFaults(t *testing.T) {
	for _, c := range []struct {
		fault string
		errno syscall.Errno
	}{{simdisk.FaultEIO, syscall.EIO}, {simdisk.FaultENOSPC, syscall.ENOSPC}} {
		t.Run(c.fault, func(t *testing.T) {
			dir := t.TempDir()
			sizes := map[int64]bool{}
			res, err := schedtest.Explore(schedtest.Options{Seed: 1, Iterations: 30, Faults: map[string]float64{c.fault: 1}}, func(st *schedtest.T) {
				path := filepath.Join(dir, "f")
				err := simdisk.WriteFile(path, []byte("0123456789"), 0o644)
				if !errors.Is(err, c.errno) {
					st.Fatalf("WriteFile: %v, want %v", err, c.errno)
				}
				var pe *os.PathError
				if !errors.As(err, &pe) || pe.Op != "write" || pe.Path != path {
					st.Errorf("WriteFile's error %#v is not a PathError of the write to %s", err, path)
				}
				fi, _ := os.Stat(path)
				sizes[fi.Size()] = true
				if c.errno == syscall.EIO && fi.Size() != 0 || fi.Size() >= 10 {
					st.Errorf("after %v the file holds %d bytes", c.errno, fi.Size())
				}
			})
			if err != nil || res.Failure != nil {
				t.Fatalf("%v %v", err, res.Failure)
			}
			if c.errno == syscall.ENOSPC && len(sizes) < 3 {
				t.Errorf("ENOSPC left %v bytes over 30 schedules: want the part drawn", sizes)
			}
		})
	}
}

// TestSync: FaultSlowSync takes virtual time, up to its bound, and
// FaultEIO fails the sync.
func TestSync(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := schedtest.Run(schedtest.Options{Seed: 2,
		Faults:      map[string]float64{simdisk.FaultSlowSync: 1, simdisk.FaultEIO: 1},
		FaultBounds: map[string]time.Duration{simdisk.FaultSlowSync: time.Second}}, func(st *schedtest.T) {
		start := vtime.Now()
		err := simdisk.Sync(f)
		if took := vtime.Since(start); took <= 0 || took > time.Second {
			st.Errorf("a slow sync took %v, want up to 1s", took)
		}
		if !errors.Is(err, syscall.EIO) {
			st.Errorf("Sync: %v, want EIO", err)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if logs := strings.Join(res.Logs, "\n"); !strings.Contains(logs, "simdisk: a sync of") {
		t.Errorf("the log does not say what the faults did:\n%s", logs)
	}
}

// TestOffByDefault: with no probability given, and outside a run, each
// function is os's.
func TestOffByDefault(t *testing.T) {
	dir := t.TempDir()
	check := func(errorf func(string, ...any)) {
		path := filepath.Join(dir, "g")
		if err := simdisk.WriteFile(path, []byte("abc"), 0o600); err != nil {
			errorf("WriteFile: %v", err)
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			errorf("%v", err)
			return
		}
		defer f.Close()
		simdisk.WriteAt(f, []byte("X"), 1)
		f.Seek(0, 2)
		simdisk.WriteString(f, "d")
		simdisk.Write(f, []byte("e"))
		if err := simdisk.Sync(f); err != nil {
			errorf("Sync: %v", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "aXcde" {
			errorf("the file holds %q, want aXcde", b)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			errorf("mode %v, want 0600", fi.Mode())
		}
		os.Remove(path)
	}
	check(t.Errorf)
	res, err := schedtest.Run(schedtest.Options{Seed: 3}, func(st *schedtest.T) { check(st.Errorf) })
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}

// TestStdStreamsNoFaults: the process's standard output and error are not
// the disk's: with every fault at probability 1, writing to them works.
func TestStdStreamsNoFaults(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Faults: map[string]float64{simdisk.FaultEIO: 1, simdisk.FaultENOSPC: 1}}, func(st *schedtest.T) {
		if _, err := simdisk.WriteString(os.Stderr, ""); err != nil {
			st.Errorf("an empty write to stderr: %v", err)
		}
		if _, err := simdisk.Write(os.Stdout, []byte("simdisk: stdout is not the disk's\n")); err != nil {
			st.Errorf("a write to stdout: %v", err)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}
