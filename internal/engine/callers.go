package engine

import (
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Location is a place in the source.
type Location struct {
	Func string
	File string
	Line int
}

// String formats the location as file:line (function), with the file's
// base name.
func (l Location) String() string {
	if l.File == "" {
		return "?"
	}
	s := filepath.Base(l.File) + ":" + strconv.Itoa(l.Line)
	if l.Func != "" {
		s += " (" + shortFunc(l.Func) + ")"
	}
	return s
}

// shortFunc drops the package path, keeping "pkg.Func".
func shortFunc(f string) string {
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		return f[i+1:]
	}
	return f
}

// modulePath is this module's import path.
var modulePath = strings.TrimSuffix(enginePrefix, "/internal/engine.")

// toolPackages are this module's packages whose frames belong to the tool:
// the shims and what they call ("internal/" covers every package under
// it). Tests, examples and any other package, of this module or another,
// are the code under test.
var toolPackages = []string{"internal/", "sched", "sched/context", "sched/atomic", "sched/native", "sched/native/nativetest", "sched/native/boundary", "sched/simnet", "sched/simdisk",
	"sched/schedtest", "chans", "vtime", "entropy", "trace", "replay"}

// UserCaller is where the calling goroutine's stack first leaves the tool
// and the standard library, as "file:line" (rewritten code's line, a
// test's), or "" when it never does (a goroutine net/http started).
func UserCaller() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if f.File != "" && !ours(f.File, f.Function) && !inGOROOT(f.File) {
			return filepath.Base(f.File) + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return ""
		}
	}
}

// moduleRoot is the directory of this module's source, for the frames of
// the tool's code inlined into a function of the user's (an iterator's
// closure, such as chans.Chan.All's): their function is named after the
// user's, their file is the tool's.
var moduleRoot = func() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// file is <root>/internal/engine/callers.go
	return filepath.Dir(filepath.Dir(filepath.Dir(file))) + "/"
}()

// ours reports whether a frame (its file and function) belongs to the tool
// or the runtime rather than to the code under test: by the package of its
// function, or by the directory of its file (or its name, for the file
// the overlay adds to a standard package). iter.Pull's frames count as the
// runtime's: they run every managed goroutine.
func ours(file, function string) bool {
	pkg := funcPackage(function)
	if pkg == "runtime" || pkg == "iter" || filepath.Base(file) == OverlayFile {
		return true
	}
	if strings.HasSuffix(file, "_test.go") {
		return false
	}
	if rest, ok := strings.CutPrefix(pkg, modulePath+"/"); ok && toolPackage(rest) {
		return true
	}
	rest, ok := strings.CutPrefix(file, moduleRoot)
	return ok && moduleRoot != "" && toolPackage(filepath.ToSlash(filepath.Dir(rest)))
}

// OverlayFile is the name of the file dstreplay test's overlay adds to a
// standard package (net, os) for its hooks: the tool's code.
const OverlayFile = "zz_dstreplay_sim.go"

// toolPackage reports whether dir, relative to the module's root, is one of
// toolPackages.
func toolPackage(dir string) bool {
	for _, p := range toolPackages {
		if dir == p || strings.HasSuffix(p, "/") && strings.HasPrefix(dir+"/", p) {
			return true
		}
	}
	return false
}

// funcPackage is the import path of the package of a function as the
// runtime names it, such as "example.com/m/pkg.(*T).Method[...]".
func funcPackage(function string) string {
	if i := strings.IndexByte(function, '['); i >= 0 {
		function = function[:i] // type arguments name other packages
	}
	dir := ""
	if i := strings.LastIndexByte(function, '/'); i >= 0 {
		dir, function = function[:i+1], function[i+1:]
	}
	if i := strings.IndexByte(function, '.'); i >= 0 {
		function = function[:i]
	}
	return dir + function
}

// callerLoc returns where the first frame outside the tool is. It costs
// about as much as a goroutine switch, so it is only used in detail mode.
// The location is resolved here, from the whole stack: a PC alone, resolved
// later, would land inside a shim's inlined body.
func callerLoc() *Location {
	var pcs [24]uintptr
	n := runtime.Callers(3, pcs[:])
	return frameWhere(pcs[:n], func(f *runtime.Frame) bool { return !ours(f.File, f.Function) })
}

// frameWhere is the location of the first of the frames of pcs (as
// runtime.Callers gives them) that keep accepts, or nil.
func frameWhere(pcs []uintptr, keep func(*runtime.Frame) bool) *Location {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if keep(&f) {
			return &Location{Func: f.Function, File: f.File, Line: f.Line}
		}
		if !more {
			return nil
		}
	}
}

// Helper marks the function that called a test helper's Helper method (the
// first caller outside the tool) as a helper of the run: the failures it
// reports are placed at its caller's line, as go test places them.
func (g *G) Helper() {
	var pcs [24]uintptr
	n := runtime.Callers(2, pcs[:])
	l := frameWhere(pcs[:n], func(f *runtime.Frame) bool { return !ours(f.File, f.Function) })
	if l == nil {
		return
	}
	r := g.run
	r.helperMu.Lock()
	if !slices.Contains(r.helpers, l.Func) {
		r.helpers = append(r.helpers, l.Func)
	}
	r.helperMu.Unlock()
}

// failLoc is where a failure reported through the tool was reported: the
// first frame outside the tool and the run's helpers (callerLoc's caller's
// caller, as for callerLoc).
func (r *Run) failLoc() *Location {
	var pcs [64]uintptr
	n := runtime.Callers(3, pcs[:])
	r.helperMu.Lock()
	defer r.helperMu.Unlock()
	return frameWhere(pcs[:n], func(f *runtime.Frame) bool {
		return !ours(f.File, f.Function) && !slices.Contains(r.helpers, f.Function)
	})
}

// entryFunc is the function of the user's that the calling goroutine
// runs: the outermost frame of its stack outside the tool, as a goroutine
// profile's "created by" line names the frame above it.
func entryFunc() string {
	var pcs [128]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	entry := ""
	for {
		f, more := frames.Next()
		if !ours(f.File, f.Function) {
			entry = f.Function
		}
		if !more {
			return entry
		}
	}
}

// loc dereferences an optional location.
func loc(l *Location) Location {
	if l == nil {
		return Location{}
	}
	return *l
}
