package simdisk

import (
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/dstgo/dst/internal/engine"
)

// Package os itself, where dstreplay test overlays it
// (internal/rewrite/ossim.go): (*os.File).Write, WriteAt and Sync hand over
// to fileHook, which does inside a run what Write, WriteAt and Sync do, so
// that writes through an interface (a bufio.Writer over a file, fmt.Fprintf,
// io.Copy), and those of code the rewrite does not carry over, meet the
// faults and are known to Crash. Without the overlay, only the calls the
// rewrite sends here are.

// rawFile is Go's own writes and syncs of a file, and its OpenFile,
// Rename, Remove, Mkdir, RemoveAll and StartProcess, which the overlay
// adds.
type rawFile interface {
	DstreplayWrite([]byte) (int, error)
	DstreplayWriteAt([]byte, int64) (int, error)
	DstreplaySync() error
	DstreplayOpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	DstreplayRename(oldpath, newpath string) error
	DstreplayRemove(name string) error
	DstreplayMkdir(name string, perm fs.FileMode) error
	DstreplayRemoveAll(path string) error
	DstreplayStartProcess(name string, argv []string, attr *os.ProcAttr) (*os.Process, error)
}

// rawOS is Go's own os, where it is hooked; nil otherwise.
func rawOS() rawFile {
	r, _ := any((*os.File)(nil)).(rawFile)
	return r
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

// testLogFile is the file go test's -test.testlogfile names, if any. The
// testing package writes to it, through a bufio.Writer, under a lock that
// its os.Getenv, os.Open and os.Stat take too: its writes are Go's own,
// never simdisk's, whose work (os.TempDir, for a file's name) would take
// that lock again and wait for ever.
var testLogFile = func() string {
	for i, a := range os.Args {
		for _, flag := range []string{"-test.testlogfile", "--test.testlogfile"} {
			if v, ok := strings.CutPrefix(a, flag+"="); ok {
				return v
			}
			if a == flag && i+1 < len(os.Args) {
				return os.Args[i+1]
			}
		}
	}
	return ""
}()

// managed reports whether f's writes and syncs are simdisk's inside a run
// (all but the test log's).
func managed(f *os.File) bool { return f == nil || testLogFile == "" || f.Name() != testLogFile }

// fileHook is what package os calls for a file's writes and syncs.
type fileHook struct{}

func (fileHook) Write(f *os.File, b []byte) (int, error) {
	r := any(f).(rawFile)
	if g := engine.Current(); g != nil && managed(f) {
		return write(g, f, len(b), -1, func(k int) (int, error) { return r.DstreplayWrite(b[:k]) })
	}
	return r.DstreplayWrite(b)
}

func (fileHook) WriteAt(f *os.File, b []byte, off int64) (int, error) {
	r := any(f).(rawFile)
	if g := engine.Current(); g != nil && managed(f) {
		return write(g, f, len(b), off, func(k int) (int, error) { return r.DstreplayWriteAt(b[:k], off) })
	}
	return r.DstreplayWriteAt(b, off)
}

func (fileHook) Sync(f *os.File) error {
	r := any(f).(rawFile)
	if g := engine.Current(); g != nil && managed(f) {
		return sync(g, f, r.DstreplaySync)
	}
	return r.DstreplaySync()
}

func (fileHook) InRun() bool { return engine.Current() != nil }

// OpenFile records, inside a run, what a truncation loses and what a
// creation makes.
func (fileHook) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	raw := rawOS()
	g := engine.Current()
	if g == nil || flag&(os.O_CREATE|os.O_TRUNC) == 0 {
		return raw.DstreplayOpenFile(name, flag, perm)
	}
	existed := true
	if recording(g) {
		_, err := os.Lstat(name)
		existed = err == nil
	}
	if flag&os.O_TRUNC != 0 {
		beforeTruncate(g, name)
	}
	f, err := raw.DstreplayOpenFile(name, flag, perm)
	if err == nil && !existed {
		changed(g, entryOp{kind: created, path: name})
	}
	return f, err
}

