// Package rewrite turns Go's built-in concurrency in a type-checked file
// into calls to the scheduler's shims (package sched/native and its
// siblings), for dstreplay test: go statements, channel operations, select,
// the sync and sync/atomic types and functions, package time's clock and
// timers, package context's cancelable contexts, runtime.Gosched and the
// global functions of math/rand. Types are kept, except those of sync and
// sync/atomic, which become their sched counterparts (same method sets).
// The names of functions the program reads at run time (runtime.Func's
// Name, runtime.Frame's Function) are those of the original program
// (funcnames.go).
//
// The rewrite edits the file's text in place, so comments and layout stay,
// and marks every edit with a /*line*/ directive: positions in the
// compiled code (stack traces, reports, traces, delve) are those of the
// original file. A construct the rewrite cannot carry over is an error that
// names its place; nothing is skipped silently.
package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The import paths of what rewritten code calls.
const (
	NativePath = "github.com/dstgo/dst/sched/native"
	SchedPath  = "github.com/dstgo/dst/sched"
	AtomicPath = "github.com/dstgo/dst/sched/atomic"
	// BoundaryPath is where the functions that start native work (a
	// listener, a server, a child process) are called through, so that a
	// run says it called them.
	BoundaryPath = "github.com/dstgo/dst/sched/native/boundary"
	// SimnetPath is the simulated network that net.Listen, net.Dial and
	// net.Dialer's dials go to when the standard library's HTTP stack is
	// rewritten too (StdPackages).
	SimnetPath = "github.com/dstgo/dst/sched/simnet"
	// SimdiskPath is where direct writes and syncs of files go, so that
	// a run can fail them (disk faults).
	SimdiskPath = "github.com/dstgo/dst/sched/simdisk"
)

// StdPackages are the standard packages the rewrite carries over when
// -rewrite names one of them, or -wrap, all together: net/http and
// httptest, whose goroutines (a server's connections and handlers, a
// transport's reads and writes) then run on the scheduler, over simnet's
// network; and crypto/tls, which net/http's TLS runs through: natively its
// locks would block the scheduler's goroutines outside it, and the
// goroutine that closes a connection when a handshake's context ends
// would be none of the run's; and net/rpc, whose dials, natively, went to
// the real network while the test's listener was simulated (a refused
// dial), and whose client reads in a goroutine of its own. Any other
// standard package runs natively.
var StdPackages = []string{"net/http", "net/http/httptest", "crypto/tls", "net/rpc"}

// The names rewritten code gives the shims' packages and its temporaries;
// a leading underscore and the prefix keep them apart from the user's.
const (
	nativeName   = "_dstn"
	schedName    = "_dsts"
	atomicName   = "_dsta"
	boundaryName = "_dstb"
	simnetName   = "_dstnet"
	simdiskName  = "_dstdisk"
	tmpPrefix    = "_dst"
)

// Error is a construct the rewrite cannot carry over, at its place.
type Error struct {
	Pos token.Position
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Pos, e.Msg) }

