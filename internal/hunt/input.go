package hunt

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dstgo/dst/internal/atomicfile"
	"github.com/dstgo/dst/internal/schedule"
)

// Input is a schedule to run: a strategy and the entropy it replays. Its
// Recording is replayed per uid and a draw past its values is served fresh
// from Seed (entropy.ReplayThen), as a Schedule with Then set; a nil
// Recording runs fresh from Seed. Its text form (MarshalText) is the input
// file's.
type Input = schedule.Schedule

// ErrBadInput is wrapped by every error about an input file's contents.
var ErrBadInput = schedule.ErrBadText

// name is the file name of an input: a hash of its contents.
func inputName(in Input) string {
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
// file or the whole file. Unlike a durable write (atomicfile) it does not wait for the
// disk: a hunt's corpus changes hundreds of times a second at first, and two
// fsyncs per input kept a worker idle a quarter of the time. After a power
// loss an input may be missing or empty: loading it then fails with an
// error that names the file, to delete.
func WriteInput(dir string, in Input) (string, error) {
	b, err := in.MarshalText()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, inputName(in))
	return path, atomicfile.WriteBytes(path, false, b)
}