// Rename records, inside a run, the rename and what it replaced.
func (fileHook) Rename(oldpath, newpath string) error {
	raw := rawOS()
	g := engine.Current()
	if g == nil || !recording(g) {
		return raw.DstreplayRename(oldpath, newpath)
	}
	op := entryOp{kind: renamed, path: newpath, from: oldpath}
	op.saved, op.had = durableOf(g, newpath)
	err := raw.DstreplayRename(oldpath, newpath)
	if err == nil {
		changed(g, op)
	}
	return err
}

// Remove records, inside a run, the removal and what it removed.
func (fileHook) Remove(name string) error {
	raw := rawOS()
	g := engine.Current()
	if g == nil || !recording(g) {
		return raw.DstreplayRemove(name)
	}
	op := entryOp{kind: removed, path: name}
	if fi, err := os.Lstat(name); err == nil && fi.IsDir() {
		op.kind, op.mode = removedDir, fi.Mode()
	} else {
		op.saved, op.had = durableOf(g, name)
	}
	err := raw.DstreplayRemove(name)
	if err == nil {
		changed(g, op)
	}
	return err
}

// Mkdir records, inside a run, the directory it made (MkdirAll's and
// MkdirTemp's too, which call it).
func (fileHook) Mkdir(name string, perm fs.FileMode) error {
	raw := rawOS()
	err := raw.DstreplayMkdir(name, perm)
	if g := engine.Current(); g != nil && err == nil && recording(g) {
		changed(g, entryOp{kind: createdDir, path: name})
	}
	return err
}

// RemoveAll records, inside a run, the tree it removed and what its files
// held, durably. A file or an empty directory is Remove's, which
// RemoveAll calls first.
func (fileHook) RemoveAll(path string) error {
	raw := rawOS()
	g := engine.Current()
	if g == nil || !recording(g) {
		return raw.DstreplayRemoveAll(path)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return raw.DstreplayRemoveAll(path)
	}
	op := entryOp{kind: removedTree, path: path, mode: fi.Mode(), tree: savedTree(g, path)}
	err = raw.DstreplayRemoveAll(path)
	if _, gone := os.Lstat(path); gone != nil && len(op.tree) > 0 {
		changed(g, op) // (an empty directory's removal is Remove's)
	}
	return err
}

// Processes. The hooks of package os are this package's, and so is what
// they do for a process a run starts, though it is not the disk's: the
// process is told, in its environment, that it was started in a run
// (engine.ProcessEnv: a test binary then runs its tests natively), the
// run paces its clock to real time until the process has been waited for,
// and waits for one it killed to exit when it ends
// (internal/engine/process.go).

// StartProcess starts the process, inside a run with engine.ProcessEnv
// added to its environment.
func (fileHook) StartProcess(name string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
	raw := rawOS()
	g := engine.Current()
	if g == nil || attr == nil {
		return raw.DstreplayStartProcess(name, argv, attr)
	}
	a := *attr
	env := a.Env
	if env == nil {
		env = os.Environ() // what a nil Env gives the process
	}
	a.Env = append(slices.Clip(env), engine.ProcessEnv+"=1")
	p, err := raw.DstreplayStartProcess(name, argv, &a)
	if err == nil {
		g.ProcessStarted(p.Pid)
	}
	return p, err
}

// Signaled is called when a signal has been sent to the process pid:
// inside a run, one it killed is waited for to exit when the run ends.
func (fileHook) Signaled(pid int, sig os.Signal) {
	if g := engine.Current(); g != nil && sig == os.Kill {
		g.ProcessKilled(pid)
	}
}

// Waited is called when a wait for the process pid returns.
func (fileHook) Waited(pid int) {
	if g := engine.Current(); g != nil {
		g.ProcessWaited(pid)
	}
}
