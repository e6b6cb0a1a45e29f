package simdisk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/quiet"
	"github.com/dstgo/dst/sched"
)

// A directory's entries, like a file's bytes, are durable once it is
// synced: a file created, renamed or removed since its directory's last
// sync may be back as it was after a crash (FaultLostDirent). The run
// learns of these changes where package os hands them over (hooks.go), so
// only with the overlay's hooks.

// entryOp is a change of a directory's entries that is not durable yet.
type entryOp struct {
	kind       entryKind
	path, from string   // absolute: what was created, renamed to or removed; what a rename renamed
	dirs       []string // the directories whose sync makes it durable
	saved      []byte   // what the file replaced or removed held, durably
	had        bool     // there was such a file
}

type entryKind int

const (
	created entryKind = iota
	renamed
	removed
	removedDir
)

// changed records op, done inside g's run.
//
//go:norace
func changed(g *engine.G, op entryOp) {
	op.path = absolute(op.path)
	op.dirs = []string{filepath.Dir(op.path)}
	if op.kind == renamed {
		op.from = absolute(op.from)
		if d := filepath.Dir(op.from); d != op.dirs[0] {
			op.dirs = quiet.Push(op.dirs, d)
		}
	}
	d := tracker(g)
	d.entries = quiet.Push(d.entries, op)
}

// absolute is path made absolute, as it is when the run records it.
func absolute(path string) string {
	if p, err := filepath.Abs(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// durableOf is what a crash would leave of the regular file at path now:
// what it held at its last sync, or what it holds if the run did not write
// it; had is false when there is no regular file there.
//
//go:norace
func durableOf(g *engine.G, path string) (b []byte, had bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, false
	}
	id, cur, ok := content(path, fi)
	if !ok {
		return nil, false
	}
	d := tracker(g)
	if durable, known := d.files.Get(id); known {
		return quiet.AppendBytes(nil, durable), true
	}
	return cur, true
}

// dirSynced makes durable what changed in the directory dir.
//
//go:norace
func (d *durability) dirSynced(dir string) {
	dir = absolute(dir)
	var kept []entryOp
	for _, op := range d.entries {
		var dirs []string
		for _, x := range op.dirs {
			if x != dir {
				dirs = quiet.Push(dirs, x)
			}
		}
		if len(dirs) > 0 {
			op.dirs = dirs
			kept = quiet.Push(kept, op)
		}
	}
	d.entries = kept
}

// undoEntries undoes, last first, the changes under dir that are not
// durable and that FaultLostDirent picks, with Go's own os.
//
//go:norace
func (d *durability) undoEntries(g *engine.G, dir string) error {
	dir = absolute(dir)
	under := func(p string) bool { return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) }
	raw := rawOS()
	var kept []entryOp
	for i := len(d.entries) - 1; i >= 0; i-- {
		op := d.entries[i]
		if raw == nil || !under(op.path) && !under(op.from) || !sched.Fault(FaultLostDirent) {
			kept = quiet.Push(kept, op)
			continue
		}
		var err error
		var what string
		switch op.kind {
		case created:
			what = "the creation of " + stableName(op.path)
			err = ignoreMissing(raw.DstreplayRemove(op.path))
		case renamed:
			what = fmt.Sprintf("the rename of %s to %s", stableName(op.from), stableName(op.path))
			err = ignoreMissing(raw.DstreplayRename(op.path, op.from))
			if err == nil && op.had {
				err = d.recreate(raw, op.path, op.saved)
			}
		case removed:
			what = "the removal of " + stableName(op.path)
			if op.had {
				err = d.recreate(raw, op.path, op.saved)
			}
		case removedDir:
			what = "the removal of the directory " + stableName(op.path)
			err = os.Mkdir(op.path, 0o755)
		}
		if err != nil {
			return fmt.Errorf("simdisk: crash: undoing %s: %w", what, err)
		}
		g.Log(fmt.Sprintf("simdisk: crash: %s is undone: its directory was not synced since", what))
	}
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	d.entries = kept
	return nil
}

// recreate makes a file at path that holds b, durably.
//
//go:norace
func (d *durability) recreate(raw rawFile, path string, b []byte) error {
	b = quiet.AppendBytes(nil, b) // a copy of its own: b was read by another goroutine
	f, err := raw.DstreplayOpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := any(f).(rawFile).DstreplayWriteAt(b, 0); err != nil {
		return err
	}
	if fi, err := f.Stat(); err == nil {
		if id, _, ok := content(path, fi); ok {
			d.files.Set(id, b)
		}
	}
	return nil
}

// ignoreMissing is err, but nil for a file that is not there.
func ignoreMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
