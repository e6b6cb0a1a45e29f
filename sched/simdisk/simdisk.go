package simdisk

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/vtime"
)

// The names of the faults (see sched.Fault).
const (
	FaultEIO      = "disk.eio"       // a write or a sync fails with EIO
	FaultENOSPC   = "disk.enospc"    // a write stops short with ENOSPC
	FaultSlowSync = "disk.slow-sync" // a sync takes a while, up to the bound
	// FaultLostDirent: at a Crash, a creation, rename or removal of a
	// file whose directory was not synced since is undone, as a file
	// system that had not written the directory back does.
	FaultLostDirent = "disk.lost-dirent"
)

// DefaultSlowSync bounds FaultSlowSync when the test gives no bound.
const DefaultSlowSync = 50 * time.Millisecond

var (
	enospcKey = entropy.KeyOf("simdisk.enospc")
	syncKey   = entropy.KeyOf("simdisk.slow-sync")
)

// Write is f.Write(b). Inside a run, FaultEIO fails it with nothing
// written, and FaultENOSPC writes a part of b, drawn, then fails.
func Write(f *os.File, b []byte) (int, error) {
	if g := engine.Current(); g != nil && !osHooked {
		return write(g, f, len(b), -1, func(k int) (int, error) { return f.Write(b[:k]) })
	}
	return f.Write(b)
}

// WriteString is f.WriteString(s), with Write's faults.
func WriteString(f *os.File, s string) (int, error) {
	if g := engine.Current(); g != nil && !osHooked {
		return write(g, f, len(s), -1, func(k int) (int, error) { return f.WriteString(s[:k]) })
	}
	return f.WriteString(s)
}

// WriteAt is f.WriteAt(b, off), with Write's faults.
func WriteAt(f *os.File, b []byte, off int64) (int, error) {
	if g := engine.Current(); g != nil && !osHooked {
		return write(g, f, len(b), off, func(k int) (int, error) { return f.WriteAt(b[:k], off) })
	}
	return f.WriteAt(b, off)
}

// Sync is f.Sync(). Inside a run, FaultSlowSync makes it wait first, on
// the virtual clock, and FaultEIO fails it.
func Sync(f *os.File) error {
	g := engine.Current()
	if g == nil || osHooked {
		return f.Sync() // (the overlay's os calls sync itself)
	}
	return sync(g, f, f.Sync)
}

// sync is a sync of f inside g's run, which raw does.
func sync(g *engine.G, f *os.File, raw func() error) error {
	if f == nil || stdStream(f) {
		return raw()
	}
	g.CrashPoint()
	var took time.Duration
	if sched.Fault(FaultSlowSync) {
		took = time.Duration(g.Source().At(syncKey).IntRange(1, int(g.FaultBound(FaultSlowSync, DefaultSlowSync))))
		g.Log(fmt.Sprintf("simdisk: a sync of %s takes %v", stableName(f.Name()), took))
		vtime.Sleep(took)
	}
	if sched.Fault(FaultEIO) {
		g.Log(fmt.Sprintf("simdisk: a sync of %s fails with EIO", stableName(f.Name())))
		return &fs.PathError{Op: "sync", Path: f.Name(), Err: syscall.EIO}
	}
	if err := raw(); err != nil {
		return err
	}
	synced(g, f, took)
	return nil
}

// WriteFile is os.WriteFile(name, data, perm), whose write has Write's
// faults.
func WriteFile(name string, data []byte, perm fs.FileMode) error {
	g := engine.Current()
	if g == nil || osHooked {
		return os.WriteFile(name, data, perm) // (the overlay's os calls beforeTruncate and write itself)
	}
	beforeTruncate(g, name)
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = Write(f, data)
	if err1 := f.Close(); err1 != nil && err == nil {
		err = err1
	}
	return err
}

// write is a write of n bytes to f inside g's run, of which prefix writes
// the first k: at off, or at f's offset when off is -1. It records what f
// held before the run's first write to it (beforeWrite), draws the
// faults, and records the write in the run's trace.
func write(g *engine.G, f *os.File, n int, off int64, prefix func(k int) (int, error)) (int, error) {
	if f == nil || n == 0 || stdStream(f) {
		return prefix(n)
	}
	g.CrashPoint()
	o := beforeWrite(g, f)
	if sched.Fault(FaultEIO) {
		g.Log(fmt.Sprintf("simdisk: a write of %d bytes to %s fails with EIO", n, stableName(f.Name())))
		return 0, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.EIO}
	}
	k := n
	var fault error
	if sched.Fault(FaultENOSPC) {
		k = g.Source().At(enospcKey).IntRange(0, n-1)
		g.Log(fmt.Sprintf("simdisk: a write to %s stops after %d of %d bytes: ENOSPC", stableName(f.Name()), k, n))
		fault = &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	written, err := prefix(k)
	if o != nil && written > 0 {
		if off < 0 && g.Traced() {
			// Where it went (a system call, for the trace only): an
			// O_APPEND write goes to the end, whatever the offset was
			// before.
			if end, err := f.Seek(0, io.SeekCurrent); err == nil {
				off = end - int64(written)
			}
		}
		g.IO(engine.OpWrite, o, engine.KindFile, off, int64(written), 0)
	}
	if err == nil {
		err = fault
	}
	return written, err
}

// stdStream reports whether f is the process's standard input, output or
// error, which are not the disk's: no fault fails a test's own output.
func stdStream(f *os.File) bool { return f == os.Stdout || f == os.Stderr || f == os.Stdin }

// stableName is how the run's log and trace name the file at path: the
// path, but for one in a temporary directory (t.TempDir's, os.MkdirTemp's),
// whose name is drawn anew by each process and each schedule, as
// "$TMPDIR/…/" and what follows the drawn part, so that a trace replayed
// in another process names it alike.
func stableName(path string) string {
	rel, err := filepath.Rel(os.TempDir(), path)
	if err != nil || !filepath.IsAbs(path) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	drawn := 1 // os.MkdirTemp's directory
	if len(parts) > 2 && strings.Trim(parts[1], "0123456789") == "" {
		drawn = 2 // t.TempDir's: the test's directory, then a counter
	}
	if len(parts) <= drawn {
		return path
	}
	return "$TMPDIR/…/" + strings.Join(parts[drawn:], "/")
}
