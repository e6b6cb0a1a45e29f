package hunt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MergeStats says what MergeCorpus did.
type MergeStats struct {
	Added   int      // inputs written into the corpus
	Present int      // inputs the corpus had already
	Invalid []string // files skipped, each with why
}

// maxInputFile bounds the size of an input file a merge reads: a schedule's
// text is a few kilobytes, a long recording's a few megabytes.
const maxInputFile = 64 << 20

// MergeCorpus adds to the corpus under dst the inputs of the corpus under
// src (another machine's hunt, or a fuzzing cluster's shared corpus), in
// the same layout (<import path>/<test>/<hash>.input): each input file is
// read and checked, and written under its own content hash, so that the
// same schedule found on two machines is one file, and a damaged or foreign
// file is named in Invalid and not copied. Links are not followed. The hunt
// that next uses dst loads them all and keeps what adds coverage, as one
// corpus.
func MergeCorpus(dst, src string) (MergeStats, error) {
	var st MergeStats
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".input") || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		rel, _ := filepath.Rel(src, filepath.Dir(path))
		if !d.Type().IsRegular() {
			st.Invalid = append(st.Invalid, path+": not a regular file")
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > maxInputFile {
			st.Invalid = append(st.Invalid, fmt.Sprintf("%s: larger than %d bytes", path, maxInputFile))
			return nil
		}
		in, err := ReadInput(path)
		if err != nil {
			st.Invalid = append(st.Invalid, err.Error())
			return nil
		}
		dir := filepath.Join(dst, rel)
		if _, err := os.Stat(filepath.Join(dir, inputName(in))); err == nil {
			st.Present++
			return nil
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if _, err := WriteInput(dir, in); err != nil {
			return err
		}
		st.Added++
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) && st.Added+st.Present+len(st.Invalid) == 0 {
		return st, fmt.Errorf("merging the corpus %s: %w", src, err)
	}
	if err != nil {
		return st, fmt.Errorf("merging the corpus %s into %s: %w", src, dst, err)
	}
	return st, nil
}
