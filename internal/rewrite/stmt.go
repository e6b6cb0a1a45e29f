package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strconv"
	"strings"
)

// timerMethod is the shim of a method of *time.Timer or *time.Ticker, or "".
func timerMethod(obj types.Object) string {
	f, ok := obj.(*types.Func)
	if !ok || f.Pkg() == nil || f.Pkg().Path() != "time" {
		return ""
	}
	recv := f.Type().(*types.Signature).Recv()
	if recv == nil {
		return ""
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok {
		return ""
	}
	switch n.Obj().Name() + "." + f.Name() {
	case "Timer.Stop":
		return "TimerStop"
	case "Timer.Reset":
		return "TimerReset"
	case "Ticker.Stop":
		return "TickerStop"
	case "Ticker.Reset":
		return "TickerReset"
	}
	return ""
}

// methodShim is the package and the function that a call of the method
// obj becomes, its receiver first (a timer's, an os.File's writes and
// syncs, or under simNet a net.Dialer's or net.ListenConfig's), or "", "".
func (r *fileRewriter) methodShim(obj types.Object) (pkg, name string) {
	if shim := timerMethod(obj); shim != "" {
		return NativePath, shim
	}
	f, ok := obj.(*types.Func)
	if !ok || f.Pkg() == nil {
		return "", ""
	}
	if shim := fileMethod(f); shim != "" {
		return SimdiskPath, shim
	}
	if f.Pkg().Path() != "net" || !r.simNet() {
		return "", ""
	}
	recv := f.Type().(*types.Signature).Recv()
	if recv == nil {
		return "", ""
	}
	p, ok := recv.Type().(*types.Pointer)
	if !ok {
		return "", ""
	}
	n, ok := p.Elem().(*types.Named)
	if !ok {
		return "", ""
	}
	switch n.Obj().Name() + "." + f.Name() {
	case "Dialer.Dial":
		return SimnetPath, "DialerDial"
	case "Dialer.DialContext":
		return SimnetPath, "DialContext"
	case "ListenConfig.Listen":
		return SimnetPath, "ListenContext"
	}
	return "", ""
}

// fileMethod is the simdisk function a call of the method f of *os.File
// becomes, or "".
func fileMethod(f *types.Func) string {
	if f.Pkg().Path() != "os" {
		return ""
	}
	recv := f.Type().(*types.Signature).Recv()
	if recv == nil {
		return ""
	}
	p, ok := recv.Type().(*types.Pointer)
	if !ok {
		return ""
	}
	if n, ok := p.Elem().(*types.Named); !ok || n.Obj().Name() != "File" {
		return ""
	}
	switch f.Name() {
	case "Write", "WriteString", "WriteAt", "Sync":
		return f.Name()
	}
	return ""
}

// call rewrites the builtins on channels, the methods of timers and
// runtime.Func's Name.
func (r *fileRewriter) call(c *ast.CallExpr) {
	fun := ast.Unparen(c.Fun)
	if id, ok := fun.(*ast.Ident); ok {
		switch f := r.info.Uses[id].(type) {
		case *types.Builtin:
			r.builtin(c, id.Name)
		case *types.Func:
			if r.cfg.Wrap {
				r.testingTArgs(c, f)
			}
		}
		return
	}
	s, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	f, isFunc := r.info.Uses[s.Sel].(*types.Func)
	if isFunc && r.cfg.Wrap {
		r.testingTArgs(c, f)
	}
	if isFunc && r.info.Selections[s] == nil {
		if f.Pkg().Path() == "reflect" && f.Name() == "Select" {
			r.replace(c.Fun.Pos(), c.Fun.End(), r.use(NativePath)+".ReflectSelect")
			r.insert(c.Rparen, ", "+strconv.Quote(r.place(c.Pos())))
			return
		}
		r.givenChans(c, f)
		return
	}
	sel := r.info.Selections[s]
	if sel == nil || sel.Kind() != types.MethodVal {
		return
	}
	if reflectChanMethod(sel.Obj()) {
		// The receiver (through the embedded fields, and what a pointer
		// points to), checked inside a run: not a channel of the run but
		// for Len, which native.Value answers as len does.
		recv := r.text(s.X)
		if len(sel.Index()) > 1 || sel.Indirect() {
			recv = r.recvPath("("+recv+")", sel)
		}
		r.replace(s.X.Pos(), s.X.End(), r.use(NativePath)+".Reflected("+recv+", "+
			strconv.Quote(s.Sel.Name)+", "+strconv.Quote(r.place(c.Pos()))+")")
		return
	}
	if isFuncName(sel.Obj()) {
		r.replace(c.Pos(), c.End(), r.use(NativePath)+".FuncName("+r.recvPath("("+r.text(s.X)+")", sel)+")")
		return
	}
	pkg, shim := r.methodShim(sel.Obj())
	if shim == "" {
		return
	}
	recv := r.receiver(s, sel)
	args := []string{recv}
	for _, a := range c.Args {
		args = append(args, r.text(a))
	}
	r.replace(c.Pos(), c.End(), r.use(pkg)+"."+shim+"("+strings.Join(args, ", ")+")")
}

// reflectChanMethod reports whether obj is a method of reflect.Value that
// operates on a channel where the scheduler cannot see it (native.Reflected
// checks its receiver), or, for Len, that must answer from the run's
// channel (native.Value.Len). Cap is reflect's: cap of a channel is not
// rewritten either, and the run's channel has Go's channel's capacity.
func reflectChanMethod(obj types.Object) bool {
	f, ok := obj.(*types.Func)
	if !ok || f.Pkg() == nil || f.Pkg().Path() != "reflect" {
		return false
	}
	recv := f.Type().(*types.Signature).Recv()
	n, ok := recv.Type().(*types.Named)
	if !ok || n.Obj().Name() != "Value" {
		return false
	}
	switch f.Name() {
	case "Send", "Recv", "TrySend", "TryRecv", "Close", "Len":
		return true
	}
	return false
}

// place is p as a message names it: the file's base name and the line.
func (r *fileRewriter) place(p token.Pos) string {
	pos := r.fset.Position(p)
	return filepath.Base(pos.Filename) + ":" + strconv.Itoa(pos.Line)
}

// rewritten reports whether package p is rewritten with the file's: it
// is the file's own, or Config.Rewritten says so.
func (r *fileRewriter) rewritten(p *types.Package) bool {
	return p == r.own || r.cfg.Rewritten != nil && r.cfg.Rewritten(p.Path())
}

// paramType is the type of the parameter that the call's argument i is
// passed to; nil for the slice passed to a variadic parameter with "...".
func paramType(sig *types.Signature, c *ast.CallExpr, i int) types.Type {
	n := sig.Params().Len()
	switch {
	case i < n-1 || !sig.Variadic() && i < n:
		return sig.Params().At(i).Type()
	case sig.Variadic() && !c.Ellipsis.IsValid():
		return sig.Params().At(n - 1).Type().(*types.Slice).Elem()
	}
	return nil
}

// givenChans wraps the channels a call hands to a function that is not
// rewritten (the standard library's, or a dependency's that -rewrite does
// not name) in native.Given, which fails a run that does so with the
// channel, the function and the place.
func (r *fileRewriter) givenChans(c *ast.CallExpr, f *types.Func) {
	path := f.Pkg().Path()
	if r.rewritten(f.Pkg()) || toolPackage(path) { // the tool's own packages (chans.FromRecv) take native channels
		return
	}
	if _, shimmed := r.replacement(f); shimmed {
		return
	}
	sig := f.Type().(*types.Signature)
	for i, a := range c.Args {
		pt := paramType(sig, c, i)
		if pt == nil || chanOf(pt) == nil {
			continue
		}
		if tv, ok := r.info.Types[a]; ok && tv.IsNil() {
			continue
		}
		r.replace(a.Pos(), a.End(), r.use(NativePath)+".Given("+r.text(a)+", "+strconv.Quote(path+"."+f.Name())+", "+strconv.Quote(r.place(a.Pos()))+")")
	}
}

// receiver is the expression of a method call's receiver, through the
// embedded fields the selector goes through, as a pointer.
func (r *fileRewriter) receiver(s *ast.SelectorExpr, sel *types.Selection) string {
	x, t := embeddedPath("("+r.text(s.X)+")", sel)
	if _, ok := t.Underlying().(*types.Pointer); !ok {
		x = "&" + x
	}
	return x
}

func (r *fileRewriter) builtin(c *ast.CallExpr, name string) {
	if len(c.Args) == 0 {
		return
	}
	ch := chanOf(r.info.TypeOf(c.Args[0]))
	switch name {
	case "close":
		if ch != nil {
			r.replace(c.Pos(), c.End(), r.use(NativePath)+".Close("+r.text(c.Args[0])+")")
		}
	case "len":
		if ch != nil {
			fn := ".Len("
			if ch.Dir() == types.SendOnly {
				fn = ".LenSend("
			}
			r.replace(c.Pos(), c.End(), r.use(NativePath)+fn+r.text(c.Args[0])+")")
		}
	case "make":
		if chanOf(r.info.TypeOf(c.Args[0])) == nil {
			return
		}
		n := "0"
		if len(c.Args) > 1 {
			n = r.text(c.Args[1])
			if t := r.info.TypeOf(c.Args[1]); t == nil || !types.Identical(t, types.Typ[types.Int]) {
				n = "int(" + n + ")"
			}
		}
		r.replace(c.Pos(), c.End(), r.use(NativePath)+".Make["+r.text(c.Args[0])+"]("+n+")")
	}
}

// goStmt rewrites go f(args): the function value and the arguments are
// evaluated at the statement, as Go does, and the call runs in a goroutine
// of the run.
func (r *fileRewriter) goStmt(g *ast.GoStmt) {
	call := g.Call
	fun := ast.Unparen(call.Fun)
	native := r.use(NativePath)
	if lit, ok := fun.(*ast.FuncLit); ok && len(call.Args) == 0 && lit.Type.Results == nil {
		r.replace(g.Pos(), g.End(), native+".Go("+r.text(call.Fun)+")")
		return
	}
	sig, _ := r.info.TypeOf(call.Fun).(*types.Signature)
	if tv, ok := r.info.Types[call.Fun]; ok && tv.Type != nil {
		sig, _ = tv.Type.Underlying().(*types.Signature)
	}
	isBuiltin, static, generic := false, false, false
	var name *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		name = f
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			if _, ok := r.info.Uses[id].(*types.PkgName); ok {
				name = f.Sel
			}
		}
	}
	if name != nil {
		switch r.info.Uses[name].(type) {
		case *types.Builtin:
			isBuiltin = true
		case *types.Func:
			static = true // a function's name: nothing to evaluate
		}
		_, generic = r.info.Instances[name]
	}
	simple := !isBuiltin && sig != nil && !generic && !sig.Variadic() && !call.Ellipsis.IsValid() &&
		sig.Params().Len() == len(call.Args) && sig.Params().Len() <= 4 && sig.Results().Len() <= 2
	if simple {
		var args []string
		for _, a := range call.Args {
			args = append(args, r.text(a))
		}
		if sig.Params().Len() == 0 && sig.Results().Len() == 0 {
			r.replace(g.Pos(), g.End(), native+".Go("+r.text(call.Fun)+")")
			return
		}
		name := ".Go" + strconv.Itoa(sig.Params().Len())
		if k := sig.Results().Len(); k > 0 {
			name += "R" + strconv.Itoa(k)
		}
		r.replace(g.Pos(), g.End(), native+name+"("+r.text(call.Fun)+").Start("+strings.Join(args, ", ")+")")
		return
	}
	// Any other call: evaluate the function value and the arguments into
	// temporaries now, call in the new goroutine. Constants stay in place
	// (they convert to the parameter's type there), and so does a
	// function's name (a generic one could not be a value) or a builtin's
	// (go close(c), go println(x): its arguments too are evaluated at the
	// go statement).
	var names, vals, args []string
	f := r.text(call.Fun)
	if isBuiltin && name.Name == "close" && chanOf(r.info.TypeOf(call.Args[0])) != nil {
		f = native + ".Close" // the call's own rewrite is replaced with the go statement's
	}
	if !static && !isBuiltin {
		t := r.tmp()
		names, vals, f = append(names, t), append(vals, f), t
	}
	for _, a := range call.Args {
		if tv, ok := r.info.Types[a]; ok && (tv.Value != nil || tv.IsNil() || tv.IsType()) {
			args = append(args, r.text(a))
			continue
		}
		t := r.tmp()
		names, vals, args = append(names, t), append(vals, r.text(a)), append(args, t)
	}
	callText := f + "(" + strings.Join(args, ", ")
	if call.Ellipsis.IsValid() {
		callText += "..."
	}
	callText += ")"
	pre := ""
	if len(names) > 0 {
		pre = strings.Join(names, ", ") + " := " + strings.Join(vals, ", ") + "; "
	}
	r.replace(g.Pos(), g.End(), "{ "+pre+native+".Go(func() { "+callText+" }) }")
}

