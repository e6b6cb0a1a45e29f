package simdisk

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
	"unsafe"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/quiet"
	"github.com/dstgo/dst/sched"
)

// durability is what a run knows of the files it wrote through this
// package: by file (its device and inode, which a rename keeps), the
// content that a crash keeps, which is the content at its last sync, or
// before the run first wrote to it. A file the run did not write through
// this package is not known, and a crash leaves it as it is.
//
// Its state is package quiet's, read and written in norace functions: a
// lock around it that the race detector saw would order every goroutine
// that writes a file after every other, and hide their races, which Go's
// file system does not order. It has no lock at all: a run's goroutines
// run one at a time, and nothing that reads or writes it is a scheduling
// point. A write has none either, since code of Go's own writes to files
// under locks of Go's own (package log's Logger): a switch there would
// leave another goroutine blocked on such a lock, outside the scheduler.
type durability struct {
	files quiet.Table[fileID, []byte]
	// The files written to, each looked at once, and the object that
	// names each in the run's trace, by handle (nil: not a regular file)
	// and by file.
	seen quiet.Table[*os.File, *engine.Obj]
	objs quiet.Table[fileID, *engine.Obj]
	big  quiet.Table[fileID, bool] // the files said to be too large to track
	// The changes of directories' entries not durable yet, in order
	// (entries.go).
	entries []entryOp
}

type fileID struct{ dev, ino uint64 }

var durabilityKey byte

// tracker is g's run's durability, made at its first use.
func tracker(g *engine.G) *durability {
	if d, ok := g.Shadow(unsafe.Pointer(&durabilityKey)).(*durability); ok {
		return d
	}
	d := &durability{}
	g.SetShadow(unsafe.Pointer(&durabilityKey), &durabilityKey, d)
	return d
}

// MaxTracked is the size of the largest file whose content a run keeps
// for Crash: knowing what a file holds costs a read of all of it at the
// run's first write to each handle of it and at each of its syncs. A
// crash leaves a larger file as it is, and the run's log says so.
const MaxTracked = 4 << 20

// content is the identity of the regular file at path, which fi
// describes, and what it holds; ok is false for any other file, one larger
// than MaxTracked, or one that cannot be read.
func content(path string, fi fs.FileInfo) (id fileID, b []byte, ok bool) {
	id, ok = identity(fi)
	if !ok || fi.Size() > MaxTracked {
		return id, nil, false
	}
	b, err := readQuiet(path)
	return id, b, err == nil
}

// identity is the device and inode of the regular file fi describes.
func identity(fi fs.FileInfo) (fileID, bool) {
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat || !fi.Mode().IsRegular() {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}

// untracked forgets what the run knew of the regular file fi describes,
// at path, when it is larger than MaxTracked, and says so once.
//
//go:norace
func (d *durability) untracked(g *engine.G, path string, fi fs.FileInfo) {
	id, ok := identity(fi)
	if !ok || fi.Size() <= MaxTracked {
		return
	}
	d.files.Del(id)
	if !d.big.At(id) {
		d.big.Set(id, true)
		g.Log(fmt.Sprintf("simdisk: %s is larger than %d bytes: a crash leaves it as it is", stableName(path), MaxTracked))
	}
}

// beforeWrite records, before the run's first write to f, what f holds:
// it was on the disk before the run wrote to it. It returns the object
// that names the file in the run's trace; nil if it is not a regular file.
//
//go:norace
func beforeWrite(g *engine.G, f *os.File) *engine.Obj {
	d := tracker(g)
	if o, seen := d.seen.Get(f); seen || f == nil {
		return o
	}
	var o *engine.Obj
	if fi, err := f.Stat(); err == nil {
		d.untracked(g, f.Name(), fi)
		d.keep(f.Name(), fi)
		if id, ok := identity(fi); ok {
			o = d.obj(id, f.Name())
		}
	}
	d.seen.Set(f, o)
	return o
}

// keep records what the file at path, described by fi, holds, unless the
// run knows what is durable of it already (then it reads nothing).
//
//go:norace
func (d *durability) keep(path string, fi fs.FileInfo) {
	if id, ok := identity(fi); !ok {
		return
	} else if _, known := d.files.Get(id); known {
		return
	}
	if id, b, ok := content(path, fi); ok {
		d.files.Set(id, b)
	}
}

// obj is the object that names the file id, at path, in the run's trace.
//
//go:norace
func (d *durability) obj(id fileID, path string) *engine.Obj {
	o := d.objs.At(id)
	if o == nil {
		o = new(engine.Obj)
		o.SetLabel("file " + stableName(path))
		d.objs.Set(id, o)
	}
	return o
}

// beforeTruncate records what the file at path holds, if there is one,
// before it is opened with O_TRUNC (WriteFile).
//
//go:norace
func beforeTruncate(g *engine.G, path string) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	d := tracker(g)
	d.keep(path, fi)
}