// File rewrites one file of a type-checked package. name is the path the
// directives give (the original file's); src is its text as parsed into f.
// It returns nil when the file has nothing to rewrite.
func File(fset *token.FileSet, f *ast.File, info *types.Info, name string, src []byte, cfg Config) ([]byte, []*Error) {
	r := &fileRewriter{
		cfg:        cfg,
		kept:       map[ast.Node]bool{},
		editor:     editor{src: src, tf: fset.File(f.Pos()), name: name},
		fset:       fset,
		file:       f,
		info:       info,
		own:        filePackage(f, info),
		uses:       map[string]bool{},
		commaOK:    map[ast.Expr]ast.Expr{},
		labels:     map[*ast.SelectStmt]*ast.LabeledStmt{},
		loopLabels: map[ast.Stmt]*ast.LabeledStmt{},
		gotos:      map[string]bool{},
		called:     map[*ast.SelectorExpr]bool{},
		named:      map[string]string{},
		assigned:   map[ast.Expr]bool{},
	}
	r.collect()
	for _, w := range r.wrapFuncs { // first: the edits inside a body build on them
		r.wrap(w)
	}
	for i := len(r.nodes) - 1; i >= 0; i-- { // every node after its descendants
		r.node(r.nodes[i])
	}
	if len(r.edits) > 0 {
		r.raiseVersion()
	}
	if len(r.errs) > 0 {
		sort.Slice(r.errs, func(i, j int) bool { return r.errs[i].Pos.Offset < r.errs[j].Pos.Offset })
		return nil, r.errs
	}
	if len(r.edits) == 0 && r.cfg.Place.Globals == r.cfg.Place.GlobalsOut {
		return nil, nil
	}
	table := r.funcNames([]byte(r.render(0, len(src))))
	if len(r.edits) == 0 && len(table) == 0 {
		return nil, nil // the closures of earlier files moved, not this file's
	}
	if len(table) > 0 {
		r.insert(f.FileEnd, r.funcNamesDecl(table))
	}
	r.imports()
	if len(r.named) > 0 {
		var specs []string
		for path, name := range r.named {
			specs = append(specs, name+" "+strconv.Quote(path))
		}
		sort.Strings(specs)
		r.insert(r.file.Name.End(), "; import ("+strings.Join(specs, "; ")+")")
	}
	return []byte(r.render(0, len(src))), nil
}

type fileRewriter struct {
	editor
	cfg        Config
	wrapFuncs  []wrapped         // under Wrap, the functions go test calls with a *testing.T
	kept       map[ast.Node]bool // under Wrap, the testing.T of their parameters
	own        *types.Package    // the file's package (filePackage)
	unwrapped  []unwrapped       // under Wrap, the tests left as they are (they run the scheduler themselves)
	fset       *token.FileSet
	file       *ast.File
	info       *types.Info
	nodes      []ast.Node
	uses       map[string]bool       // shim packages the rewritten file calls
	commaOK    map[ast.Expr]ast.Expr // receives that are v, ok := <-c, and their ok
	labels     map[*ast.SelectStmt]*ast.LabeledStmt
	loopLabels map[ast.Stmt]*ast.LabeledStmt // the labels of for and range statements
	gotos      map[string]bool               // labels a goto names
	called     map[*ast.SelectorExpr]bool    // selectors that are called
	named      map[string]string             // packages the rewritten file imports under names of its own, by path
	assigned   map[ast.Expr]bool             // operands of assignments and of &, which stay variables
	ntmp       int
	errs       []*Error
}

func (r *fileRewriter) errorf(p token.Pos, format string, args ...any) {
	r.errs = append(r.errs, &Error{Pos: r.fset.Position(p), Msg: fmt.Sprintf(format, args...)})
}

// collect lists the file's nodes in preorder and notes what a node's
// rewrite needs to know of its parent.
func (r *fileRewriter) collect() {
	ast.Inspect(r.file, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		r.nodes = append(r.nodes, n)
		if r.cfg.Wrap {
			r.collectWrap(n)
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
				r.noteCommaOK(n.Rhs[0], n.Lhs[1])
			}
			for _, l := range n.Lhs {
				r.assigned[ast.Unparen(l)] = true
			}
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				r.assigned[ast.Unparen(n.Key)] = true
				if n.Value != nil {
					r.assigned[ast.Unparen(n.Value)] = true
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				r.assigned[ast.Unparen(n.X)] = true
			}
		case *ast.ValueSpec:
			if len(n.Names) == 2 && len(n.Values) == 1 {
				r.noteCommaOK(n.Values[0], n.Names[1])
			}
		case *ast.CallExpr:
			if s, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				r.called[s] = true
			}
		case *ast.LabeledStmt:
			switch s := n.Stmt.(type) {
			case *ast.SelectStmt:
				r.labels[s] = n
			case *ast.ForStmt, *ast.RangeStmt:
				r.loopLabels[s] = n
			}
		case *ast.BranchStmt:
			if n.Tok == token.GOTO && n.Label != nil {
				r.gotos[n.Label.Name] = true
			}
		}
		return true
	})
}

