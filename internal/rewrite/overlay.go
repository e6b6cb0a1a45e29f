package rewrite

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/types"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
	Deps     bool      // rewrite every other dependency too, leaving as it is one the rewrite refuses (see Overlay)
	Wrap     bool      // run go test's tests under the scheduler (see Config.Wrap)
	HTTP     bool      // rewrite StdPackages too where they depend on them, leaving native one the rewrite refuses (-wrap's default)
	Env      []string  // the environment of go (nil: this process's)
	Flags    []string  // build flags (-tags, -race, ...)
	CacheDir string    // where rewritten files and the overlay go (cache.go; "": dstreplay/rewrite in os.UserCacheDir)
	Stderr   io.Writer // where a line says that a cache entry was modified and is made again, or that a dependency runs natively (nil: os.Stderr)
}

// Overlay rewrites the packages opts names and returns the path of a go
// build -overlay file that compiles them rewritten, and the number of files
// it replaces. Files on disk are never changed. A construct the rewrite
// cannot carry over, in a package under test, of their module or that
// opts.Rewrite names, is an error listing every such place. In a package
// that only opts.Deps rewrites, it leaves that package as it is (natively
// run), and a line on opts.Stderr names the package and the first place,
// each time the overlay is used.
func Overlay(opts Options) (string, int, error) {
	c, err := openCache(opts)
	if err != nil {
		return "", 0, err
	}
	listing, err := list(opts)
	if err != nil {
		return "", 0, fmt.Errorf("rewrite: %w", err)
	}
	strict, lenient, notes, err := targets(opts, listing)
	if err != nil {
		return "", 0, err
	}
	key, err := cacheKey(opts, listing, strict, lenient)
	if err != nil {
		return "", 0, fmt.Errorf("rewrite: %w", err)
	}
	if path, n, ok, err := c.cached(key); err != nil || ok {
		return path, n, err
	}
	sweep(c.root)
	tested := testedPackages(listing)
	pkgs, err := load(opts, listing, strict, lenient, tested)
	if err != nil {
		return "", 0, err
	}
	isLenient := map[string]bool{}
	for _, t := range lenient {
		isLenient[t] = true
	}
	// A package the rewrite refuses is left native, and the packages
	// that call it are rewritten again knowing it is not rewritten (a
	// channel handed to it is marked), until no other one refuses.
	native := map[string]string{}
	loaded := map[string]bool{}
	for _, p := range pkgs {
		loaded[p.PkgPath] = true
	}
	for _, t := range lenient {
		if !loaded[t] {
			native[t] = "go list does not load it"
		}
	}
	var out *rewritten
	for {
		out = rewriteAll(pkgs, opts, append(slices.Clip(strict), lenient...), native, tested)
		more := false
		for path, errs := range out.errs {
			if isLenient[path] && native[path] == "" {
				native[path] = joinSorted(errs).Error()
				native[path], _, _ = strings.Cut(native[path], "\n")
				more = true
			}
		}
		if !more {
			break
		}
	}
	var errs []error
	for path, e := range out.errs {
		if !isLenient[path] {
			errs = append(errs, e...)
		}
	}
	if len(errs) > 0 {
		return "", 0, joinSorted(errs)
	}
	for _, path := range sortedKeys(native) {
		notes = append(notes, fmt.Sprintf("dstreplay: %s is not rewritten and runs natively: %s", path, native[path]))
	}
	// The modules to copy out of the module cache: those of the packages
	// rewritten by name, and of those opts.Deps rewrote a file of.
	copied := map[string]bool{}
	for _, t := range strict {
		copied[t] = true
	}
	for path := range out.changed {
		copied[path] = true
	}
	replace := map[string]string{}
	modCache, err := goEnv(opts, "GOMODCACHE")
	if err != nil {
		return "", 0, err
	}
	mods := cachedModules(listing, copied)
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
	for _, name := range slices.Sorted(maps.Keys(out.files)) {
		path, err := c.storeAs(out.files[name], ".go")
		if err != nil {
			return "", 0, err
		}
		if c, ok := inCopy(mods, name); ok {
			name = c // the module cache's files cannot be replaced
		} else if err := notInModCache(modCache, name, listing); err != nil {
			return "", 0, err
		}
		replace[name] = path
	}
	added := flagFiles(listing)
	if out.simNet {
		// Simulated sockets as Go's own types (netsim.go). Where they cannot
		// be, code that asserts a listener or a connection to be Go's own
		// type panics on a simulated one: say so before it runs. (Running
		// the network natively instead is no way out: a managed goroutine's
		// Accept then blocks outside the scheduler.)
		files, why := netSim.files(listing, modCache)
		if why != "" {
			notes = append(notes, why)
			if place, typ := concreteNetAssert(pkgs); place != "" {
				notes = append(notes, fmt.Sprintf("dstreplay: %s asserts %s, which a simulated listener or connection is not: "+
					"where it runs it panics, a limit of the simulated network, not a bug of the code", place, typ))
			}
		}
		maps.Copy(added, files)
	}
	// A file's writes through package os itself (ossim.go), wherever the
	// rewrite sends them to sched/simdisk; and a run's timers stopped or
	// reset through an interface, in package time (timesim.go).
	for _, h := range []*stdHooks{osSim, timeSim} {
		files, why := h.files(listing, modCache)
		if why != "" {
			notes = append(notes, why)
		}
		maps.Copy(added, files)
	}
	maps.Copy(added, stdStartFile(listing, slices.DeleteFunc(append(slices.Clip(strict), lenient...), func(p string) bool { return native[p] != "" })))
	for file, text := range added {
		path, err := c.storeAs([]byte(text), ".go")
		if err != nil {
			return "", 0, err
		}
		if c, ok := inCopy(mods, file); ok {
			file = c
		} else if err := notInModCache(modCache, file, listing); err != nil {
			return "", 0, err
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
	sort.Strings(notes)
	if err := c.writeEntry(key, path, notes); err != nil {
		return "", 0, err
	}
	c.say(notes)
	return path, len(out.files), nil
}

// load type-checks the packages to rewrite, in two go list runs: those
// whose tests go test builds with their test variants, and the others
// without (a dependency's tests, which would otherwise be loaded for
// nothing, with the packages only they import). A dependency that only a
// dependency's tests import is not in the main module's pruned module
// graph, and go list refuses it as a root ("updates to go.mod needed"):
// those are loaded with a copy of go.mod that go may update (-modfile).
//
// Updating it changes the module graph: the modules go adds as
// requirements bring the requirements of their own go.mod, which the
// pruned graph of the real build never reads, and those can select other
// versions (a dependency's tests import go.uber.org/goleak v1.3.0, which
// the graph has only through another module's go.mod: required directly,
// its go.mod selects testify v1.8.0 and go-spew v1.1.1 where the build
// uses testify v1.7.0 and go-spew v1.1.0). The copy therefore pins every
// module of the listing to the version the build uses (pins), so that the
// files loaded are those the build compiles, whatever go selects; and
// every loaded package whose files, or whose imports' files, are not the
// build's has an error, which leaves it native, or fails the rewrite
// (notBuilt).
func load(opts Options, listing []listed, strict, lenient []string, tested map[string]bool) ([]*packages.Package, error) {
	var withTests, without []string
	for _, t := range append(slices.Clip(strict), lenient...) {
		if tested[t] {
			withTests = append(withTests, t)
		} else {
			without = append(without, t)
		}
	}
	run := func(patterns []string, tests bool, flags []string) ([]*packages.Package, error) {
		if len(patterns) == 0 {
			return nil, nil
		}
		lc := &packages.Config{
			Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
				packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule,
			Dir: opts.Dir, Env: opts.Env, BuildFlags: append(slices.Clip(opts.Flags), flags...), Tests: tests,
		}
		pkgs, err := packages.Load(lc, patterns...)
		if err != nil {
			return nil, fmt.Errorf("rewrite: loading the packages: %w", err)
		}
		return pkgs, nil
	}
	all, err := run(withTests, true, nil)
	if err != nil {
		return nil, err
	}
	deps, err := run(without, false, nil)
	if err != nil || len(deps) < len(without) {
		if flags, done := tempModFile(opts, pins(listing)); flags != nil {
			defer done()
			deps, err = run(without, false, flags)
		}
	}
	if err != nil {
		return nil, err
	}
	all = append(all, deps...)
	notBuilt(all, listing)
	return all, nil
}

// pins is what the copy of go.mod that load lets go update adds, so that
// every module of the listing stays at the version the build uses: a
// replacement of all its versions by that one ("replace m => m v"). A
// module the main module's go.mod replaces already is left as it is.
func pins(listing []listed) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, p := range listing {
		m := p.Module
		if p.Standard || m == nil || m.Main || m.Version == "" || m.Replace != nil || seen[m.Path] {
			continue
		}
		seen[m.Path] = true
		if b.Len() == 0 {
			b.WriteString("\n// dstreplay test: the versions the build uses\n")
		}
		fmt.Fprintf(&b, "replace %s => %s %s\n", m.Path, m.Path, m.Version)
	}
	return b.String()
}

// notBuilt adds an error to each loaded package that go list loaded from
// another directory than the build's (another version of its module), or
// that imports one, directly or not: its rewrite would be of files, or
// typed with packages, that the build does not compile.
func notBuilt(pkgs []*packages.Package, listing []listed) {
	dirs := map[string]string{} // import path -> its directory in the build
	for _, p := range listing {
		if p.ForTest == "" && !p.Standard && p.Dir != "" {
			dirs[p.ImportPath] = p.Dir
		}
	}
	memo := map[*packages.Package]string{}
	var why func(p *packages.Package) string
	why = func(p *packages.Package) string {
		if w, ok := memo[p]; ok {
			return w
		}
		memo[p] = "" // an import cycle (not in a build that works) ends here
		w := ""
		if want, ok := dirs[p.PkgPath]; ok && p.Dir != "" && p.Dir != want {
			w = fmt.Sprintf("go list loads %s from %s, where the build uses %s", p.PkgPath, p.Dir, want)
		}
		for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
			if w != "" {
				break
			}
			w = why(p.Imports[path])
		}
		memo[p] = w
		return w
	}
	for _, p := range pkgs {
		if w := why(p); w != "" {
			p.Errors = append(p.Errors, packages.Error{Pos: "-", Msg: w, Kind: packages.ListError})
		}
	}
}

