package hunt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Package is a package with tests to hunt, and its test binary.
type Package struct {
	Path string // import path
	Dir  string // the directory its tests run in
	Bin  string // the test binary

	// Where it is built from, and the argument that names it there: its
	// directory and ".", or, listed by import path, the current
	// directory and its path.
	buildDir, buildArg string
}

// Build lists the packages that patterns name (as go test takes them),
// builds their test binaries into tmp and lists the tests that s.Run
// selects; it makes each test's corpus directory. The go command's warnings,
// and notes with s.Verbose, go to log.
func Build(s *Settings, patterns []string, tmp string, log io.Writer) ([]*Test, error) {
	cfg := s
	// A pattern that is a directory is listed, and its packages built,
	// from there, so that a package of another module than the current
	// directory's is found in its own module; the others, from here, by
	// import path, so that a dependency's package is built in this module,
	// with its requirements (those of a -wrap overlay's files among them).
	var pkgs []*Package
	list := func(what, dir string, args []string, byPath bool) error {
		out, err := goCommand(what, dir, append([]string{"list", "-f", listFormat}, args...), log)
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(out)) {
			f := strings.Split(strings.TrimRight(line, "\n"), "\t")
			if len(f) != 4 || f[2] == "0" && f[3] == "0" {
				continue // no test files
			}
			p := &Package{Path: f[0], Dir: f[1], Bin: filepath.Join(tmp, fmt.Sprintf("%d.test", len(pkgs))), buildDir: f[1], buildArg: "."}
			if byPath {
				p.buildDir, p.buildArg = dir, p.Path
			}
			pkgs = append(pkgs, p)
		}
		return nil
	}
	var here []string
	for _, p := range patterns {
		dir, rest := patternDir(p)
		if dir == "" {
			here = append(here, p)
			continue
		}
		if err := list("go list "+p, dir, []string{rest}, false); err != nil {
			return nil, err
		}
	}
	if len(here) > 0 {
		if err := list("go list "+strings.Join(here, " "), "", here, true); err != nil {
			return nil, err
		}
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no test files in %s", strings.Join(patterns, " "))
	}
	if cfg.Verbose {
		fmt.Fprintf(log, "dstreplay hunt: building %d test binaries\n", len(pkgs))
	}
	errs := make([]error, len(pkgs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, p := range pkgs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			argv := []string{"test", "-c", "-o", p.Bin}
			if cfg.Race {
				argv = append(argv, "-race")
			}
			if cfg.Overlay != "" {
				argv = append(argv, "-overlay="+cfg.Overlay)
			}
			_, errs[i] = goCommand("building the tests of "+p.Path, p.buildDir, append(argv, p.buildArg), nil)
			if errs[i] != nil && strings.Contains(errs[i].Error(), NotRequired) {
				errs[i] = fmt.Errorf("%w\n%s", errs[i], NotRequiredHint)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var tests []*Test
	var noHunt []string
	for _, p := range pkgs {
		// -dst.keepgoing: a binary without sched, or with a sched that
		// cannot hunt, rejects it.
		cmd := exec.Command(p.Bin, "-test.list", cfg.Run, "-dst.keepgoing")
		cmd.Dir = p.Dir
		if len(cfg.Env) > 0 {
			cmd.Env = append(os.Environ(), cfg.Env...)
		}
		out, err := cmd.CombinedOutput()
		if err != nil && bytes.Contains(out, []byte("flag provided but not defined: -dst.")) {
			noHunt = append(noHunt, p.Path)
			if cfg.Verbose {
				fmt.Fprintf(log, "dstreplay hunt: %s: its test binary does not take the hunt's -dst flags (no sched, or an old one); left out\n", p.Path)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing the tests of %s: %v\n%s", p.Path, err, out)
		}
		for line := range strings.Lines(string(out)) {
			name := strings.TrimSpace(line)
			if !testName.MatchString(name) {
				continue // a benchmark, example or fuzz test, or other output
			}
			tests = append(tests, NewTest(p, name, filepath.Join(cfg.Corpus, filepath.FromSlash(p.Path), name), failDir(cfg.Dir, p.Dir)))
		}
	}
	if len(noHunt) == len(pkgs) {
		return nil, fmt.Errorf("the test binaries of %s do not take the hunt's -dst flags: their tests do not use sched, or a sched that cannot hunt", strings.Join(noHunt, ", "))
	}
	if len(pkgs) > 1 {
		for _, t := range tests {
			t.Label = path.Base(t.Pkg.Path) + "." + t.Name
		}
	}
	for _, t := range tests {
		if err := os.MkdirAll(t.CorpusDir, 0o755); err != nil {
			return nil, err
		}
	}
	return tests, nil
}

var testName = regexp.MustCompile(`^Test[\p{L}\p{N}_]*$`)

// listFormat is what go list prints of each package for Build.
const listFormat = "{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}"

// patternDir splits a package pattern that names a directory (./x, ../x/...,
// /abs/x) into that directory and the pattern to give go list there ("."
// or "./..."); dir is "" for an import path pattern.
func patternDir(p string) (dir, rest string) {
	if !filepath.IsAbs(p) && p != "." && p != ".." && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") {
		return "", p
	}
	rest = "."
	if d, ok := strings.CutSuffix(p, "/..."); ok {
		p, rest = d, "./..."
	}
	return p, rest
}

// goCommand runs the go command in dir ("" for the current directory), and
// returns its output. Its stderr goes to warn when it succeeds, and into
// the error, after what, when it fails.
// NotRequired is what go says when it cannot build code that imports the
// tool's packages (as the -wrap rewrite's does) in a module that does not
// require them, and NotRequiredHint what to do about it.
const (
	NotRequired     = "no required module provides package github.com/dstgo/dst/"
	NotRequiredHint = "the rewritten code imports github.com/dstgo/dst's packages, which this module does not require: " +
		"run go get -tool github.com/dstgo/dst/cmd/dstreplay@latest here (it adds both), then go tool dstreplay"
)

func goCommand(what, dir string, argv []string, warn io.Writer) ([]byte, error) {
	cmd := exec.Command("go", argv...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", what, err, bytes.TrimRight(stderr.Bytes(), "\n"))
	}
	if warn != nil {
		warn.Write(stderr.Bytes())
	}
	return out, nil
}

// failDir is where the workers of a test in pkgDir save failures: -dir,
// else what the worker takes by default ($DST_DIR, else testdata/dst).
func failDir(dir, pkgDir string) string {
	if dir != "" {
		return dir
	}
	if d := os.Getenv("DST_DIR"); d != "" && d != "off" {
		if filepath.IsAbs(d) {
			return d
		}
		return filepath.Join(pkgDir, d)
	}
	return filepath.Join(pkgDir, "testdata", "dst")
}

// Test is a test being hunted, and what its workers reported.
type Test struct {
	Pkg       *Package
	Name      string
	Label     string // the name in the progress and summary; Name when empty
	CorpusDir string
	FailDir   string

	Execs             int64  // over all its processes
	Failing           int64  // executions that failed, over all its processes
	CorpusSize, Cover int    // the latest report's
	Batches           int    // processes that ended
	Sched             bool   // it reported progress: it calls schedtest.Test
	Running           int    // its worker processes
	Failures          int    // distinct
	Dropped           string // why it was left out; "" while it is hunted
	Out               string // the same, in a few words, for the progress line

	sinceNew  int       // batches since the last one that found new coverage
	crashes   int       // in a row, without progress in between
	notBefore time.Time // after a crash, when to start it again
}

// NewTest returns the test name of pkg, to hunt with its corpus in
// corpusDir and its failures saved under failDir.
func NewTest(pkg *Package, name, corpusDir, failDir string) *Test {
	return &Test{Pkg: pkg, Name: name, CorpusDir: corpusDir, FailDir: failDir, sinceNew: neverNew}
}

// Unreached reports whether t ran under the scheduler and reached no
// scheduling point: its coverage stayed at zero, so there was nothing to
// hunt in it.
func (t *Test) Unreached() bool { return t.Sched && t.Cover == 0 && t.Execs > 0 }

func (t *Test) String() string {
	if t.Label != "" {
		return t.Label
	}
	return t.Name
}
