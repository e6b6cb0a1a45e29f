package simdisk_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simdisk"
)

// osHooked reports whether this test binary's package os hands its writes
// to simdisk (internal/rewrite/ossim.go). internal/rewrite's TestOSHooks
// runs these tests with the hooks, and sets DST_OS_HOOKED=1: then they must
// be there.
func osHooked(t *testing.T) bool {
	_, ok := any((*os.File)(nil)).(interface{ DstreplayWrite([]byte) (int, error) })
	if !ok && os.Getenv("DST_OS_HOOKED") == "1" {
		t.Fatal("DST_OS_HOOKED=1, but package os has no hooks")
	}
	return ok
}

// TestThroughOS: with the hooks, writes that do not call simdisk (through
// a bufio.Writer, fmt.Fprintf, io.Copy) meet the faults and are known to
// Crash, and os.Create's truncation is undone by a crash before a sync;
// the standard streams meet no fault. Without them, those writes reach the
// file as written.
func TestThroughOS(t *testing.T) {
	on := osHooked(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Faults: map[string]float64{simdisk.FaultEIO: 1}}, func(st *schedtest.T) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			st.Fatal(err)
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		w.WriteString("buffered")
		failed := map[string]error{"bufio": w.Flush()}
		_, failed["fmt"] = fmt.Fprintf(f, "%d", 42)
		_, failed["io.Copy"] = io.Copy(f, strings.NewReader("copied"))
		failed["sync"] = f.Sync()
		for what, err := range failed {
			if eio := errors.Is(err, syscall.EIO); eio != on {
				st.Errorf("%s: %v, want EIO %v", what, err, on)
			}
		}
		if _, err := fmt.Fprint(os.Stdout, ""); err != nil {
			st.Errorf("the standard output failed: %v", err)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}

	// A crash: what was written through bufio and not synced is lost; a
	// truncation that was not synced is undone.
	res, err = schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		f, err := os.Create(path) // truncates "old"
		if err != nil {
			st.Fatal(err)
		}
		w := bufio.NewWriter(f)
		w.WriteString("new, never synced")
		if err := w.Flush(); err != nil {
			st.Fatal(err)
		}
		f.Close()
		if err := simdisk.Crash(dir); err != nil {
			st.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		want := "new, never synced"
		if on {
			want = "old"
		}
		if string(got) != want {
			st.Errorf("after the crash: %q, want %q", got, want)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}

	// Outside a run, writes are Go's.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprint(f, "outside"); err != nil || f.Sync() != nil {
		t.Fatal(err)
	}
	if !on {
		t.Log("package os has no hooks here")
	}
}