func (r *fileRewriter) noteCommaOK(e, ok ast.Expr) {
	if u, isRecv := ast.Unparen(e).(*ast.UnaryExpr); isRecv && u.Op == token.ARROW {
		r.commaOK[u] = ok
	}
}

// namedBool reports whether ok, the ok of a receive, is of a named boolean
// type, to which the shims' bool does not assign (Go's untyped bool does).
// Its conversion reads ok for its type, which only an identifier allows
// without evaluating anything twice: another ok is refused.
func (r *fileRewriter) namedBool(ok ast.Expr) bool {
	t := r.info.TypeOf(ok)
	if t == nil || types.Identical(t, types.Typ[types.Bool]) {
		return false
	}
	if b, isBasic := t.Underlying().(*types.Basic); !isBasic || b.Kind() != types.Bool {
		return false // an interface: it holds a bool, as in Go
	}
	if _, isIdent := ast.Unparen(ok).(*ast.Ident); !isIdent {
		r.errorf(ok.Pos(), "the ok of this receive is a %s but not a variable's name: it cannot be rewritten; receive into a variable of that type first", t)
		return false
	}
	return true
}

func (r *fileRewriter) use(pkg string) string {
	r.uses[pkg] = true
	switch pkg {
	case SchedPath:
		return schedName
	case AtomicPath:
		return atomicName
	case NativetestPath:
		return nativetestName
	case BoundaryPath:
		return boundaryName
	case SimnetPath:
		return simnetName
	case SimdiskPath:
		return simdiskName
	}
	return nativeName
}

func (r *fileRewriter) tmp() string {
	r.ntmp++
	return tmpPrefix + strconv.Itoa(r.ntmp)
}

func (r *fileRewriter) text(n ast.Node) string { return r.sub(n.Pos(), n.End()) }

func (r *fileRewriter) node(n ast.Node) {
	switch n := n.(type) {
	case *ast.GoStmt:
		r.goStmt(n)
	case *ast.SendStmt:
		r.replace(n.Pos(), n.End(), r.use(NativePath)+".To("+r.text(n.Chan)+").Send("+r.text(n.Value)+")")
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			ok, commaOK := r.commaOK[n]
			switch {
			case !commaOK:
				r.replace(n.Pos(), n.End(), r.use(NativePath)+".Recv("+r.text(n.X)+")")
			case r.namedBool(ok):
				r.replace(n.Pos(), n.End(), r.use(NativePath)+".RecvOKAs("+r.text(n.X)+", "+r.text(ok)+")")
			default:
				r.replace(n.Pos(), n.End(), r.use(NativePath)+".RecvOK("+r.text(n.X)+")")
			}
		}
	case *ast.CallExpr:
		r.call(n)
	case *ast.ForStmt:
		r.sharedLoop(n, nil)
	case *ast.RangeStmt:
		// over is what the loop ranges over, given the text of the range
		// expression.
		over, iter := func(x string) string { return x }, false
		switch t := r.info.TypeOf(n.X); {
		case chanOf(t) != nil:
			over, iter = func(x string) string { return r.use(NativePath) + ".Range(" + x + ")" }, true
		case isMap(t):
			// In an order the run's entropy decides.
			over, iter = func(x string) string { return r.use(NativePath) + ".Map(" + x + ")" }, true
		}
		if !r.sharedLoop(n, over) && iter {
			r.replace(n.X.Pos(), n.X.End(), over(r.text(n.X)))
		}
	case *ast.SelectStmt:
		r.selectStmt(n)
	case *ast.SelectorExpr:
		r.selector(n)
	case *ast.Ident:
		if obj := r.info.Uses[n]; obj != nil && obj.Pkg() != nil && obj.Pkg().Name() != "" {
			// A dot import's name: the same rewrite as pkg.Name.
			if obj.Parent() == obj.Pkg().Scope() && obj.Pkg() != r.own && !r.kept[n] {
				if text, ok := r.replacement(obj); ok {
					r.replace(n.Pos(), n.End(), text)
				}
			}
		}
	}
}

