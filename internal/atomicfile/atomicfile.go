// Package atomicfile writes files that a reader, or a crash, sees either
// whole or not at all: the traces of failures, the corpus and crash inputs
// of a hunt, the pages dstreplay writes.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
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

// WriteBytes is Write of b.
func WriteBytes(path string, durable bool, b []byte) error {
	return Write(path, durable, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
