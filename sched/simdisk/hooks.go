package simdisk

import (
	"os"

	"github.com/dstgo/dst/internal/engine"
)

// Package os itself, where dstreplay test overlays it
// (internal/rewrite/ossim.go): (*os.File).Write, WriteAt and Sync hand over
// to fileHook, which does inside a run what Write, WriteAt and Sync do, so
// that writes through an interface (a bufio.Writer over a file, fmt.Fprintf,
// io.Copy), and those of code the rewrite does not carry over, meet the
// faults and are known to Crash. Without the overlay, only the calls the
// rewrite sends here are.

// rawFile is Go's own writes and syncs of a file, which the overlay adds.
type rawFile interface {
	DstreplayWrite([]byte) (int, error)
	DstreplayWriteAt([]byte, int64) (int, error)
	DstreplaySync() error
}

// osHooked reports whether the build's package os hands its writes over
// here; it is set up when the package starts.
var osHooked = func() bool {
	h, ok := any((*os.File)(nil)).(interface{ DstreplayFileHook(any) })
	if ok {
		h.DstreplayFileHook(fileHook{})
	}
	return ok
}()

// fileHook is what package os calls for a file's writes and syncs.
type fileHook struct{}

func (fileHook) Write(f *os.File, b []byte) (int, error) {
	r := any(f).(rawFile)
	if g := engine.Current(); g != nil {
		return write(g, f, len(b), -1, func(k int) (int, error) { return r.DstreplayWrite(b[:k]) })
	}
	return r.DstreplayWrite(b)
}

func (fileHook) WriteAt(f *os.File, b []byte, off int64) (int, error) {
	r := any(f).(rawFile)
	if g := engine.Current(); g != nil {
		return write(g, f, len(b), off, func(k int) (int, error) { return r.DstreplayWriteAt(b[:k], off) })
	}
	return r.DstreplayWriteAt(b, off)
}

func (fileHook) Sync(f *os.File) error {
	r := any(f).(rawFile)
	if g := engine.Current(); g != nil {
		return sync(g, f, r.DstreplaySync)
	}
	return r.DstreplaySync()
}

func (fileHook) InRun() bool { return engine.Current() != nil }

func (fileHook) Truncating(name string) {
	if g := engine.Current(); g != nil {
		beforeTruncate(g, name)
	}
}
