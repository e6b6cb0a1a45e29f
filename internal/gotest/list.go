package gotest

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Tests lists the top-level tests of the package in dir in the order go
// test runs them: the package's own _test.go files, then those of its
// external test package, each file in name order and its tests in the
// order they are declared. Files are selected by ctx's build constraints
// (go test's -tags, when not in ctx.BuildTags, may select others: the list
// is what a deadline is shared by, not a promise of what runs).
func Tests(ctx *build.Context, dir string) ([]string, error) {
	pkg, err := ctx.ImportDir(dir, build.ImportComment)
	if err != nil {
		if _, ok := err.(*build.NoGoError); !ok {
			return nil, fmt.Errorf("listing the tests in %s: %w", dir, err)
		}
	}
	var names []string
	fset := token.NewFileSet()
	for _, file := range append(append([]string(nil), pkg.TestGoFiles...), pkg.XTestGoFiles...) {
		path := filepath.Join(dir, file)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("listing the tests in %s: %w", dir, err)
		}
		testing := testingName(f)
		if testing == "" {
			continue
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && isTestDecl(fn, testing) {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names, nil
}

// testingName is the name f imports package testing by, or "" when it does
// not (a dot import is not followed: its tests are not counted).
func testingName(f *ast.File) string {
	for _, spec := range f.Imports {
		if path, err := strconv.Unquote(spec.Path.Value); err != nil || path != "testing" {
			continue
		}
		if spec.Name == nil {
			return "testing"
		}
		if n := spec.Name.Name; n != "_" && n != "." {
			return n
		}
	}
	return ""
}

// isTestDecl reports whether fn is a test go test runs: func TestXxx(t
// *testing.T), with testing the name its file imports the package by.
func isTestDecl(fn *ast.FuncDecl, testing string) bool {
	name := fn.Name.Name
	if fn.Recv != nil || fn.Type.TypeParams != nil || !strings.HasPrefix(name, "Test") || name == "TestMain" || !isTestFunc(name) {
		return false
	}
	if fn.Type.Results.NumFields() != 0 || fn.Type.Params.NumFields() != 1 {
		return false
	}
	star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == testing && sel.Sel.Name == "T"
}

// TopLevel is the selection of top-level tests that go test's -run and
// -skip patterns make, as package testing reads them: each pattern is
// alternatives split at a '|' outside brackets and parentheses, each
// alternative elements split at a '/' likewise; a test runs when an
// alternative of -run has a first element that matches its name (its
// subtests decide the rest), and is skipped when an alternative of -skip
// with one element matches it. A pattern that does not compile selects
// every test (go test has refused it already).
func TopLevel(run, skip string) func(name string) bool {
	runs := firstElements(run, false)
	skips := firstElements(skip, true)
	return func(name string) bool {
		if run != "" && runs != nil && !anyMatch(runs, name) {
			return false
		}
		return skip == "" || !anyMatch(skips, name)
	}
}

// firstElements compiles the first element of each alternative of
// pattern, or, with whole, only of the alternatives that have one element;
// nil when pattern is empty or an element does not compile.
func firstElements(pattern string, whole bool) []*regexp.Regexp {
	if pattern == "" {
		return nil
	}
	var res []*regexp.Regexp
	for _, alt := range splitOutside(pattern, '|') {
		elems := splitOutside(alt, '/')
		if whole && len(elems) > 1 {
			continue
		}
		re, err := regexp.Compile(elems[0])
		if err != nil {
			return nil
		}
		res = append(res, re)
	}
	return res
}

func anyMatch(res []*regexp.Regexp, name string) bool {
	for _, re := range res {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// splitOutside splits s at each sep that is outside brackets and
// parentheses and not escaped by a backslash.
func splitOutside(s string, sep byte) []string {
	var parts []string
	brackets, parens, start := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case c == '[':
			brackets++
		case c == ']' && brackets > 0:
			brackets--
		case brackets > 0:
		case c == '(':
			parens++
		case c == ')' && parens > 0:
			parens--
		case c == sep && parens == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}
