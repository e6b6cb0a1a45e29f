// Package gotest holds what the harness and dstreplay both need to know
// about invoking go test, so that a reproduce line and dstreplay exec select
// a test the same way, and so that what a trace names (a package, a test)
// reaches the go command as data, never as a flag, a file or a pattern.
package gotest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// RunPattern is the -run pattern that matches exactly the test (or subtest)
// called name, as t.Name() spells it. Each part is quoted and anchored, so
// the pattern begins with ^ and never reads as a flag.
func RunPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// metaPackages are the go command's reserved package names, which name sets
// of packages (go help packages).
var metaPackages = map[string]bool{"all": true, "std": true, "cmd": true, "tool": true, "work": true}

// CheckPackage reports why path cannot be given to the go command as one
// ordinary package named by its import path, or nil: it must be an import
// path (the grammar of golang.org/x/mod/module.CheckImportPath: ASCII
// letters, digits and - . _ ~ + in non-empty elements; here also no element
// beginning with a dot or a dash, so no relative path and no flag), and
// not a pattern with "...", a meta-package (all, std, cmd, tool, work), a
// file (a name ending in .go, which the go command reads as a file) or the
// go command's command-line-arguments.
func CheckPackage(path string) error {
	switch {
	case strings.Contains(path, "..."):
		return errors.New("it is a pattern (it contains ...), not one package")
	case metaPackages[path]:
		return fmt.Errorf("%q is the go command's name for a set of packages, not one package", path)
	case path == "command-line-arguments":
		return errors.New("it is the go command's name for files given on its command line, not an import path")
	case strings.HasSuffix(path, ".go"):
		return errors.New("it ends in .go, which the go command reads as a file")
	}
	return checkImportPath(path)
}

// CheckPattern reports why p is not a package pattern of the kind
// dstreplay test -rewrite takes, or nil: an import path (see CheckPackage),
// optionally ending in "/..." (the path and the packages beneath it) or in
// "..." (every path it begins).
func CheckPattern(p string) error {
	prefix, ok := strings.CutSuffix(p, "/...")
	if !ok {
		prefix, _ = strings.CutSuffix(p, "...")
	}
	if strings.Contains(prefix, "...") {
		return errors.New("... may only end a pattern")
	}
	if prefix == "" {
		return errors.New("it matches every package")
	}
	return checkImportPath(prefix)
}

// checkImportPath reports why path is not an import path, or nil.
func checkImportPath(path string) error {
	switch {
	case !utf8.ValidString(path):
		return errors.New("it is not valid UTF-8")
	case path == "":
		return errors.New("it is empty")
	case path[0] == '-':
		return errors.New("it begins with '-', as a flag does")
	case path[0] == '/' || path[0] == '\\':
		return errors.New("it is an absolute file path")
	}
	for _, elem := range strings.Split(path, "/") {
		if err := checkElem(elem); err != nil {
			return err
		}
	}
	return nil
}

// checkElem reports why elem is not an element of an import path, or nil.
func checkElem(elem string) error {
	switch {
	case elem == "":
		return errors.New("it has an empty element (a double, leading or trailing slash)")
	case elem[0] == '.':
		return fmt.Errorf("its element %q begins with a dot (a relative path, or a directory the go command ignores)", elem)
	case elem[len(elem)-1] == '.':
		return fmt.Errorf("its element %q ends with a dot", elem)
	case elem[0] == '-':
		return fmt.Errorf("its element %q begins with '-'", elem)
	}
	for _, r := range elem {
		if !importPathRune(r) {
			return fmt.Errorf("it has the character %q, which import paths do not", r)
		}
	}
	return nil
}

// importPathRune reports whether r may appear in an import path element
// (x/mod/module's importPathOK).
func importPathRune(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' ||
		r == '-' || r == '.' || r == '_' || r == '~' || r == '+'
}

// testPrefixes are the prefixes of the functions go test runs.
var testPrefixes = []string{"Test", "Benchmark", "Fuzz", "Example"}

// CheckTestName reports why name is not the name of a test as t.Name()
// spells it, or nil: a test function's name (TestXxx, BenchmarkXxx,
// FuzzXxx, ExampleXxx: a Go identifier, not a lowercase letter after the
// prefix) and, after slashes, non-empty subtest names of printable
// characters and no white space (the testing package rewrites spaces to _
// and quotes other characters). RunPattern quotes each part.
func CheckTestName(name string) error {
	if !utf8.ValidString(name) {
		return errors.New("it is not valid UTF-8")
	}
	top, subs, _ := strings.Cut(name, "/")
	if !isTestFunc(top) {
		return fmt.Errorf("%q is not a test function's name (TestXxx, BenchmarkXxx, FuzzXxx or ExampleXxx)", top)
	}
	if subs == "" && !strings.Contains(name, "/") {
		return nil
	}
	for _, sub := range strings.Split(subs, "/") {
		if sub == "" {
			return errors.New("it has an empty subtest name")
		}
		for _, r := range sub {
			if !unicode.IsPrint(r) || unicode.IsSpace(r) {
				return fmt.Errorf("its subtest name %q has the character %q: subtest names hold no control, space or unprintable characters", sub, r)
			}
		}
	}
	return nil
}

// isTestFunc reports whether name is a name go test runs a function by.
func isTestFunc(name string) bool {
	for _, prefix := range testPrefixes {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		if rest != "" {
			if r, _ := utf8.DecodeRuneInString(rest); unicode.IsLower(r) {
				return false
			}
		}
		for _, r := range rest {
			if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return false
			}
		}
		return true
	}
	return false
}

// TimeoutEnv names the variable that tells a child process of a test
// binary the -timeout go test gave the process that started it: a wrapped
// test's virtual timeout is that, in the child too.
const TimeoutEnv = "DST_GOTEST_TIMEOUT"

// Timeout is the -timeout go test gave this test binary (0: none), or, in
// a child process the harness started (TimeoutEnv set), its parent's; ok
// is false outside a test binary.
func Timeout() (d time.Duration, ok bool) {
	if s := os.Getenv(TimeoutEnv); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			return max(d, 0), true
		}
	}
	if f := flag.Lookup("test.timeout"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			d, ok := g.Get().(time.Duration)
			return max(d, 0), ok
		}
	}
	return 0, false
}
