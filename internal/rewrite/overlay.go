package rewrite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Options say which packages to rewrite for a go test run.
type Options struct {
	Dir      string    // where go runs (the module under test)
	Patterns []string  // the packages to test: they and every package of their module they import are rewritten
	Rewrite  []string  // import path patterns (with ...) of dependencies to rewrite too
	Wrap     bool      // run go test's tests under the scheduler (see Config.Wrap)
	Env      []string  // the environment of go (nil: this process's)
	Flags    []string  // build flags (-tags, -race, ...)
	CacheDir string    // where rewritten files and the overlay go (cache.go; "": dstreplay/rewrite in os.UserCacheDir)
	Stderr   io.Writer // where a line says that a cache entry was modified and is made again (nil: os.Stderr)
}

// Overlay rewrites the packages opts names and returns the path of a go
// build -overlay file that compiles them rewritten, and the number of files
// it replaces. Files on disk are never changed. A construct the rewrite
// cannot carry over is an error listing every such place.
func Overlay(opts Options) (string, int, error) {
	c, err := openCache(opts)
	if err != nil {
		return "", 0, err
	}
	listing, err := list(opts)
	if err != nil {
		return "", 0, fmt.Errorf("rewrite: %w", err)
	}
	key, err := cacheKey(opts, listing)
	if err != nil {
		return "", 0, fmt.Errorf("rewrite: %w", err)
	}
	if path, n, ok, err := c.cached(key); err != nil || ok {
		return path, n, err
	}
	sweep(c.root)
	targets, err := targets(opts, listing)
	if err != nil {
		return "", 0, err
	}
	lc := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule,
		Dir: opts.Dir, Env: opts.Env, BuildFlags: opts.Flags, Tests: true,
	}
	pkgs, err := packages.Load(lc, targets...)
	if err != nil {
		return "", 0, fmt.Errorf("rewrite: loading the packages: %w", err)
	}
	rewritten := map[string]bool{}
	for _, t := range targets {
		rewritten[t] = true
	}
	cfg := Config{Wrap: opts.Wrap, Rewritten: func(path string) bool { return rewritten[path] }}
	replace := map[string]string{}
	mods := cachedModules(listing, rewritten)
	if len(mods) > 0 {
		goMod, err := mainGoMod(opts)
		if err != nil {
			return "", 0, err
		}
		text, err := c.copyModules(mods, goMod)
		if err != nil {
			return "", 0, err
		}
		path, err := c.storeAs([]byte(text), ".mod")
		if err != nil {
			return "", 0, err
		}
		replace[goMod] = path
	}
	files := 0
	done := map[string]bool{}
	var errs []error
	tested := testedPackages(listing)
	for _, p := range pkgs {
		if of := testOf(p.ID); of != "" && !tested[of] {
			continue // a dependency's own tests, which go test does not build here
		}
		for _, e := range p.Errors {
			errs = append(errs, e)
		}
		if len(p.Errors) > 0 || p.TypesInfo == nil {
			continue
		}
		for i, f := range p.Syntax {
			name := p.Fset.File(f.Pos()).Name()
			if done[name] || i >= len(p.CompiledGoFiles) || !strings.HasSuffix(name, ".go") {
				continue
			}
			done[name] = true
			src, err := os.ReadFile(name)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out, ferrs := File(p.Fset, f, p.TypesInfo, name, src, withVersion(cfg, p))
			for _, e := range ferrs {
				errs = append(errs, e)
			}
			if out == nil {
				continue
			}
			path, err := c.storeAs(out, ".go")
			if err != nil {
				return "", 0, err
			}
			if c, ok := inCopy(mods, name); ok {
				name = c // the module cache's files cannot be replaced
			}
			replace[name] = path
			files++
		}
	}
	if len(errs) > 0 {
		return "", 0, joinSorted(errs)
	}
	for file, text := range flagFiles(listing) {
		path, err := c.storeAs([]byte(text), ".go")
		if err != nil {
			return "", 0, err
		}
		if c, ok := inCopy(mods, file); ok {
			file = c
		}
		replace[file] = path
	}
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return "", 0, err
	}
	path, err := c.storeAs(data, ".json")
	if err != nil {
		return "", 0, err
	}
	if err := c.writeEntry(key, path); err != nil {
		return "", 0, err
	}
	return path, files, nil
}

// SchedtestPath is the package of the -dst.* flags.
const SchedtestPath = "github.com/dstgo/dst/sched/schedtest"

