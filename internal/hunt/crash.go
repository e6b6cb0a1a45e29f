package hunt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"

	"github.com/dstgo/dst/internal/atomicfile"
	"github.com/dstgo/dst/internal/gotest"
)

// A worker keeps the input it is running in a small file of its own, mapped
// into memory where possible, so that when a fatal error kills the process
// mid-run (a concurrent map write, a stack overflow, an out-of-memory kill)
// the coordinator can still read what killed it.
//
// The file holds a header of three little-endian uint32 words (a magic, the
// length of the input's text, its CRC-32) and the text.

const (
	curMagic  = 0x64737463 // "dstc"
	curHeader = 12
	curSize   = 4 << 20 // the mapping; larger inputs are written with pwrite
)

// CurrentPath is the file where worker keeps the input it is running.
func CurrentPath(corpusDir string, worker int) string {
	return filepath.Join(corpusDir, fmt.Sprintf(".worker-%d.cur", worker))
}

// Current is a worker's current-input file.
type Current struct {
	f   *os.File
	mem []byte // the mapping, or nil
}

// OpenCurrent creates or truncates worker's current-input file.
func OpenCurrent(corpusDir string, worker int) (*Current, error) {
	if err := os.MkdirAll(corpusDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(CurrentPath(corpusDir, worker), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	c := &Current{f: f}
	if err := f.Truncate(curSize); err == nil {
		c.mem, _ = mmap(f, curSize) // nil: fall back to pwrite
	}
	return c, nil
}

// Set records in as the input being run.
func (c *Current) Set(in Input) error {
	text, err := in.MarshalText()
	if err != nil {
		return err
	}
	var h [curHeader]byte
	binary.LittleEndian.PutUint32(h[0:], curMagic)
	binary.LittleEndian.PutUint32(h[4:], uint32(len(text)))
	binary.LittleEndian.PutUint32(h[8:], crc32.ChecksumIEEE(text))
	if c.mem != nil && curHeader+len(text) <= len(c.mem) {
		// The length is written last, after the text and checksum, so a
		// kill mid-copy leaves a header whose checksum does not match.
		binary.LittleEndian.PutUint32(c.mem[4:], 0)
		copy(c.mem[curHeader:], text)
		copy(c.mem[8:12], h[8:12])
		copy(c.mem[0:4], h[0:4])
		copy(c.mem[4:8], h[4:8])
		return nil
	}
	if _, err := c.f.WriteAt(text, curHeader); err != nil {
		return err
	}
	_, err = c.f.WriteAt(h[:], 0)
	return err
}

// Close unmaps and closes the file.
func (c *Current) Close() error {
	if c.mem != nil {
		munmap(c.mem)
		c.mem = nil
	}
	return c.f.Close()
}

// ReadCurrent reads the input a worker was running.
func ReadCurrent(corpusDir string, worker int) (Input, error) {
	path := CurrentPath(corpusDir, worker)
	b, err := os.ReadFile(path)
	if err != nil {
		return Input{}, err
	}
	if len(b) < curHeader || binary.LittleEndian.Uint32(b) != curMagic {
		return Input{}, fmt.Errorf("%s: %w: no input recorded", path, ErrBadInput)
	}
	n := int(binary.LittleEndian.Uint32(b[4:]))
	if n == 0 || curHeader+n > len(b) {
		return Input{}, fmt.Errorf("%s: %w: the length %d does not fit the file", path, ErrBadInput, n)
	}
	text := b[curHeader : curHeader+n]
	if crc32.ChecksumIEEE(text) != binary.LittleEndian.Uint32(b[8:]) {
		return Input{}, fmt.Errorf("%s: %w: checksum mismatch (the worker died while writing it)", path, ErrBadInput)
	}
	var in Input
	if err := in.UnmarshalText(text); err != nil {
		return Input{}, fmt.Errorf("%s: %w", path, err)
	}
	return in, nil
}

// RecoverCrash saves the input worker was running when its process died as
// a failure of test: <failDir>/<test>/crash-<hash>.input, with the process's
// last output beside it (.txt). It returns the input file's path.
func RecoverCrash(corpusDir string, worker int, failDir, test string, output []byte) (string, error) {
	in, err := ReadCurrent(corpusDir, worker)
	if err != nil {
		return "", fmt.Errorf("hunt: recovering the crashing input: %w", err)
	}
	dir := filepath.Join(failDir, strings.ReplaceAll(test, "/", "_"))
	path := filepath.Join(dir, "crash-"+inputName(in))
	text, _ := in.MarshalText()
	if err := atomicfile.WriteBytes(path, true, text); err != nil {
		return "", err
	}
	note := fmt.Sprintf("The worker process running %s died while running the input %s.\n"+
		"Replay it, in the directory of the test's package, with: go test -count=1 -run '%s' -dst.input=%s\n\nIts last output:\n%s",
		test, path, gotest.RunPattern(test), path, output)
	if err := atomicfile.WriteBytes(strings.TrimSuffix(path, ".input")+".txt", true, []byte(note)); err != nil {
		return path, err
	}
	return path, nil
}

var errNoMmap = errors.New("no mmap on this platform")
