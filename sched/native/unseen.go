package native

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/dstgo/dst/internal/engine"
)

// A run keeps Go's channels as they are and stands its own for each (see
// chan.go): what rewritten code sends goes to the run's channel, never to
// Go's. A value found in Go's channel, or a close the run did not make, was
// sent by code the scheduler does not see. The engine looks for them when a
// run is about to end deadlocked or leaking, and reports a misuse instead,
// with the advice below.

func init() { engine.UnseenAdvice = unseenAdvice }

// toolDeps are the modules that the tool's own packages link into a test
// binary (TestToolDeps keeps the list right): never the code that sent.
var toolDeps = []string{"github.com/klauspost/compress", "github.com/petermattis/goid"}

// unseenAdvice names the flag that makes a dependency's sends visible, with
// the modules that dstreplay test did not rewrite and that are likely to
// have sent on a channel of element type elem: the element type's own,
// and the direct requirements of the module under test (a test binary does
// not carry its dependencies' list: its go.mod does).
func unseenAdvice(elem reflect.Type) string {
	rewritten := engine.RewritePatterns(os.Getenv("DST_REWRITTEN"))
	main, reqs := moduleRequirements()
	var not []string
	add := func(mod string) {
		if mod == "" || mod == main || mod+"/" == modulePrefix || slices.Contains(toolDeps, mod) ||
			rewrittenModule(rewritten, mod) || slices.Contains(not, mod) {
			return
		}
		not = append(not, mod)
	}
	for elem != nil && elem.PkgPath() == "" && (elem.Kind() == reflect.Pointer || elem.Kind() == reflect.Slice ||
		elem.Kind() == reflect.Array || elem.Kind() == reflect.Chan) {
		elem = elem.Elem()
	}
	if elem != nil && !standard(elem.PkgPath()) && !strings.HasPrefix(elem.PkgPath(), main+"/") {
		add(elem.PkgPath()) // a package path: the flag below covers its module's package and those under it
	}
	slices.Sort(reqs)
	for _, r := range reqs {
		add(r)
	}
	const advice = "if a dependency sent or closed it, rewrite that dependency too: dstreplay test -rewrite=<its import path>/..."
	if len(not) == 0 {
		return advice
	}
	flags := make([]string, len(not))
	for i, m := range not {
		flags[i] = m + "/..."
	}
	return advice + "; of " + moduleOf(main) + ", these are not rewritten: " + strings.Join(not, ", ") +
		" (dstreplay test -rewrite=" + strings.Join(flags, ",") + " rewrites them)"
}

func moduleOf(main string) string {
	if main == "" {
		return "the module under test's dependencies"
	}
	return main + "'s direct dependencies and the channel's element type"
}

// standard reports whether an import path is the standard library's (its
// first element has no dot), as go list decides for a module's packages.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return path != "" && !strings.Contains(first, ".")
}

// moduleRequirements reads the go.mod of the module that holds the working
// directory (a test binary runs in its package's directory): the module's
// path and its direct requirements, in the file's order.
func moduleRequirements() (main string, reqs []string) {
	dir, err := os.Getwd()
	if err != nil {
		return "", nil
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			return parseGoMod(string(b))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// parseGoMod is the module path and the direct requirements of a go.mod
// file's text (the lines not marked // indirect).
func parseGoMod(text string) (main string, reqs []string) {
	block := false
	for line := range strings.Lines(text) {
		line, comment, _ := strings.Cut(line, "//")
		fields := strings.Fields(line)
		indirect := strings.TrimSpace(comment) == "indirect"
		switch {
		case len(fields) == 0:
		case block && fields[0] == ")":
			block = false
		case block:
			if !indirect {
				reqs = append(reqs, strings.Trim(fields[0], `"`))
			}
		case fields[0] == "module" && len(fields) > 1:
			main = strings.Trim(fields[1], `"`)
		case fields[0] == "require" && len(fields) > 1 && fields[1] == "(":
			block = true
		case fields[0] == "require" && len(fields) > 2 && !indirect:
			reqs = append(reqs, strings.Trim(fields[1], `"`))
		}
	}
	return main, reqs
}

// rewrittenModule reports whether the -rewrite patterns cover the module
// mod, or a package of it.
func rewrittenModule(patterns []string, mod string) bool {
	for _, p := range patterns {
		lit, wild := strings.CutSuffix(p, "...")
		lit = strings.TrimSuffix(lit, "/")
		switch {
		case lit == mod, strings.HasPrefix(lit, mod+"/"):
			return true
		case wild && strings.HasPrefix(mod, lit):
			return true
		}
	}
	return false
}

// callerLine is the file and line of the code that called into this
// package (through iter's coroutines, for a range): "x_test.go:12".
func callerLine() string {
	var pcs [16]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, modulePrefix+"sched/native.") && !strings.HasPrefix(f.Function, "iter.") &&
			!strings.HasPrefix(f.Function, "runtime.") {
			return filepath.Base(f.File) + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return ""
		}
	}
}