// tempModFile is the flags that make go use a copy of the main module's
// go.mod (and go.sum), with extra added to it, that it may update, and a
// function that removes it; nil when there is no go.mod.
func tempModFile(opts Options, extra string) ([]string, func()) {
	goMod, err := mainGoMod(opts)
	if err != nil || goMod == "" || goMod == os.DevNull {
		return nil, nil
	}
	dir, err := os.MkdirTemp("", "dstreplay-modfile-")
	if err != nil {
		return nil, nil
	}
	done := func() { os.RemoveAll(dir) }
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(filepath.Dir(goMod), name))
		if err != nil && name == "go.mod" {
			done()
			return nil, nil
		}
		if name == "go.mod" {
			data = append(data, extra...)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			done()
			return nil, nil
		}
	}
	return []string{"-mod=mod", "-modfile=" + filepath.Join(dir, "go.mod")}, done
}

// netTypes are the types of package net that a simulated listener or
// connection is not.
var netTypes = []string{"TCPListener", "TCPConn", "UnixListener", "UnixConn"}

// concreteNetAssert is the first place, in the packages that are not the
// standard library's, of a type assertion without its ok to a pointer to
// one of netTypes (l.(*net.TCPListener)), which panics on a simulated
// listener or connection, and the type; "" if there is none. One with its
// ok, or a type switch, goes on when it fails.
func concreteNetAssert(pkgs []*packages.Package) (place, typ string) {
	for _, p := range pkgs {
		if p.Module == nil || p.TypesInfo == nil {
			continue // the standard library's
		}
		checked := map[*ast.TypeAssertExpr]bool{}
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
						if ta, ok := ast.Unparen(n.Rhs[0]).(*ast.TypeAssertExpr); ok {
							checked[ta] = true
						}
					}
				case *ast.ValueSpec:
					if len(n.Names) == 2 && len(n.Values) == 1 {
						if ta, ok := ast.Unparen(n.Values[0]).(*ast.TypeAssertExpr); ok {
							checked[ta] = true
						}
					}
				case *ast.TypeAssertExpr:
					if n.Type == nil || checked[n] || place != "" {
						break
					}
					ptr, ok := p.TypesInfo.TypeOf(n.Type).(*types.Pointer)
					if !ok {
						break
					}
					named, ok := ptr.Elem().(*types.Named)
					if ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "net" && slices.Contains(netTypes, named.Obj().Name()) {
						pos := p.Fset.Position(n.Pos())
						place, typ = fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line), "*net."+named.Obj().Name()
					}
				}
				return place == ""
			})
			if place != "" {
				return place, typ
			}
		}
	}
	return "", ""
}