// selectStmt rewrites a select into: its channels and values evaluated once,
// in source order; inside a run, the scheduler's Select, outside one, Go's
// select over the same temporaries, either giving the index of the case
// that proceeded; then a switch on that index whose clauses are the
// original cases' bodies, in place. break in a body breaks the switch as it
// broke the select; a label on the select labels the switch.
func (r *fileRewriter) selectStmt(s *ast.SelectStmt) {
	native := r.use(NativePath)
	if len(s.Body.List) == 0 { // select {}
		r.insert(s.Pos(), "if "+native+".Running() { "+native+".Block() }; ")
		return
	}
	start := s.Pos()
	label := ""
	if l := r.labels[s]; l != nil {
		if r.gotos[l.Label.Name] {
			r.errorf(l.Pos(), "goto %s: a goto to a labeled select cannot be rewritten", l.Label.Name)
			return
		}
		start, label = l.Pos(), l.Label.Name+": "
	}
	n := r.tmp()
	var evalNames, evalVals, decls, sched, native0 []string
	clauses := make([]string, len(s.Body.List))
	for i, st := range s.Body.List {
		cc := st.(*ast.CommClause)
		is := strconv.Itoa(i)
		c, v, rv, ok := n+"c"+is, n+"v"+is, n+"r"+is, n+"ok"+is
		idx := n + "i = " + is
		head := "case " + is + ":"
		if i == len(s.Body.List)-1 {
			head = "default:"
		}
		switch comm := cc.Comm.(type) {
		case nil:
			sched = append(sched, native+".Default()")
			native0 = append(native0, "default: "+idx)
		case *ast.SendStmt:
			evalNames, evalVals = append(evalNames, c), append(evalVals, r.text(comm.Chan))
			val := v
			if tv, ok := r.info.Types[comm.Value]; ok && (tv.Value != nil || tv.IsNil()) {
				val = r.text(comm.Value) // a constant converts to the element type at the send
			} else {
				evalNames, evalVals = append(evalNames, v), append(evalVals, r.text(comm.Value))
			}
			sched = append(sched, native+".To("+c+").Case("+val+")")
			native0 = append(native0, "case "+c+" <- "+val+": "+idx)
		default:
			recv, lhs, tok := r.recvComm(cc.Comm)
			if recv == nil {
				r.errorf(cc.Pos(), "a select case of this form cannot be rewritten")
				return
			}
			evalNames, evalVals = append(evalNames, c), append(evalVals, r.text(recv.X))
			decls = append(decls, "var "+rv+" = "+native+".Elem("+c+"); var "+ok+" bool")
			sched = append(sched, native+".CaseRecv("+c+", &"+rv+", &"+ok+")")
			native0 = append(native0, "case "+rv+", "+ok+" = <-"+c+": "+idx)
			switch len(lhs) {
			case 1:
				head += " " + r.text(lhs[0]) + " " + tok + " " + rv + ";"
			case 2:
				okv := ok
				if r.namedBool(lhs[1]) {
					okv = native + ".Bool(" + ok + ", " + r.text(lhs[1]) + ")"
				}
				head += " " + r.text(lhs[0]) + ", " + r.text(lhs[1]) + " " + tok + " " + rv + ", " + okv + ";"
			}
		}
		clauses[i] = head
	}
	var b strings.Builder
	b.WriteString("{ ")
	if len(evalNames) > 0 {
		b.WriteString(strings.Join(evalNames, ", ") + " := " + strings.Join(evalVals, ", ") + "; ")
	}
	for _, d := range decls {
		b.WriteString(d + "; ")
	}
	b.WriteString("var " + n + "i int; ")
	b.WriteString("if " + native + ".Running() { " + n + "i = " + native + ".Select(" + strings.Join(sched, ", ") + ") } ")
	b.WriteString("else { select { " + strings.Join(native0, "; ") + " } }; ")
	b.WriteString(label + "switch " + n + "i {")
	r.replace(start, s.Body.Lbrace+1, b.String())
	for i, st := range s.Body.List {
		cc := st.(*ast.CommClause)
		r.replace(cc.Case, cc.Colon+1, clauses[i])
	}
	r.insert(s.End(), "}")
}

