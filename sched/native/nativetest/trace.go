package nativetest

import (
	"runtime"
	"strconv"
	"strings"
)

// A failure message can carry a call trace of its own: testify's assertions
// write an "Error Trace:" block, a line per frame from the assertion's
// caller outwards, which they stop at the test's function (a frame named
// TestXxx) or at testing.tRunner. Under Wrap the test's function is a
// closure run by the scheduler, so the walk goes on below it, through the
// harness, the engine and the runtime's coroutines, and the block lists
// their files as if they were the test's. untrace drops those lines: the
// block lists the lines of the user's code, as under go test.

// untrace returns msg without the lines of a call trace in it that name a
// frame of the calling goroutine below the user's outermost frame (the
// tool's frames that run the test, and the runtime's under them).
func untrace(msg string) string {
	if !strings.Contains(msg, "Error Trace:") {
		return msg
	}
	below := framesBelowUser()
	if len(below) == 0 {
		return msg
	}
	lines := strings.SplitAfter(msg, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if below[strings.TrimSpace(l)] {
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "")
}

// framesBelowUser is the set of file:line of the calling goroutine's
// outermost frames that are not the user's: from its start up to the first
// frame of code that is neither the tool's (its examples are the user's)
// nor the runtime's nor package iter's.
func framesBelowUser() map[string]bool {
	pcs := make([]uintptr, 64)
	for {
		n := runtime.Callers(1, pcs)
		if n < len(pcs) {
			pcs = pcs[:n]
			break
		}
		pcs = make([]uintptr, 2*len(pcs))
	}
	type frame struct{ fn, at string }
	var all []frame
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		all = append(all, frame{f.Function, f.File + ":" + strconv.Itoa(f.Line)})
		if !more {
			break
		}
	}
	below := map[string]bool{}
	i := len(all) - 1
	for ; i >= 0 && toolOrRuntime(all[i].fn); i-- {
		below[all[i].at] = true
	}
	// In a goroutine that the test's code started, go test's trace ends
	// with the runtime's frame that starts every goroutine, as here: it
	// stays. A test's function has no such line: the trace stops at it.
	if last := all[len(all)-1]; i >= 0 && i+1 < len(all) && last.fn == "runtime.goexit" &&
		!strings.HasPrefix(all[i+1].fn, toolPrefix+"sched/native/nativetest.") {
		delete(below, last.at)
	}
	return below
}

// toolPrefix is the tool's module path with a slash, read from a
// function's name, so that it holds in a fork.
var toolPrefix = func() string {
	pc, _, _, _ := runtime.Caller(0)
	name := runtime.FuncForPC(pc).Name()
	i := strings.Index(name, "sched/native/nativetest.")
	if i < 0 {
		return "github.com/dstgo/dst/"
	}
	return name[:i]
}()

// toolOrRuntime reports whether the function fn (a full name) is the
// tool's, but for its examples, or the runtime's or package iter's.
func toolOrRuntime(fn string) bool {
	if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "iter.") {
		return true
	}
	rest, ok := strings.CutPrefix(fn, toolPrefix)
	return ok && !strings.HasPrefix(rest, "examples/") && !strings.Contains(rest, "/testdata/")
}
