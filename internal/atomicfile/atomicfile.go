// Package atomicfile writes files that a reader, or a crash, sees either
// whole or not at all: the traces of failures, the corpus and crash inputs
// of a hunt, the pages dstreplay writes.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Write creates or replaces the file at path (mode 0644, creating its
// directory) with what write writes. It writes a temporary file in the same
// directory and renames it over path once write returned nil, so that path
// is never half written; the temporary file is removed on any error. With
// durable set, the file and the directory are synced to the disk before
// Write returns, so that the new file also survives a machine crash.
func Write(path string, durable bool, write func(io.Writer) error) error {
	if err := write1(path, durable, write); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func write1(path string, durable bool, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, tempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, a no-op
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	if durable {
		if d, err := os.Open(dir); err == nil {
			d.Sync() // best effort: not every file system syncs directories
			d.Close()
		}
	}
	return nil
}

// tempPrefix starts the name of every temporary file Write creates:
// ".tmp-<base name>-<random digits>", hidden, in the directory of the file
// it replaces.
const tempPrefix = ".tmp-"

// IsTemp reports whether the base name name is that of a temporary file
// Write creates. A process killed between the creation and the rename
// leaves one behind (see RemoveStale).
func IsTemp(name string) bool {
	_, ok := tempOf(name)
	return ok
}

// tempOf is the base name of the file that the temporary file name was
// created for: ".tmp-x.trace-123" is x.trace's.
func tempOf(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, tempPrefix)
	i := strings.LastIndexByte(rest, '-')
	if !ok || i < 1 || i == len(rest)-1 {
		return "", false
	}
	for _, c := range rest[i+1:] {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return rest[:i], true
}

// RemoveStale removes from dir the temporary files Write left there for
// files whose names end in ext (a process killed during a write leaves
// one) that were last modified at least age ago, and returns their paths.
// A younger one may be another process's write under way: Write keeps its
// temporary file a short time, modifying it as it writes. Only regular
// files whose names IsTemp accepts are removed, never a directory or a
// symbolic link, and only those of files ending in ext, so that a file of
// the user's that happens to look like one (".tmp-notes-2024") stays. A
// dir that does not exist holds nothing to remove.
func RemoveStale(dir string, age time.Duration, ext string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("removing stale temporary files: %w", err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if base, ok := tempOf(e.Name()); !ok || len(base) <= len(ext) || !strings.HasSuffix(base, ext) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // gone since ReadDir: another process renamed or removed it
		}
		if time.Since(info.ModTime()) < age {
			continue
		}
		path := filepath.Join(dir, e.Name())
		switch err := os.Remove(path); {
		case err == nil:
			removed = append(removed, path)
		case !errors.Is(err, fs.ErrNotExist):
			errs = append(errs, fmt.Errorf("removing the stale temporary file %s: %w", path, err))
		}
	}
	return removed, errors.Join(errs...)
}

// WriteBytes is Write of b.
func WriteBytes(path string, durable bool, b []byte) error {
	return Write(path, durable, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
