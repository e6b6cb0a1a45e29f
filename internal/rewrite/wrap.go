package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/go/types/typeutil"
)

// Config says what a file's rewrite does beyond Go's concurrency.
type Config struct {
	// Wrap runs go test's tests under the scheduler: the function of each
	// test (func TestX(t *testing.T) in a _test.go file) and of each fuzz
	// target (f.Fuzz(func(t *testing.T, ...))) becomes the body of
	// nativetest.Wrap, and every other *testing.T of the file a
	// *nativetest.T.
	Wrap bool
	// Rewritten reports whether the package with the given import path is
	// rewritten too (with the same Config); nil means none but the file's
	// own. A channel handed to a function of a package that is not
	// rewritten is marked (native.Given), and under Wrap a *testing.T
	// handed to one is refused.
	Rewritten func(path string) bool
	// SimNet sends net.Listen, net.Dial and the like to the simulated
	// network (package simnet) rather than to package boundary.
	SimNet bool
	// GoVersion is the language version of the file's module ("go1.16"),
	// for a file the type checker gave none (FileVersions); "" is the
	// current one. A module whose go.mod has no go directive, or that has
	// no go.mod, is at go1.16.
	GoVersion string
	// Place is the file's place among its package's files, which the
	// names of its closures count from (funcnames.go).
	Place Place
}

// NativetestPath is the import path of the package wrapped tests call.
const NativetestPath = "github.com/dstgo/dst/sched/native/nativetest"

const (
	nativetestName = "_dstw"
	wrapParam      = "_dstt" // the test's parameter, when it has no usable name
)

// isTestingT reports whether t is *testing.T.
func isTestingT(t types.Type) bool { return isTestingPtr(t, "T") }

// isTestingF reports whether t is *testing.F.
func isTestingF(t types.Type) bool { return isTestingPtr(t, "F") }

// isTestingPtr reports whether t is a pointer to package testing's type
// called name.
func isTestingPtr(t types.Type, name string) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "testing" && n.Obj().Name() == name
}

// collectWrap notes, under Config.Wrap, the functions go test calls with a
// *testing.T: their parameter keeps its type, and their body is wrapped.
func (r *fileRewriter) collectWrap(n ast.Node) {
	switch n := n.(type) {
	case *ast.FuncDecl:
		if !r.isTestFunc(n) {
			return
		}
		if r.runsItself(n.Body) {
			r.keepAll(n, n.Name.Name)
			return
		}
		if c, f := r.handsToNative(n.Body); c != nil {
			r.keepAll(n, n.Name.Name)
			r.nativeNote(n.Body.Lbrace+1, n.Name.Name, c, f)
			return
		}
		r.wrapFuncs = append(r.wrapFuncs, wrapped{n.Type, n.Body})
		r.keepType(n.Type.Params.List[0].Type)
	case *ast.CallExpr:
		s, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
		if !ok || len(n.Args) != 1 {
			return
		}
		sel := r.info.Selections[s]
		lit, ok := n.Args[0].(*ast.FuncLit)
		if sel == nil || !ok || sel.Obj().Name() != "Fuzz" || !isTestingF(sel.Recv()) || lit.Type.Params.NumFields() == 0 {
			return
		}
		first := lit.Type.Params.List[0]
		if !isTestingT(r.info.TypeOf(first.Type)) || len(first.Names) > 1 {
			return
		}
		if r.runsItself(lit.Body) {
			r.keepAll(lit, "the fuzz target")
		} else if c, f := r.handsToNative(lit.Body); c != nil {
			r.keepAll(lit, "the fuzz target")
			r.nativeNote(n.Pos(), "the fuzz target", c, f) // once, before f.Fuzz: not at each input
		} else {
			r.wrapFuncs = append(r.wrapFuncs, wrapped{lit.Type, lit.Body})
			r.keepType(first.Type)
		}
	}
}

// runsItself reports whether a test hands a *testing.T (its own, or a
// subtest's) to one of this tool's packages (schedtest.Test,
// sched.Explore): it explores schedules itself, and -wrap leaves it as it
// is.
func (r *fileRewriter) runsItself(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && !found {
			if f, _ := typeutil.Callee(r.info, c).(*types.Func); f != nil && f.Pkg() != nil && toolPackage(f.Pkg().Path()) {
				for _, a := range c.Args {
					found = found || isTestingT(r.info.TypeOf(a))
				}
			}
		}
		return !found
	})
	return found
}

