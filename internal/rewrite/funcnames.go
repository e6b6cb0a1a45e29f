package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// The names of functions at run time. Go names a function literal's
// closure after the function it is in, counting the literals of that
// function in source order (go1.26, cmd/compile/internal/ir.closureName):
//
//	F.func1, F.func2          the literals directly in func F
//	F.func1.1, F.func1.2      the literals directly in F.func1
//	T.M.func1, (*T).M.func1   in methods; G[...].func1 in generic code
//	init.func1, init.func2    in package-level initializers, counted across
//	                          the package's files in order
//	init.0.func1              in the package's first init function
//
// The literals in the body of a range over a function count in the
// function the range statement is in. The rewrite adds literals (a test's
// body under Wrap becomes one, go statements and timers' method values do
// too), which renames the user's closures: TestX.func3 becomes
// TestX.func1.3. Each rewritten file gets a table from the names its
// closures have to those they have in the original file, which
// native.FuncName and native.Function apply to what the runtime reports.
// Not covered: the copies of closures that inlining makes
// (F.G.func1, named after the inlined call), whose number counts on from
// the function's literals; and names the runtime prints itself (panics'
// stack traces).

// Place is where a file stands among its package's files (in the order the
// compiler gets them), for the names of its init functions and of its
// package-level closures, which count across the package: what the files
// before it declare. The zero value is the first file.
type Place struct {
	Inits      int // init functions
	Globals    int // function literals at package level
	GlobalsOut int // function literals at package level, rewritten
}

// after is the place of the file that follows one at p whose original
// syntax is f and rewritten text out (nil: not rewritten).
func (p Place) after(f *ast.File, out []byte) Place {
	inits, globals := packageLevel(f)
	p.Inits += inits
	p.Globals += globals
	if out != nil {
		if g, err := parser.ParseFile(token.NewFileSet(), "", out, parser.SkipObjectResolution); err == nil {
			_, globals = packageLevel(g)
		}
	}
	p.GlobalsOut += globals
	return p
}

// plus is p moved on by d, what a file declares.
func (p Place) plus(d Place) Place {
	return Place{p.Inits + d.Inits, p.Globals + d.Globals, p.GlobalsOut + d.GlobalsOut}
}

// packageLevel counts f's init functions and its function literals at
// package level (not nested in another).
func packageLevel(f *ast.File) (inits, globals int) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				inits++
			}
		case *ast.GenDecl:
			ast.Inspect(d, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					globals++
					return false
				}
				return true
			})
		}
	}
	return inits, globals
}

// closure is a function literal's name, without its package's path.
type closure struct {
	name  string
	outer *ast.FuncLit // the literal it is in, nil for a top-level one
	decl  string       // the name of the function it is in, "" at package level
}

// closureNames names the function literals of f, a file at place p whose
// package-level literals count from globals. A function named _ has
// closures named from a counter of the whole package: they are left out.
func closureNames(f *ast.File, p Place, globals int) map[*ast.FuncLit]closure {
	names := map[*ast.FuncLit]closure{}
	var walk func(n ast.Node, prefix, decl string, outer *ast.FuncLit, count *int)
	walk = func(n ast.Node, prefix, decl string, outer *ast.FuncLit, count *int) {
		ast.Inspect(n, func(n ast.Node) bool {
			lit, ok := n.(*ast.FuncLit)
			if !ok {
				return true
			}
			*count++
			name := prefix + strconv.Itoa(*count)
			names[lit] = closure{name, outer, decl}
			inner := 0
			walk(lit.Body, name+".", decl, lit, &inner)
			return false
		})
	}
	inits := p.Inits
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := declName(d)
			if d.Recv == nil && name == "init" {
				name += "." + strconv.Itoa(inits)
				inits++
			}
			if d.Body != nil && name != "_" {
				count := 0
				walk(d.Body, name+".func", name, nil, &count)
			}
		case *ast.GenDecl:
			walk(d, "init.func", "", nil, &globals)
		}
	}
	return names
}

