package engine

import (
	"path/filepath"
	"runtime"
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

// moduleRoot is the directory of this module's source, so that frames inside
// the tool itself can be skipped when looking for the user's call site.
var moduleRoot = func() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// file is <root>/internal/engine/callers.go
	return filepath.Dir(filepath.Dir(filepath.Dir(file))) + "/"
}()

// ours reports whether a frame (its file and function) belongs to the tool
// or the runtime rather than to the code under test. Tests and examples in
// this module count as user code.
func ours(file, function string) bool {
	if moduleRoot == "" || !strings.HasPrefix(file, moduleRoot) {
		return strings.HasPrefix(function, "runtime.")
	}
	if strings.HasSuffix(file, "_test.go") {
		return false
	}
	return !strings.HasPrefix(file[len(moduleRoot):], "examples/")
}

// callerLoc returns where the first frame outside the tool is. It costs
// about as much as a goroutine switch, so it is only used in detail mode.
// The location is resolved here, from the whole stack: a PC alone, resolved
// later, would land inside a shim's inlined body.
func callerLoc() *Location {
	var pcs [24]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !ours(f.File, f.Function) {
			return &Location{Func: f.Function, File: f.File, Line: f.Line}
		}
		if !more {
			return nil
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
