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
	mode       fs.FileMode
	tree       []treeEntry // what a removed tree held, parents first
}

type entryKind int

const (
	created entryKind = iota
	createdDir
	renamed
	removed
	removedDir
	removedTree
)

// treeEntry is a file, a directory or a symbolic link of a removed tree,
// by its path under the tree's root.
type treeEntry struct {
	rel  string
	mode fs.FileMode
	data []byte // a regular file's durable content; a link's target
	lost bool   // a regular file the run could not keep (larger than MaxTracked)
}

// recording reports whether g's run keeps the changes of directories'
// entries: only a crash with FaultLostDirent undoes them, and keeping
// what a rename or a removal replaced costs a read of it.
func recording(g *engine.G) bool { return g.FaultPossible(FaultLostDirent) && rawOS() != nil }

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

// savedTree is what the tree at root holds, durably, parents first: what a
// crash gives back if its removal is undone.
//
//go:norace
func savedTree(g *engine.G, root string) []treeEntry {
	var tree []treeEntry
	filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || path == root {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		t := treeEntry{rel: rel}
		if fi, err := e.Info(); err == nil {
			t.mode = fi.Mode()
		}
		switch {
		case e.IsDir():
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return nil
			}
			t.data = []byte(target)
		case e.Type().IsRegular():
			var had bool
			t.data, had = durableOf(g, path)
			t.lost = !had
		default:
			return nil // a socket or a pipe: nothing a crash gives back
		}
		tree = quiet.Push(tree, t)
		return nil
	})
	return tree
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
// durable and that FaultLostDirent picks, with Go's own os. dir itself
// stays: it is the machine's disk.
//
//go:norace
func (d *durability) undoEntries(g *engine.G, dir string) error {
	dir = absolute(dir)
	under := func(p string) bool { return strings.HasPrefix(p, dir+string(filepath.Separator)) }
	raw := rawOS()
	var kept []entryOp
	for i := len(d.entries) - 1; i >= 0; i-- {
		op := d.entries[i]
		if raw == nil || !under(op.path) && !under(op.from) || !sched.Fault(FaultLostDirent) {
			kept = quiet.Push(kept, op)
			continue
		}
		what, err := d.undo(g, raw, op)
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

// undo undoes op, with raw (Go's own os), and says what it undid.
//
//go:norace
func (d *durability) undo(g *engine.G, raw rawFile, op entryOp) (what string, err error) {
	switch op.kind {
	case created:
		what = "the creation of " + stableName(op.path)
		err = ignoreMissing(raw.DstreplayRemove(op.path))
	case createdDir:
		what = "the creation of the directory " + stableName(op.path)
		err = raw.DstreplayRemoveAll(op.path)
	case renamed:
		what = fmt.Sprintf("the rename of %s to %s", stableName(op.from), stableName(op.path))
		err = ignoreMissing(raw.DstreplayRename(op.path, op.from))
		if err == nil && op.had {
			err = d.recreate(raw, op.path, op.saved, 0o644)
		}
	case removed:
		what = "the removal of " + stableName(op.path)
		if !op.had {
			what += fmt.Sprintf(" (but it stays removed: not a regular file of at most %d bytes)", MaxTracked)
		} else {
			err = d.recreate(raw, op.path, op.saved, 0o644)
		}
	case removedDir:
		what = "the removal of the directory " + stableName(op.path)
		err = ignoreExisting(raw.DstreplayMkdir(op.path, op.mode.Perm()))
	case removedTree:
		what = "the removal of the tree " + stableName(op.path)
		err = ignoreExisting(raw.DstreplayMkdir(op.path, op.mode.Perm()))
		lost := 0
		for _, t := range op.tree {
			if err != nil {
				break
			}
			p := filepath.Join(op.path, t.rel)
			switch {
			case t.mode.IsDir():
				err = ignoreExisting(raw.DstreplayMkdir(p, t.mode.Perm()))
			case t.mode&fs.ModeSymlink != 0:
				err = os.Symlink(string(t.data), p)
			case t.lost:
				lost++
			default:
				err = d.recreate(raw, p, t.data, t.mode.Perm())
			}
		}
		if lost > 0 {
			what += fmt.Sprintf(" (but for %d files larger than %d bytes, which stay removed)", lost, MaxTracked)
		}
	}
	return what, err
}

// recreate makes a file at path that holds b, durably.
//
//go:norace
func (d *durability) recreate(raw rawFile, path string, b []byte, perm fs.FileMode) error {
	b = quiet.AppendBytes(nil, b) // a copy of its own: b was read by another goroutine
	f, err := raw.DstreplayOpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
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

// ignoreExisting is err, but nil for a file that is there already.
func ignoreExisting(err error) error {
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}

// ignoreMissing is err, but nil for a file that is not there.
func ignoreMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