// recvComm takes a receive case apart: the receive, the left-hand sides
// and the assignment's token.
func (r *fileRewriter) recvComm(s ast.Stmt) (*ast.UnaryExpr, []ast.Expr, string) {
	var x ast.Expr
	var lhs []ast.Expr
	tok := ""
	switch s := s.(type) {
	case *ast.ExprStmt:
		x = s.X
	case *ast.AssignStmt:
		if len(s.Rhs) != 1 {
			return nil, nil, ""
		}
		x, lhs, tok = s.Rhs[0], s.Lhs, s.Tok.String()
	}
	u, ok := ast.Unparen(x).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return nil, nil, ""
	}
	return u, lhs, tok
}

// imports adds the shims' imports after the package clause and keeps the
// rewritten standard imports used.
func (r *fileRewriter) imports() {
	var specs []string
	for _, p := range []struct{ path, name string }{{NativePath, nativeName}, {SchedPath, schedName}, {AtomicPath, atomicName}, {NativetestPath, nativetestName}, {BoundaryPath, boundaryName}, {SimnetPath, simnetName}, {SimdiskPath, simdiskName}} {
		if r.uses[p.path] {
			specs = append(specs, p.name+" "+strconv.Quote(p.path))
		}
	}
	if len(specs) > 0 {
		r.insert(r.file.Name.End(), "; import ("+strings.Join(specs, "; ")+")")
	}
	// An import whose every use was rewritten would be unused.
	blank := map[string]string{
		"sync": "NewCond", "sync/atomic": "LoadInt32", "time": "Now", "context": "Background",
		"runtime": "Gosched", "math/rand": "Int", "math/rand/v2": "Int", "testing": "Short",
		"net": "Dial", "net/http": "Get", "net/http/httptest": "NewServer", "os/exec": "Command", "database/sql": "Open", "os": "Getpid",
	}
	var uses []string
	for _, imp := range r.file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		sym, ok := blank[path]
		if !ok {
			continue
		}
		name := path[strings.LastIndexByte(path, '/')+1:]
		if path == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "_" || name == "." {
			continue
		}
		uses = append(uses, "var _ = "+name+"."+sym)
	}
	if len(uses) > 0 {
		r.insert(r.tf.Pos(len(r.src)), "\n"+strings.Join(uses, "\n")+"\n")
	}
}
