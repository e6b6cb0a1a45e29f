package native

import (
	"maps"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// The rewrite adds function literals to the program (a test's body under
// -wrap becomes one, so do some go statements), which renames the closures
// that follow them: TestX.func3 becomes TestX.func1.3. Code that names
// functions at run time (runtime.FuncForPC(pc).Name(), a runtime.Frame's
// Function) gets the names of the program as written: each rewritten file
// registers the names its closures have and the original ones (FuncNames),
// and FuncName and Function give the original name for a registered one.
// Names are a property of the code, not of a run: inside a run and outside
// one the answer is the same.

var funcNames struct {
	mu   sync.Mutex
	all  map[string]string                 // full rewritten name -> full original name, under mu
	read atomic.Pointer[map[string]string] // a copy of all for lookups without the lock; nil when all has changed
}

// FuncNames registers table, from the names of the closures of a
// rewritten file to those they have in the original file, both without
// the package's path. It is called from a package-level variable's
// initializer, so from the package's init function, which gives the path;
// it panics if called from another function. It returns nothing of use,
// for var _ = FuncNames(...).
func FuncNames(table map[string]string) struct{} {
	pc, _, _, _ := runtime.Caller(1)
	caller := runtime.FuncForPC(pc).Name()
	prefix, ok := strings.CutSuffix(caller, ".init")
	prefix += "."
	if !ok {
		panic("native: FuncNames called from " + caller + ", not from a package's initialization")
	}
	funcNames.mu.Lock()
	defer funcNames.mu.Unlock()
	if funcNames.all == nil {
		funcNames.all = make(map[string]string, len(table))
	}
	for k, v := range table {
		funcNames.all[prefix+k] = prefix + v
	}
	funcNames.read.Store(nil)
	return struct{}{}
}

// FuncName is f.Name(): the name of the function, as the original program
// names it.
func FuncName(f *runtime.Func) string {
	return Function(f.Name())
}

// Function is name, a function's name as the runtime reports it (a
// runtime.Frame's Function), as the original program names it.
func Function(name string) string {
	m := funcNames.read.Load()
	if m == nil { // registered since the last lookup: at initialization
		funcNames.mu.Lock()
		if m = funcNames.read.Load(); m == nil {
			c := maps.Clone(funcNames.all)
			m = &c
			funcNames.read.Store(m)
		}
		funcNames.mu.Unlock()
	}
	if original, ok := (*m)[name]; ok {
		return original
	}
	return name
}