// filePackage is f's package: that of the objects it declares (Defs has
// none for the package clause's name), or nil if it declares none.
func filePackage(f *ast.File, info *types.Info) *types.Package {
	var own *types.Package
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && own == nil {
			if obj := info.Defs[id]; obj != nil && obj.Pkg() != nil {
				own = obj.Pkg()
			}
		}
		return own == nil
	})
	return own
}

// chanOf is the channel type of t, or of its core type; nil if t is not
// one.
func chanOf(t types.Type) *types.Chan {
	if t == nil {
		return nil
	}
	switch u := t.Underlying().(type) {
	case *types.Chan:
		return u
	case *types.Interface: // a type parameter's constraint
		var c *types.Chan
		for i := 0; i < u.NumEmbeddeds(); i++ {
			if un, ok := u.EmbeddedType(i).(*types.Union); ok {
				for j := 0; j < un.Len(); j++ {
					ch, ok := un.Term(j).Type().Underlying().(*types.Chan)
					if !ok {
						return nil
					}
					c = ch
				}
			} else if ch := chanOf(u.EmbeddedType(i)); ch != nil {
				c = ch
			}
		}
		return c
	}
	return nil
}

// isMap reports whether t is a map type, or a type parameter whose
// constraint's types are all maps.
func isMap(t types.Type) bool {
	if t == nil {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Map:
		return true
	case *types.Interface:
		found := false
		for i := 0; i < u.NumEmbeddeds(); i++ {
			switch e := u.EmbeddedType(i).(type) {
			case *types.Union:
				for j := 0; j < e.Len(); j++ {
					if _, ok := e.Term(j).Type().Underlying().(*types.Map); !ok {
						return false
					}
				}
				found = true
			default:
				if isMap(e) {
					found = true
				}
			}
		}
		return found
	}
	return false
}

// simNet reports whether the file's build runs the network over simnet's:
// it rewrites the standard HTTP stack (StdPackages), or would, where the
// build has none (Config.SimNet).
func (r *fileRewriter) simNet() bool {
	return r.cfg.SimNet || r.cfg.Rewritten != nil && r.cfg.Rewritten(StdPackages[0])
}

// boundaryFuncs are the standard functions that start work outside the
// scheduler, and their stand-ins in package boundary, which call them and
// note it in the run.
var boundaryFuncs = map[string]string{
	"net.Listen":                           "NetListen",
	"net.ListenPacket":                     "NetListenPacket",
	"net.Dial":                             "NetDial",
	"net.DialTimeout":                      "NetDialTimeout",
	"net/http.ListenAndServe":              "HTTPListenAndServe",
	"net/http.Serve":                       "HTTPServe",
	"net/http.Get":                         "HTTPGet",
	"net/http.Head":                        "HTTPHead",
	"net/http.Post":                        "HTTPPost",
	"net/http.PostForm":                    "HTTPPostForm",
	"net/http/httptest.NewServer":          "HTTPTestNewServer",
	"net/http/httptest.NewTLSServer":       "HTTPTestNewTLSServer",
	"net/http/httptest.NewUnstartedServer": "HTTPTestNewUnstartedServer",
	"os/exec.Command":                      "ExecCommand",
	"os/exec.CommandContext":               "ExecCommandContext",
	"database/sql.Open":                    "SQLOpen",
}