// rewritten is what one pass of the rewrite over the loaded packages made.
type rewritten struct {
	files   map[string][]byte  // the original file's path -> its rewritten text
	changed map[string]bool    // the packages (import paths) a file of which is rewritten
	errs    map[string][]error // by package: what the rewrite refuses, or the package's load errors
	simNet  bool               // the rewritten code's network is simulated (Config.SimNet)
}

// rewriteAll rewrites the files of the loaded packages, but those of the
// packages in native, which the others' rewrite takes for not rewritten.
func rewriteAll(pkgs []*packages.Package, opts Options, targets []string, native map[string]string, tested map[string]bool) *rewritten {
	set := map[string]bool{}
	for _, t := range targets {
		set[t] = native[t] == ""
	}
	// The network is simulated where net/http is rewritten, and where it
	// would be but no package loads it (a test of net.Listen and
	// net.Dial alone); not where it runs natively (refused, or
	// -nativehttp), whose dials would miss the simulated listeners.
	http, loaded := set[StdPackages[0]]
	cfg := Config{Wrap: opts.Wrap, Rewritten: func(path string) bool { return set[path] }, SimNet: http || opts.HTTP && !loaded}
	r := &rewritten{files: map[string][]byte{}, changed: map[string]bool{}, errs: map[string][]error{}, simNet: cfg.SimNet}
	done := map[string]bool{}
	after := map[string]Place{} // by file: the place of the file that follows it, less its own
	for _, p := range pkgs {
		of := testOf(p.ID)
		if of != "" && !tested[of] {
			continue // a dependency's own tests, which go test does not build here
		}
		path := p.PkgPath
		if of != "" {
			path = of // a test variant, or the external test package, fails its package
		}
		if native[path] != "" {
			continue
		}
		for _, e := range p.Errors {
			r.errs[path] = append(r.errs[path], e)
		}
		if len(p.Errors) > 0 || p.TypesInfo == nil {
			continue
		}
		var place Place
		for i, f := range p.Syntax {
			name := p.Fset.File(f.Pos()).Name()
			if done[name] {
				place = place.plus(after[name]) // a file of the package that its test variant has too
				continue
			}
			if i >= len(p.CompiledGoFiles) || !strings.HasSuffix(name, ".go") {
				continue
			}
			done[name] = true
			src, err := os.ReadFile(name)
			if err != nil {
				r.errs[path] = append(r.errs[path], err)
				continue
			}
			fcfg := withVersion(cfg, p)
			fcfg.Place = place
			out, ferrs := File(p.Fset, f, p.TypesInfo, name, src, fcfg)
			for _, e := range ferrs {
				r.errs[path] = append(r.errs[path], e)
			}
			after[name] = Place{}.after(f, out)
			place = place.plus(after[name])
			if out != nil {
				r.files[name] = out
				r.changed[path] = true
			}
		}
	}
	return r
}

