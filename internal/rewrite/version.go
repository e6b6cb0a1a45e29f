package rewrite

import (
	"go/ast"
	"go/build/constraint"
	"go/token"
	"go/types"
	"go/version"
)

// Rewritten code calls generic functions (go1.18) and ranges over the
// iterators of Range and Map (go1.23), but most modules declare an older
// language version, and a file compiles at its module's (go1.16 for a
// module without go.mod). A rewritten file older than emitVersion is raised
// to it by a //go:build line, which sets one file's version whatever its
// module says. Raising it keeps the program's meaning but for one change:
// from go1.22 a loop's := variables are new in each iteration, so in a file
// older than that, a loop whose variables may outlive an iteration (captured
// by a closure, or their address taken) gets them declared before it, one
// for the whole loop as its Go had them (sharedLoop).
const emitVersion = "go1.23"

// fileVersion is the file's language version, "" when unknown (then it is
// taken to be the current one).
func (r *fileRewriter) fileVersion() string {
	if v := r.info.FileVersions[r.file]; v != "" {
		return v
	}
	return r.cfg.GoVersion
}

// olderThan reports whether the file's language version is older than v.
func (r *fileRewriter) olderThan(v string) bool {
	fv := r.fileVersion()
	return fv != "" && version.Compare(version.Lang(fv), v) < 0
}

// raiseVersion gives a file older than emitVersion a //go:build line that
// raises it: its own //go:build line (or, lacking one, its // +build lines)
// and emitVersion, in the place of the first of them; or, lacking any, a
// line of its own before the file, which then starts again at line 1.
func (r *fileRewriter) raiseVersion() {
	if !r.olderThan(emitVersion) {
		return
	}
	need := &constraint.TagExpr{Tag: emitVersion}
	var goBuild *ast.Comment
	var plus []*ast.Comment
	var plusExpr constraint.Expr
	var plusFirst *ast.Comment // the line whose place the //go:build line takes
	for _, g := range r.file.Comments {
		if g.Pos() >= r.file.Package {
			break
		}
		for _, c := range g.List {
			switch {
			case constraint.IsGoBuild(c.Text):
				goBuild = c
			case constraint.IsPlusBuild(c.Text):
				plus = append(plus, c)
				// go/build reads // +build lines only in the comments
				// that a blank line separates from the package clause.
				if x, err := constraint.Parse(c.Text); err == nil && g != r.file.Doc {
					if plusExpr == nil {
						plusExpr, plusFirst = x, c
					} else {
						plusExpr = &constraint.AndExpr{X: plusExpr, Y: x}
					}
				}
			}
		}
	}
	// go vet (which go test runs) wants // +build lines to say what the
	// //go:build line does; with one, the go command ignores them: they go.
	for _, c := range plus {
		if goBuild != nil || c != plusFirst {
			r.replace(c.Pos(), c.End(), "")
		}
	}
	switch {
	case goBuild != nil:
		x, err := constraint.Parse(goBuild.Text)
		if err != nil {
			r.errorf(goBuild.Pos(), "the file is written for %s and its rewrite needs %s, but its //go:build line does not parse: %v", r.fileVersion(), emitVersion, err)
			return
		}
		r.replaceLine(goBuild, "//go:build "+(&constraint.AndExpr{X: x, Y: need}).String())
	case plusExpr != nil:
		r.replaceLine(plusFirst, "//go:build "+(&constraint.AndExpr{X: plusExpr, Y: need}).String())
	default:
		r.insert(r.tf.Pos(0), "//go:build "+emitVersion+"\n\n")
	}
}

// replaceLine replaces the line comment c with text, and its newline too,
// so that the directive after the edit starts the next line instead of
// ending up inside the comment.
func (r *fileRewriter) replaceLine(c *ast.Comment, text string) {
	end := c.End()
	if off := r.off(end); off < len(r.src) && r.src[off] == '\n' {
		end++
		text += "\n"
	}
	r.replace(c.Pos(), end, text)
}

// loopLabel is the label of a loop statement, or nil.
func (r *fileRewriter) loopLabel(s ast.Stmt) *ast.LabeledStmt { return r.loopLabels[s] }