// replacement is what a reference to a standard package's object becomes,
// if it is rewritten.
func (r *fileRewriter) replacement(obj types.Object) (string, bool) {
	if obj.Pkg() == nil {
		return "", false
	}
	path, name := obj.Pkg().Path(), obj.Name()
	switch path {
	case "sync":
		switch name {
		case "Mutex", "RWMutex", "WaitGroup", "Once", "Cond", "NewCond", "OnceFunc", "OnceValue", "OnceValues", "Pool":
			return r.use(SchedPath) + "." + name, true
		}
	case "sync/atomic":
		return r.use(AtomicPath) + "." + name, true
	case "time":
		switch name {
		case "Now", "Since", "Until", "Sleep", "After", "Tick", "NewTimer", "NewTicker", "AfterFunc":
			return r.use(NativePath) + "." + name, true
		}
	case "context":
		switch name {
		case "WithCancel", "WithCancelCause", "WithDeadline", "WithDeadlineCause", "WithTimeout", "WithTimeoutCause", "Cause":
			return r.use(NativePath) + "." + name, true
		case "AfterFunc":
			return r.use(NativePath) + ".ContextAfterFunc", true
		}
	case "testing":
		if name == "T" && r.cfg.Wrap {
			return r.use(NativetestPath) + ".T", true
		}
	case "runtime":
		switch name {
		case "Gosched":
			return r.use(SchedPath) + ".Yield", true
		case "NumGoroutine", "Stack":
			return r.use(NativePath) + "." + name, true
		}
	case "math/rand":
		if _, ok := obj.(*types.Func); ok && !strings.HasPrefix(name, "New") && name != "Seed" {
			return r.use(NativePath) + ".Rand()." + name, true
		}
	case "os":
		if name == "WriteFile" {
			return r.use(SimdiskPath) + ".WriteFile", true
		}
	case "net", "net/http", "net/http/httptest", "os/exec", "database/sql":
		if r.simNet() {
			switch path + "." + name {
			case "net.Listen", "net.Dial", "net.DialTimeout":
				return r.use(SimnetPath) + "." + name, true
			}
			if path != "net" && slices.Contains(StdPackages, path) {
				return "", false // rewritten: its goroutines are the run's
			}
		}
		if fn, ok := boundaryFuncs[path+"."+name]; ok {
			return r.use(BoundaryPath) + "." + fn, true
		}
	case "math/rand/v2":
		if _, ok := obj.(*types.Func); ok && !strings.HasPrefix(name, "New") {
			if name == "N" {
				return r.use(NativePath) + ".RandN", true
			}
			return r.use(NativePath) + ".RandV2()." + name, true
		}
	}
	return "", false
}

// selector rewrites pkg.Name for the standard objects that have shims,
// and the method values and method expressions of the methods whose calls
// the rewrite carries over (those of timers and tickers, and reflect.Value's
// on channels), which would otherwise run the standard methods.
func (r *fileRewriter) selector(s *ast.SelectorExpr) {
	if id, ok := s.X.(*ast.Ident); ok {
		if _, ok := r.info.Uses[id].(*types.PkgName); ok {
			if r.kept[s] {
				return // replacement would import what it names
			}
			if text, ok := r.replacement(r.info.Uses[s.Sel]); ok {
				r.replace(s.Pos(), s.End(), text)
			}
			return
		}
	}
	sel := r.info.Selections[s]
	if sel != nil && sel.Kind() == types.FieldVal && isFrameFunction(sel.Obj()) && !r.assigned[s] {
		r.replace(s.Pos(), s.End(), r.use(NativePath)+".Function("+r.text(s)+")")
		return
	}
	if sel == nil || sel.Kind() == types.FieldVal {
		return
	}
	var call func(recv string, args []string) string // the call the rewrite makes of the method
	if isFuncName(sel.Obj()) {
		call = func(recv string, _ []string) string { return r.use(NativePath) + ".FuncName(" + recv + ")" }
	} else if pkg, shim := r.methodShim(sel.Obj()); shim != "" {
		call = func(recv string, args []string) string {
			return r.use(pkg) + "." + shim + "(" + strings.Join(append([]string{recv}, args...), ", ") + ")"
		}
	} else if reflectChanMethod(sel.Obj()) {
		at := strconv.Quote(r.place(s.Pos()))
		call = func(recv string, args []string) string {
			return r.use(NativePath) + ".Reflected(" + recv + ", " + strconv.Quote(s.Sel.Name) + ", " + at + ")." +
				s.Sel.Name + "(" + strings.Join(args, ", ") + ")"
		}
	} else {
		return
	}
	if sel.Kind() == types.MethodVal {
		if !r.called[s] { // call rewrites a call
			r.methodValue(s, sel, call)
		}
		return
	}
	r.methodExpr(s, sel, call)
}