// SchedtestPath is the package of the -dst.* flags.
const SchedtestPath = "github.com/dstgo/dst/sched/schedtest"

// flagFile is the name of the file flagFiles adds to a package.
const flagFile = "zz_dstflags_test.go"

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
		files[filepath.Join(p.Dir, flagFile)] = "package " + name + "\n\n// Added by dstreplay test: the -dst.* flags.\nimport _ " + strconv.Quote(SchedtestPath) + "\n"
	}
	return files
}

// targets lists the packages to rewrite: those under test and the packages
// of their module they import, and the dependencies opts.Rewrite matches
// (strict: a construct the rewrite refuses there is an error); and, with
// opts.Deps, every other dependency (lenient: one the rewrite refuses stays
// native). Never the standard library, the tool's own packages, nor what
// those import (the tool links them into the test binary, and they must run
// as written: toolModules), but StdPackages: all of them when
// opts.Rewrite names one (strict), or with opts.HTTP (lenient). A dependency with cgo files stays native, with a
// note saying so. A test variant counts as the package it tests (an
// external test package is loaded with it).
func targets(opts Options, pkgs []listed) (strict, lenient, notes []string, err error) {
	tested := testedPackages(pkgs)
	toolDeps := map[string]bool{}
	for _, p := range pkgs {
		if toolPackage(strings.TrimSuffix(p.ImportPath, ".test")) && p.ForTest == "" {
			for _, d := range p.Deps {
				toolDeps[d] = true
			}
		}
	}
	named := slices.ContainsFunc(StdPackages, func(path string) bool { return matchAny(opts.Rewrite, path) })
	set, cgo := map[string]bool{}, map[string]bool{}
	for _, p := range pkgs {
		path, _, _ := strings.Cut(p.ImportPath, " ")
		if p.ForTest != "" {
			path = p.ForTest
		}
		if p.Standard && (named || opts.HTTP) && slices.Contains(StdPackages, path) {
			set[path] = named
			continue
		}
		if _, seen := set[path]; seen || p.Standard || strings.HasSuffix(path, ".test") || toolPackage(path) {
			continue
		}
		switch {
		case p.Module != nil && p.Module.Main || tested[path] || matchAny(opts.Rewrite, path):
			set[path] = true
		case !opts.Deps || toolDeps[path] || p.Module != nil && slices.Contains(toolModules, p.Module.Path):
		case len(p.CgoFiles) > 0:
			if !cgo[path] { // once, whatever test variants of it go list lists
				cgo[path] = true
				notes = append(notes, fmt.Sprintf("dstreplay: %s is not rewritten and runs natively: it uses cgo", path))
			}
		default:
			set[path] = false
		}
	}
	for _, p := range slices.Sorted(maps.Keys(set)) {
		if set[p] {
			strict = append(strict, p)
		} else {
			lenient = append(lenient, p)
		}
	}
	if len(strict)+len(lenient) == 0 {
		return nil, nil, nil, errors.New("rewrite: no package to rewrite: the patterns match no package of this module")
	}
	return strict, lenient, notes, nil
}

// toolModules are the modules that the packages rewritten code calls (the
// scheduler's) link into a test binary: never rewritten, even when the
// tested packages do not import the tool (TestToolModules keeps the list
// right).
var toolModules = []string{"github.com/klauspost/compress", "github.com/petermattis/goid"}

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
