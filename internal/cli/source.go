package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// The source shown next to events (html's page, the stepper's source
// pane) is read from the files the events' locations name. A trace is
// untrusted input: a location may name /etc/passwd, a private key, a
// device that never ends (/dev/zero) or a FIFO that never answers. So
// every such read goes through a sourceReader, which reads a file only
// when it is
//
//   - named by an absolute path ending in .go, as the runtime names the
//     files of Go functions;
//   - inside one of the allowed roots, both as named and once its symlinks
//     are resolved: the module that holds the trace file, the module of
//     the current directory (the frames of the code under test), the
//     module cache (the frames of dependencies) and GOROOT/src (the frames
//     of the standard library, which locations name by their path in
//     GOROOT);
//   - a regular file (not a device, FIFO, socket or directory), checked
//     before it is opened and again on the opened file, which is opened
//     without blocking and without following a symlink, so a file swapped
//     in between is not read;
//   - at most maxSourceFileSize bytes, read with that limit whatever its size
//     claims.
//
// Otherwise the source is not available, and the page or the pane says
// why, with no content of the file.

// maxSourceFileSize is the largest source file read.
const maxSourceFileSize = 4 << 20

// errSourceTooLarge is the reason for a file larger than maxSourceFileSize.
var errSourceTooLarge = errors.New("file too large")

// sourceReader reads the source files of a trace's locations, from the
// allowed roots only, and keeps what it read (or why it could not).
type sourceReader struct {
	roots   []string // absolute, cleaned, symlinks resolved
	goRoots bool     // the module cache and GOROOT/src are among roots, or need not be
	files   map[string]sourceFile
	limit   int64 // the largest file read: maxSourceFileSize, less in tests
}

// sourceFile is a file's lines, or why there are none.
type sourceFile struct {
	lines []string
	err   error
}

// newSourceReader returns the reader of source for the trace at
// tracePath: its roots are the module that holds the trace, the module of
// the current directory, the module cache and GOROOT/src.
func newSourceReader(tracePath string) *sourceReader {
	s := &sourceReader{files: map[string]sourceFile{}, limit: maxSourceFileSize}
	if abs, err := filepath.Abs(tracePath); err == nil {
		s.addRoot(moduleDir(filepath.Dir(abs)))
	}
	if wd, err := os.Getwd(); err == nil {
		s.addRoot(moduleDir(wd))
	}
	return s
}

// addGoRoots adds the module cache and GOROOT/src to the roots, once: it
// asks the go command, so only when a file outside the modules is named.
func (s *sourceReader) addGoRoots() {
	if s.goRoots {
		return
	}
	s.goRoots = true
	d := goDirs()
	s.addRoot(d.modcache)
	if d.goroot != "" {
		s.addRoot(filepath.Join(d.goroot, "src"))
	}
}

// addRoot adds dir to the allowed roots: absolute, with its symlinks
// resolved. An empty dir, one that does not exist, or the file system's
// root (a go.mod there would allow every file) is not added.
func (s *sourceReader) addRoot(dir string) {
	if dir == "" || !filepath.IsAbs(dir) {
		return
	}
	dir, err := filepath.EvalSymlinks(filepath.Clean(dir))
	if err != nil || filepath.Dir(dir) == dir {
		return
	}
	for _, r := range s.roots {
		if r == dir {
			return
		}
	}
	s.roots = append(s.roots, dir)
}

// moduleDir is the directory of the go.mod that governs dir (dir or its
// nearest parent with one), or "" when there is none.
func moduleDir(dir string) string {
	for {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && st.Mode().IsRegular() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// goDirs is where the module cache and GOROOT are, as the go command says
// (asked once, outside any module, so that no go.mod picks a toolchain), or
// from the environment when the go command cannot say.
var goDirs = sync.OnceValue(func() (d struct{ modcache, goroot string }) {
	cmd := exec.Command("go", "env", "GOMODCACHE", "GOROOT")
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=")
	if out, err := cmd.Output(); err == nil {
		if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) == 2 {
			d.modcache, d.goroot = strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1])
			return d
		}
	}
	d.modcache, d.goroot = os.Getenv("GOMODCACHE"), os.Getenv("GOROOT")
	if d.modcache == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			if home, err := os.UserHomeDir(); err == nil {
				gopath = filepath.Join(home, "go")
			}
		}
		if list := filepath.SplitList(gopath); len(list) > 0 && list[0] != "" {
			d.modcache = filepath.Join(list[0], "pkg", "mod")
		}
	}
	return d
})

// within reports whether path (absolute, cleaned) is inside one of the
// roots.
func (s *sourceReader) within(path string) bool {
	for range 2 {
		for _, r := range s.roots {
			if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) {
				return true
			}
		}
		if s.goRoots {
			break
		}
		s.addGoRoots()
	}
	return false
}

// lines returns file's lines, or why its source is not available (an
// error whose text is the reason, without the file's name, which the
// caller shows escaped).
func (s *sourceReader) lines(file string) ([]string, error) {
	if f, ok := s.files[file]; ok {
		return f.lines, f.err
	}
	lines, err := s.read(file)
	s.files[file] = sourceFile{lines, err}
	return lines, err
}

func (s *sourceReader) read(file string) ([]string, error) {
	switch {
	case file == "":
		return nil, errors.New("no file named")
	case !filepath.IsAbs(file):
		return nil, errors.New("not an absolute path")
	case filepath.Ext(file) != ".go":
		return nil, errors.New("not a Go source file")
	}
	clean := filepath.Clean(file)
	if !s.within(clean) {
		return nil, errors.New("outside the module, the module cache and GOROOT")
	}
	target, err := filepath.EvalSymlinks(clean)
	if err != nil {
		return nil, fmt.Errorf("not on disk: %w", pathReason(err))
	}
	if !s.within(target) || filepath.Ext(target) != ".go" {
		return nil, errors.New("a symlink to a file outside the module, the module cache and GOROOT")
	}
	before, err := os.Lstat(target)
	if err != nil {
		return nil, fmt.Errorf("not on disk: %w", pathReason(err))
	}
	if err := regular(before); err != nil {
		return nil, err
	}
	if before.Size() > s.limit {
		return nil, errSourceTooLarge
	}
	// Not blocking, so that a FIFO swapped in since the check cannot hang
	// the open; not following a symlink swapped in either.
	f, err := os.OpenFile(target, os.O_RDONLY|sourceOpenFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot be opened: %w", pathReason(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot be read: %w", pathReason(err))
	}
	if err := regular(st); err != nil {
		return nil, err
	}
	if !os.SameFile(before, st) {
		return nil, errors.New("the file changed while it was opened")
	}
	b, err := io.ReadAll(io.LimitReader(f, s.limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot be read: %w", pathReason(err))
	}
	if int64(len(b)) > s.limit {
		return nil, errSourceTooLarge
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), nil
}

// regular says why a file of mode st is not read, or nil for a regular
// file.
func regular(st fs.FileInfo) error {
	m := st.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("a directory, not a file")
	case m&fs.ModeNamedPipe != 0:
		return errors.New("a FIFO, not a regular file")
	case m&fs.ModeSocket != 0:
		return errors.New("a socket, not a regular file")
	case m&fs.ModeDevice != 0:
		return errors.New("a device, not a regular file")
	}
	return errors.New("not a regular file")
}

// pathReason is err without the path that *fs.PathError repeats (the
// caller names the file).
func pathReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// sourceNotAvailable is what the page and the pane say for a file whose
// source is not read.
func sourceNotAvailable(err error) string {
	return "source not available: " + err.Error()
}