// methodValue rewrites the method value s into a function literal that
// makes the rewritten call. As in Go, the receiver (through the embedded
// fields the selector goes through, and its address for a method with a
// pointer receiver) is evaluated once, where the method value is, and
// saved; the call uses the saved copy:
//
//	func() func(d time.Duration) bool { r := &x.f; return func(d time.Duration) bool { return TimerReset(r, d) } }()
func (r *fileRewriter) methodValue(s *ast.SelectorExpr, sel *types.Selection, call func(string, []string) string) {
	sig := sel.Type().(*types.Signature)
	recv := r.tmp()
	params, args := r.params(sig, 0)
	ft := "func(" + strings.Join(params, ", ") + ")" + r.results(sig)
	r.replace(s.Pos(), s.End(), "func() "+ft+" { "+recv+" := "+r.recvPath("("+r.text(s.X)+")", sel)+"; return "+
		ft+" { "+r.ret(sig)+call(recv, args)+" } }()")
}

// methodExpr rewrites the method expression s (T.m or (*T).m) into a
// function literal whose first parameter is the receiver, of the type s
// names.
func (r *fileRewriter) methodExpr(s *ast.SelectorExpr, sel *types.Selection, call func(string, []string) string) {
	sig := sel.Type().(*types.Signature)
	recv := r.tmp()
	params, args := r.params(sig, 1)
	params = append([]string{recv + " " + r.text(s.X)}, params...)
	r.replace(s.Pos(), s.End(), "func("+strings.Join(params, ", ")+")"+r.results(sig)+" { "+
		r.ret(sig)+call(r.recvPath(recv, sel), args)+" }")
}

// recvPath is the receiver a method selected by sel is called on, given x,
// the selector's operand: through the embedded fields, and its address
// (or what it points to) as the method's receiver is a pointer (or not).
func (r *fileRewriter) recvPath(x string, sel *types.Selection) string {
	x, t := embeddedPath(x, sel)
	_, isPtr := t.Underlying().(*types.Pointer)
	_, ptrRecv := sel.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer)
	switch {
	case ptrRecv && !isPtr:
		x = "&" + x
	case !ptrRecv && isPtr:
		x = "*" + x
	}
	return x
}

// embeddedPath is x, the operand of the selector sel, followed through the
// embedded fields sel goes through to the method's receiver, and the type
// of what it ends at.
func embeddedPath(x string, sel *types.Selection) (string, types.Type) {
	t := sel.Recv()
	idx := sel.Index()
	for _, i := range idx[:len(idx)-1] {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		f := t.Underlying().(*types.Struct).Field(i)
		x += "." + f.Name()
		t = f.Type()
	}
	return x, t
}

// params are the declarations of sig's parameters from the from'th, named
// by temporaries, and the arguments that pass them on.
func (r *fileRewriter) params(sig *types.Signature, from int) (decls, args []string) {
	for i := from; i < sig.Params().Len(); i++ {
		name := r.tmp()
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			decls = append(decls, name+" ..."+r.typeText(t.(*types.Slice).Elem()))
			args = append(args, name+"...")
			continue
		}
		decls = append(decls, name+" "+r.typeText(t))
		args = append(args, name)
	}
	return decls, args
}

// results is the result list of sig's function type, "" if it has none.
func (r *fileRewriter) results(sig *types.Signature) string {
	var ts []string
	for i := 0; i < sig.Results().Len(); i++ {
		ts = append(ts, r.typeText(sig.Results().At(i).Type()))
	}
	switch len(ts) {
	case 0:
		return ""
	case 1:
		return " " + ts[0]
	}
	return " (" + strings.Join(ts, ", ") + ")"
}

// ret is "return " if sig has results.
func (r *fileRewriter) ret(sig *types.Signature) string {
	if sig.Results().Len() > 0 {
		return "return "
	}
	return ""
}

// typeText is t as the rewritten file spells it: the packages it names are
// imported under names of the rewrite's own (stdImports), whatever the
// file imports.
func (r *fileRewriter) typeText(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		var b strings.Builder
		b.WriteString(tmpPrefix + "_")
		for _, c := range p.Path() {
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				b.WriteRune(c)
			} else {
				b.WriteByte('_')
			}
		}
		r.named[p.Path()] = b.String()
		return b.String()
	})
}