// sharedLoop rewrites a loop of a file written for a Go older than 1.22
// whose := variables may outlive an iteration, so that they are one
// variable for the whole loop: declared in a block around it, and assigned
// by the loop. It reports whether it did; x is what a range loop ranges
// over in the rewrite, given the name of the range expression's value.
func (r *fileRewriter) sharedLoop(n ast.Stmt, x func(tmp string) string) bool {
	if !r.olderThan("go1.22") {
		return false
	}
	var vars []*ast.Ident
	var scope []ast.Node
	switch n := n.(type) {
	case *ast.ForStmt:
		init, ok := n.Init.(*ast.AssignStmt)
		if !ok || init.Tok != token.DEFINE {
			return false
		}
		for _, e := range init.Lhs {
			if id, ok := e.(*ast.Ident); ok {
				vars = append(vars, id)
			}
		}
		scope = []ast.Node{n.Cond, n.Post, n.Body}
	case *ast.RangeStmt:
		if n.Tok != token.DEFINE {
			return false
		}
		for _, e := range []ast.Expr{n.Key, n.Value} {
			if id, ok := e.(*ast.Ident); ok {
				vars = append(vars, id)
			}
		}
		scope = []ast.Node{n.Body}
	}
	objs := map[types.Object]bool{}
	for _, id := range vars {
		if obj := r.info.Defs[id]; obj != nil {
			objs[obj] = true
		}
	}
	if len(objs) == 0 || !r.outlives(objs, scope) {
		return false
	}
	start, label := n.Pos(), ""
	if l := r.loopLabel(n); l != nil {
		if r.gotos[l.Label.Name] {
			r.errorf(l.Pos(), "the variables of loop %s are captured or their address taken, in a file written for %s: the rewrite compiles it at %s, where each iteration has its own, and keeps Go's meaning by declaring them before the loop, which a goto %s cannot jump over; move the goto's target", l.Label.Name, r.fileVersion(), emitVersion, l.Label.Name)
			return false
		}
		start, label = l.Pos(), r.sub(l.Pos(), n.Pos())
	}
	switch n := n.(type) {
	case *ast.ForStmt:
		r.replace(start, n.End(), "{ "+r.sub(n.Init.Pos(), n.Init.End())+"; "+label+"for "+r.sub(n.Init.End(), n.End())+"}")
	case *ast.RangeStmt:
		tmp := r.tmp()
		decl, ok := r.rangeVars(n, tmp)
		if !ok {
			return false
		}
		names := r.text(n.Key)
		if n.Value != nil {
			names += ", " + r.text(n.Value)
		} else if isMap(r.info.TypeOf(n.X)) {
			names += ", _" // MapVars gives the value's type too
		}
		r.replace(start, n.End(), "{ "+tmp+" := "+r.sub(n.X.Pos(), n.X.End())+"; var "+names+" = "+decl+"; "+
			label+"for "+names+" = range "+x(tmp)+" "+r.sub(n.Body.Pos(), n.Body.End())+"}")
	}
	return true
}

// rangeVars is the initializer that gives a range loop's variables, declared
// before it, their types; x names the range expression's value.
func (r *fileRewriter) rangeVars(n *ast.RangeStmt, x string) (string, bool) {
	native := r.use(NativePath)
	t := r.info.TypeOf(n.X)
	switch {
	case chanOf(t) != nil:
		return native + ".ChanVar(" + x + ")", true
	case isMap(t):
		return native + ".MapVars(" + x + ")", true
	}
	valued := n.Value != nil && !isBlank(n.Value)
	if !valued {
		if n.Value == nil {
			return "0", true // the index of a slice, an array or a string: an int
		}
		return "0, 0", true // with its value blank
	}
	switch u := core(t).(type) {
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			return native + ".StringVars(" + x + ")", true
		}
	case *types.Slice:
		return native + ".SliceVars(" + x + ")", true
	case *types.Array:
		return native + ".SliceVars(" + x + "[:])", true
	case *types.Pointer:
		if _, ok := core(u.Elem()).(*types.Array); ok {
			return native + ".SliceVars(" + x + "[:])", true
		}
	}
	r.errorf(n.Pos(), "the variables of this range over a %s are captured or their address taken, in a file written for %s: the rewrite, which compiles it at %s, cannot declare them before the loop", t, r.fileVersion(), emitVersion)
	return "", false
}

// core is t's underlying type or, for a type parameter, that of the one
// type its constraint allows (nil if it allows several).
func core(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	tp, ok := t.(*types.TypeParam)
	if !ok {
		return t.Underlying()
	}
	var only types.Type
	iface := tp.Constraint().Underlying().(*types.Interface)
	for i := 0; i < iface.NumEmbeddeds(); i++ {
		var terms []types.Type
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := 0; j < e.Len(); j++ {
				terms = append(terms, e.Term(j).Type())
			}
		default:
			terms = []types.Type{e}
		}
		for _, term := range terms {
			u := core(term)
			if only != nil && !types.Identical(only, u) {
				return nil
			}
			only = u
		}
	}
	return only
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// outlives reports whether one of the variables objs may outlive an
// iteration of a loop whose body and clauses are scope: a function literal
// in them refers to it, or its address is taken (by &, a method with a
// pointer receiver, or a slice of an array). When unsure it says yes: a
// loop rewritten needlessly keeps its meaning.
func (r *fileRewriter) outlives(objs map[types.Object]bool, scope []ast.Node) bool {
	// root is the variable of objs that e is, or is part of (a field, an
	// element of an array).
	root := func(e ast.Expr) bool {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
			case *ast.SelectorExpr:
				e = x.X
			case *ast.IndexExpr:
				e = x.X
			case *ast.Ident:
				return objs[r.info.Uses[x]]
			default:
				return false
			}
		}
	}
	found := false
	for _, s := range scope {
		if s == nil || found {
			continue
		}
		ast.Inspect(s, func(n ast.Node) bool {
			if found {
				return false
			}
			switch n := n.(type) {
			case *ast.FuncLit:
				ast.Inspect(n.Body, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok && objs[r.info.Uses[id]] {
						found = true
					}
					return !found
				})
				return false
			case *ast.UnaryExpr:
				found = n.Op == token.AND && root(n.X)
			case *ast.SliceExpr:
				if _, isArray := core(r.info.TypeOf(n.X)).(*types.Array); isArray {
					found = root(n.X)
				}
			case *ast.SelectorExpr:
				if sel := r.info.Selections[n]; sel != nil && sel.Kind() != types.FieldVal {
					if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
						if _, ptrRecv := sig.Recv().Type().Underlying().(*types.Pointer); ptrRecv {
							if _, ptr := r.info.TypeOf(n.X).Underlying().(*types.Pointer); !ptr {
								found = root(n.X)
							}
						}
					}
				}
			}
			return !found
		})
	}
	return found
}