// declName is the name the runtime gives the function d declares, without
// its package's path: F, G[...], T.M, (*T).M, (*T[...]).M.
func declName(d *ast.FuncDecl) string {
	if d.Type.TypeParams != nil {
		return d.Name.Name + "[...]"
	}
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := ast.Unparen(d.Recv.List[0].Type)
	star := false
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = true, ast.Unparen(s.X)
	}
	var recv string
	switch t := t.(type) {
	case *ast.Ident:
		recv = t.Name
	case *ast.IndexExpr:
		recv = types.ExprString(t.X) + "[...]"
	case *ast.IndexListExpr:
		recv = types.ExprString(t.X) + "[...]"
	default:
		recv = types.ExprString(t)
	}
	if star {
		return "(*" + recv + ")." + d.Name.Name
	}
	return recv + "." + d.Name.Name
}

// funcNames is the table of the closures of the rewritten text out whose
// names differ from those of the original literals they are: the
// literals of out are matched with r.file's by the position their line
// directives give them, and the body that Wrap made a literal is the
// function it was the body of. Nil if out does not parse.
func (r *fileRewriter) funcNames(out []byte) map[string]string {
	ofset := token.NewFileSet()
	of, err := parser.ParseFile(ofset, r.name, out, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	type at struct{ line, col int }
	orig := map[at][]string{}
	for lit, c := range closureNames(r.file, r.cfg.Place, r.cfg.Place.Globals) {
		p := r.tf.Position(lit.Pos())
		orig[at{p.Line, p.Column}] = append(orig[at{p.Line, p.Column}], c.name)
	}
	wrapBodies := map[*ast.FuncLit]bool{}
	ast.Inspect(of, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 2 {
			if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "Wrap" && types.ExprString(s.X) == nativetestName {
				if lit, ok := c.Args[1].(*ast.FuncLit); ok {
					wrapBodies[lit] = true
				}
			}
		}
		return true
	})
	names := closureNames(of, r.cfg.Place, r.cfg.Place.GlobalsOut)
	original := map[*ast.FuncLit]string{} // "" for a literal the rewrite made
	var originalOf func(lit *ast.FuncLit) string
	originalOf = func(lit *ast.FuncLit) string {
		if o, ok := original[lit]; ok {
			return o
		}
		c := names[lit]
		o := ""
		switch {
		case wrapBodies[lit] && c.outer == nil:
			o = c.decl
		case wrapBodies[lit]:
			o = originalOf(c.outer)
		default:
			p := ofset.Position(lit.Pos())
			if p.Filename == r.name {
				if cands := orig[at{p.Line, p.Column}]; len(cands) == 1 {
					o = cands[0]
				}
			}
		}
		original[lit] = o
		return o
	}
	table := map[string]string{}
	for lit, c := range names {
		if o := originalOf(lit); o != "" && o != c.name {
			table[c.name] = o
		}
	}
	return table
}

// funcNamesDecl is the declaration that gives native the table.
func (r *fileRewriter) funcNamesDecl(table map[string]string) string {
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("\n\n// The names of this file's closures in the original program.\nvar _ = " + r.use(NativePath) + ".FuncNames(map[string]string{")
	for _, k := range keys {
		b.WriteString("\n\t" + strconv.Quote(k) + ": " + strconv.Quote(table[k]) + ",")
	}
	b.WriteString("\n})\n")
	return b.String()
}

// isFuncName reports whether obj is runtime.Func's Name method.
func isFuncName(obj types.Object) bool {
	f, ok := obj.(*types.Func)
	if !ok || f.Pkg() == nil || f.Pkg().Path() != "runtime" || f.Name() != "Name" {
		return false
	}
	recv := f.Type().(*types.Signature).Recv()
	if recv == nil {
		return false
	}
	p, ok := recv.Type().(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	return ok && n.Obj().Name() == "Func"
}

// isFrameFunction reports whether obj is runtime.Frame's Function field.
func isFrameFunction(obj types.Object) bool {
	v, ok := obj.(*types.Var)
	return ok && v.IsField() && v.Pkg() != nil && v.Pkg().Path() == "runtime" && v.Name() == "Function" &&
		v.Origin() == frameFunction(v.Pkg())
}

// frameFunction is the Function field of runtime.Frame, in runtime's
// package as the type checker has it.
func frameFunction(runtime *types.Package) *types.Var {
	obj := runtime.Scope().Lookup("Frame")
	if obj == nil {
		return nil
	}
	s, ok := obj.Type().Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for i := 0; i < s.NumFields(); i++ {
		if s.Field(i).Name() == "Function" {
			return s.Field(i)
		}
	}
	return nil
}
