package fuzzloop

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/atomicfile"
)

// Input is a schedule to run: a strategy and the entropy it replays.
type Input struct {
	Strategy string // "random", "pct" or "pos"
	Depth    int    // PCT's depth
	PCTSteps int    // PCT's change-point range
	// Rec is replayed per uid; a draw past its values is served fresh from
	// Seed (entropy.ReplayThen). Nil runs fresh from Seed.
	Rec  *entropy.Recording
	Seed uint64
}

// inputMagic starts every input file.
const inputMagic = "dst-input 1"

// ErrBadInput is wrapped by every error about an input file's contents.
var ErrBadInput = errors.New("not a valid input file")

// MarshalText encodes in as two lines: a header naming the strategy, and
// the recording's handle.
func (in Input) MarshalText() ([]byte, error) {
	rec := in.Rec
	if rec == nil {
		rec = &entropy.Recording{}
	}
	return fmt.Appendf(nil, "%s strategy=%s depth=%d pctsteps=%d seed=%#x\n%s\n",
		inputMagic, in.Strategy, in.Depth, in.PCTSteps, in.Seed, rec.Handle()), nil
}

// UnmarshalText decodes the output of MarshalText.
func (in *Input) UnmarshalText(b []byte) error {
	header, rest, ok := strings.Cut(string(b), "\n")
	if !ok || !strings.HasPrefix(header, inputMagic+" ") {
		return fmt.Errorf("%w: the first line is not %q", ErrBadInput, inputMagic+" ...")
	}
	var out Input
	for _, field := range strings.Fields(header[len(inputMagic):]) {
		k, v, _ := strings.Cut(field, "=")
		var err error
		switch k {
		case "strategy":
			out.Strategy = v
		case "depth":
			out.Depth, err = strconv.Atoi(v)
		case "pctsteps":
			out.PCTSteps, err = strconv.Atoi(v)
		case "seed":
			out.Seed, err = strconv.ParseUint(v, 0, 64)
		default:
			err = errors.New("unknown field")
		}
		if err != nil {
			return fmt.Errorf("%w: header field %q: %v", ErrBadInput, field, err)
		}
	}
	switch out.Strategy {
	case "random", "pct", "pos":
	default:
		return fmt.Errorf("%w: unknown strategy %q", ErrBadInput, out.Strategy)
	}
	rec, err := entropy.ParseHandle(strings.TrimSpace(rest))
	if err != nil {
		return fmt.Errorf("%w: the recording: %v", ErrBadInput, err)
	}
	out.Rec = rec
	*in = out
	return nil
}

// name is the file name of an input: a hash of its contents.
func (in Input) name() string {
	b, _ := in.MarshalText()
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]) + ".input"
}

// ReadInput reads an input file.
func ReadInput(path string) (Input, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Input{}, err
	}
	var in Input
	if err := in.UnmarshalText(b); err != nil {
		return Input{}, fmt.Errorf("%s: %w", path, err)
	}
	return in, nil
}

// WriteInput writes in to dir under its content hash, atomically, and
// returns the path. A reader, or a process killed at any moment, sees no
// file or the whole file. Unlike WriteFileAtomic it does not wait for the
// disk: a hunt's corpus changes hundreds of times a second at first, and two
// fsyncs per input kept a worker idle a quarter of the time. After a power
// loss an input may be missing or empty: loading it then fails with an
// error that names the file, to delete.
func WriteInput(dir string, in Input) (string, error) {
	b, err := in.MarshalText()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, in.name())
	return path, atomicfile.WriteBytes(path, false, b)
}

// WriteFileAtomic writes b to path so that a reader, or a crash at any
// moment, sees either the old file or the whole new one: it writes a
// temporary file in the same directory, syncs it, renames it over path
// and syncs the directory.
func WriteFileAtomic(path string, b []byte) error { return atomicfile.WriteBytes(path, true, b) }