// handsToNative is the first call in a test's body that hands a *testing.T
// (the test's own, or a subtest's) to a function of a package that is not
// rewritten and takes a *testing.T (gopkg.in/check.v1's TestingT, a
// testing framework's runner), and that function; nil if there is none.
// -wrap leaves such a test as it is: it runs natively, outside the
// scheduler, since the function needs go test's own *testing.T.
func (r *fileRewriter) handsToNative(body *ast.BlockStmt) (*ast.CallExpr, *types.Func) {
	var call *ast.CallExpr
	var fn *types.Func
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || call != nil {
			return call == nil
		}
		f, _ := typeutil.Callee(r.info, c).(*types.Func)
		if f == nil || f.Pkg() == nil || r.rewritten(f.Pkg()) || toolPackage(f.Pkg().Path()) || f.Pkg().Path() == "testing" {
			return true
		}
		sig := f.Type().(*types.Signature)
		for i, a := range c.Args {
			if isTestingT(r.info.TypeOf(a)) && isTestingT(paramType(sig, c, i)) {
				call, fn = c, f
				return false
			}
		}
		return true
	})
	return call, fn
}

// nativeNote makes a test that -wrap leaves as it is because it hands its
// *testing.T to c, a call of f, write a line to the standard error when it
// starts, saying that it runs natively and why.
func (r *fileRewriter) nativeNote(at token.Pos, name string, c *ast.CallExpr, f *types.Func) {
	callee := f.Pkg().Path() + "." + f.Name()
	if sig := f.Type().(*types.Signature); sig.Recv() != nil {
		callee = types.TypeString(sig.Recv().Type(), nil) + "." + f.Name()
	}
	fix := "add " + f.Pkg().Path() + " to -rewrite to run it under the scheduler"
	if first, _, _ := strings.Cut(f.Pkg().Path(), "/"); !strings.Contains(first, ".") {
		fix = "the standard library is never rewritten"
	}
	note := fmt.Sprintf("dstreplay test -wrap: %s runs natively, not under the scheduler: it hands its *testing.T to %s (%s), which is not rewritten; %s\n",
		name, callee, r.place(c.Pos()), fix)
	stdOS := tmpPrefix + "_os"
	r.named["os"] = stdOS
	r.insert(at, " "+stdOS+".Stderr.WriteString("+strconv.Quote(note)+"); ")
}

// keepAll keeps every testing.T under n, a test -wrap leaves as it is
// (its subtests' too), and notes n so that handing its t to a function
// whose *testing.T -wrap changes is refused.
func (r *fileRewriter) keepAll(n ast.Node, name string) {
	r.unwrapped = append(r.unwrapped, unwrapped{n, name})
	ast.Inspect(n, func(n ast.Node) bool {
		if s, ok := n.(*ast.StarExpr); ok && isTestingT(r.info.TypeOf(s)) {
			r.keepType(s)
		}
		return true
	})
}

// unwrapped is a test -wrap leaves as it is.
type unwrapped struct {
	node ast.Node
	name string
}

// inUnwrapped is the name of the test -wrap leaves as it is that p is in,
// or "".
func (r *fileRewriter) inUnwrapped(p token.Pos) string {
	for _, u := range r.unwrapped {
		if u.node.Pos() <= p && p < u.node.End() {
			return u.name
		}
	}
	return ""
}

// wrapped is a function whose body runs under nativetest.Wrap.
type wrapped struct {
	typ  *ast.FuncType
	body *ast.BlockStmt
}

// keepType marks the testing.T of a *testing.T parameter that go test's
// machinery fills, which stays as it is.
func (r *fileRewriter) keepType(e ast.Expr) {
	if s, ok := ast.Unparen(e).(*ast.StarExpr); ok {
		x := ast.Unparen(s.X)
		r.kept[x] = true
		if sel, ok := x.(*ast.SelectorExpr); ok {
			r.kept[sel.Sel] = true
		}
	}
}