// flagFiles are test files to add, by path, so that the test binary of each
// package under test takes the -dst.* flags dstreplay test passes on, even
// when its tests never reach the scheduler (a package with only benchmarks,
// or whose tests -wrap leaves as they are): go test fails a binary given a
// flag it does not define.
func flagFiles(pkgs []listed) map[string]string {
	byPath := map[string]listed{}
	for _, p := range pkgs {
		if p.ForTest == "" {
			byPath[p.ImportPath] = p
		}
	}
	files := map[string]string{}
	for _, main := range pkgs {
		tested, ok := strings.CutSuffix(main.ImportPath, ".test")
		p, found := byPath[tested]
		if !ok || !found || toolPackage(tested) || len(p.TestGoFiles)+len(p.XTestGoFiles) == 0 {
			continue
		}
		name := p.Name
		if len(p.TestGoFiles) == 0 {
			name += "_test"
		}
		files[filepath.Join(p.Dir, "zz_dstflags_test.go")] = "package " + name + "\n\n// Added by dstreplay test: the -dst.* flags.\nimport _ " + strconv.Quote(SchedtestPath) + "\n"
	}
	return files
}

// targets lists the packages to rewrite: those under test, the packages of
// their module they import, and the dependencies opts.Rewrite matches; never
// the standard library, nor the tool's own packages. A test variant counts
// as the package it tests (an external test package is loaded with it).
func targets(opts Options, pkgs []listed) ([]string, error) {
	set := map[string]bool{}
	for _, p := range pkgs {
		path, _, _ := strings.Cut(p.ImportPath, " ")
		if p.ForTest != "" {
			path = p.ForTest
		}
		if p.Standard || strings.HasSuffix(path, ".test") || toolPackage(path) {
			continue
		}
		if p.Module != nil && p.Module.Main || matchAny(opts.Rewrite, path) {
			set[path] = true
		}
	}
	if len(set) == 0 {
		return nil, errors.New("rewrite: no package to rewrite: the patterns match no package of this module")
	}
	list := make([]string, 0, len(set))
	for p := range set {
		list = append(list, p)
	}
	sort.Strings(list)
	return list, nil
}

// testedPackages is the set of the packages whose tests go test builds:
// those the listing has test variants for.
func testedPackages(pkgs []listed) map[string]bool {
	set := map[string]bool{}
	for _, p := range pkgs {
		if of := testOf(p.ImportPath); of != "" {
			set[of] = true
		}
	}
	return set
}

// testOf is, for the ID of a package built only for a test ("p [q.test]",
// "p_test [q.test]", or the test's main "q.test"), the package q whose test
// it is; "" for any other package.
func testOf(id string) string {
	if i := strings.Index(id, " ["); i >= 0 && strings.HasSuffix(id, "]") {
		id = id[i+2 : len(id)-1]
	}
	q, _ := strings.CutSuffix(id, ".test")
	if q == id {
		return ""
	}
	return q
}

// toolPackage reports whether path is one of this tool's packages (its
// examples and its tests' data are code under test).
func toolPackage(path string) bool {
	rest, ok := strings.CutPrefix(path, "github.com/dstgo/dst/")
	return ok && !strings.HasPrefix(rest, "examples/") && !strings.Contains(rest, "/testdata/") || path == "github.com/dstgo/dst"
}

// matchAny reports whether an import path matches one of the patterns, as
// go list's ... wildcard does.
func matchAny(patterns []string, path string) bool {
	for _, p := range patterns {
		if p == path {
			return true
		}
		if prefix, ok := strings.CutSuffix(p, "/..."); ok && (path == prefix || strings.HasPrefix(path, prefix+"/")) {
			return true
		}
		if prefix, ok := strings.CutSuffix(p, "..."); ok && strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}

func joinSorted(errs []error) error {
	msgs := make([]string, 0, len(errs))
	seen := map[string]bool{}
	for _, e := range errs {
		if s := e.Error(); !seen[s] {
			seen[s] = true
			msgs = append(msgs, s)
		}
	}
	sort.Strings(msgs)
	return errors.New(strings.Join(msgs, "\n"))
}

// EnvMarker is the environment variable dstreplay test sets for go test, so
// that the harness prints reproduce lines that rewrite too.
const EnvMarker = "DST_REWRITTEN"

// withVersion is cfg with the language version of p's module, which the
// loader does not give the type checker when the module's go.mod has no go
// directive: the go command compiles such a module at go1.16.
func withVersion(cfg Config, p *packages.Package) Config {
	if m := p.Module; m != nil {
		cfg.GoVersion = "go1.16"
		if m.GoVersion != "" {
			cfg.GoVersion = "go" + m.GoVersion
		}
	}
	return cfg
}