// synced records that what f holds now is durable, after a sync that
// lasted took (which the run's trace says): a directory's entries, or a
// file's bytes.
//
//go:norace
func synced(g *engine.G, f *os.File, took time.Duration) {
	fi, err := f.Stat()
	if err != nil {
		return
	}
	if fi.IsDir() {
		d := tracker(g)
		d.dirSynced(f.Name())
		return
	}
	id, regular := identity(fi)
	if !regular {
		return
	}
	id, b, ok := content(f.Name(), fi)
	d := tracker(g)
	if ok {
		d.files.Set(id, b)
	}
	d.untracked(g, f.Name(), fi)
	o := d.obj(id, f.Name())
	g.IO(engine.OpSync, o, engine.KindFile, fi.Size(), 0, took)
}

var tearKey = entropy.KeyOf("simdisk.crash.tear")

// Crash is a power failure of the machine whose files are under dir,
// inside a run: each file under dir that the run wrote through this
// package (Write, WriteString, WriteAt, WriteFile) goes back to what it
// held at its last Sync, or before the run's first write to it if it was
// never synced, but for a part of what was appended since, drawn from the
// entropy, which the disk had written back before the power went (a torn
// write). Files the run did not write this way stay as they are. Where
// package os hands its changes over (the overlay's hooks), a creation,
// rename or removal under dir (of a file, a directory or, by RemoveAll, a
// tree) whose directory was not synced since is undone first, each with FaultLostDirent's probability; without them, or
// with that fault off (its default), directories stay as they are. Stop
// what writes under dir (close its files) first, then start it again on
// dir, as a machine that reboots.
//
// The run's log says what each file lost. Outside a run, Crash is an
// error: nothing is known of what was synced.
//
//go:norace
func Crash(dir string) error {
	g := engine.Current()
	if g == nil {
		return fmt.Errorf("simdisk: Crash(%q) outside a run: only a run knows what was synced", dir)
	}
	d := tracker(g)
	sched.Yield() // a crash may come at any point
	if err := d.undoEntries(g, dir); err != nil {
		return err
	}
	return filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		return d.crashFile(g, path, e)
	})
}

// crashFile is Crash of the regular file at path.
//
//go:norace
func (d *durability) crashFile(g *engine.G, path string, e fs.DirEntry) error {
	fi, err := e.Info()
	if err != nil {
		return err
	}
	id, cur, ok := content(path, fi)
	durable, known := d.files.Get(id)
	if !ok || !known {
		return nil
	}
	kept := quiet.AppendBytes(nil, durable) // a copy of its own: durable was read by another goroutine
	if tail, appended := bytes.CutPrefix(cur, durable); appended && len(tail) > 0 {
		k := g.Source().At(tearKey).IntRange(0, len(tail))
		kept = quiet.AppendBytes(kept, tail[:k])
	}
	d.files.Set(id, kept) // what the machine finds when it starts again
	if bytes.Equal(kept, cur) {
		return nil
	}
	if err := rewind(path, kept); err != nil {
		return fmt.Errorf("simdisk: crash: %w", err)
	}
	g.Log(fmt.Sprintf("simdisk: crash: %s keeps %d of its %d bytes (%d synced)", stableName(path), len(kept), len(cur), len(durable)))
	g.IO(engine.OpCrash, d.obj(id, path), engine.KindFile, int64(len(kept)), int64(len(cur)-len(kept)), 0)
	return nil
}

// rewind makes the file at path hold b, in its own inode, as Go does,
// without this package's faults and records: what a crash finds.
func rewind(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0) // not O_TRUNC: the overlay's os would record it
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(int64(len(b))); err != nil {
		return err
	}
	var write func([]byte, int64) (int, error) = f.WriteAt
	if r, ok := any(f).(rawFile); ok {
		write = r.DstreplayWriteAt
	}
	_, err = write(b, 0)
	return err
}