// isTestFunc reports whether d is a test go test runs: TestXxx in a
// _test.go file, taking one *testing.T and returning nothing.
func (r *fileRewriter) isTestFunc(d *ast.FuncDecl) bool {
	name := d.Name.Name
	if !strings.HasSuffix(r.name, "_test.go") || d.Recv != nil || d.Body == nil || d.Type.TypeParams != nil ||
		!strings.HasPrefix(name, "Test") || d.Type.Results.NumFields() != 0 || d.Type.Params.NumFields() != 1 {
		return false
	}
	if rest := name[len("Test"):]; rest != "" {
		if c, _ := utf8.DecodeRuneInString(rest); unicode.IsLower(c) {
			return false
		}
	}
	return isTestingT(r.info.TypeOf(d.Type.Params.List[0].Type))
}

// wrap makes the body of a function go test calls the body of
// nativetest.Wrap, which receives the test's *testing.T and gives the body
// a *nativetest.T of the same name:
//
//	func TestX(t *testing.T) {_dstw.Wrap(t, func(t *_dstw.T) { ... })}
func (r *fileRewriter) wrap(w wrapped) {
	p := w.typ.Params.List[0]
	outer, inner := wrapParam, wrapParam
	switch {
	case len(p.Names) == 0:
		r.insert(p.Type.Pos(), wrapParam+" ")
	case p.Names[0].Name == "_":
		r.replace(p.Names[0].Pos(), p.Names[0].End(), wrapParam)
		inner = "_"
	default:
		outer, inner = p.Names[0].Name, p.Names[0].Name
	}
	nt := r.use(NativetestPath)
	r.replace(w.body.Lbrace, w.body.Lbrace+1, "{"+nt+".Wrap("+outer+", func("+inner+" *"+nt+".T) {")
	r.replace(w.body.Rbrace, w.body.Rbrace+1, "})}")
}

// testingTArgs refuses, under Wrap, a *testing.T handed to a function of a
// package that is not rewritten: it would get a *nativetest.T instead. In
// a test -wrap leaves as it is, the other way round: a *testing.T handed
// to a function whose *testing.T -wrap changes.
func (r *fileRewriter) testingTArgs(c *ast.CallExpr, f *types.Func) {
	if f.Pkg() == nil {
		return
	}
	sig := f.Type().(*types.Signature)
	if test := r.inUnwrapped(c.Pos()); test != "" {
		if !r.rewritten(f.Pkg()) {
			return // its t stays a *testing.T
		}
		for i, a := range c.Args {
			if isTestingT(r.info.TypeOf(a)) && isTestingT(paramType(sig, c, i)) {
				r.errorf(a.Pos(), "%s hands %s to %s, whose *testing.T parameter -wrap makes a *nativetest.T; -wrap leaves %s as it is because it runs the scheduler itself (it hands a *testing.T to this tool's API): run it without -wrap, or make %s take a testing.TB",
					test, r.text0(a), f.Name(), test, f.Name())
			}
		}
		return
	}
	if r.rewritten(f.Pkg()) {
		return
	}
	for i, a := range c.Args {
		switch {
		case !isTestingT(r.info.TypeOf(a)) || !isTestingT(paramType(sig, c, i)):
		case toolPackage(f.Pkg().Path()):
			r.errorf(a.Pos(), "%s hands a *testing.T to %s.%s outside a test function: -wrap leaves a test that calls %s.%s itself as it is, but makes this %s a *nativetest.T; call %s.%s from the test function, or run these tests without -wrap",
				r.text0(a), f.Pkg().Name(), f.Name(), f.Pkg().Name(), f.Name(), r.text0(a), f.Pkg().Name(), f.Name())
		default:
			r.errorf(a.Pos(), "%s hands the test's *testing.T to %s.%s, which is not rewritten: under -wrap the test's t is a *nativetest.T; add %s to -rewrite, or run this test without -wrap",
				r.text0(a), f.Pkg().Path(), f.Name(), f.Pkg().Path())
		}
	}
}

// text0 is n's original text.
func (r *fileRewriter) text0(n ast.Node) string { return string(r.src[r.off(n.Pos()):r.off(n.End())]) }
