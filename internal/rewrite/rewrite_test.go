package rewrite_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// rewriteSource type-checks src as the file /src/p.go and rewrites it.
func rewriteSource(t *testing.T, src string) (string, []*rewrite.Error) {
	t.Helper()
	return rewriteSourceWith(t, src, rewrite.Config{})
}

// rewriteSourceWith is rewriteSource with a Config.
func rewriteSourceWith(t *testing.T, src string, cfg rewrite.Config) (string, []*rewrite.Error) {
	t.Helper()
	return rewriteFile(t, "/src/p.go", src, cfg)
}

// rewriteFile type-checks src as the file name and rewrites it with cfg.
func rewriteFile(t *testing.T, name, src string, cfg rewrite.Config) (string, []*rewrite.Error) {
	t.Helper()
	return rewriteWith(t, token.NewFileSet(), importer.Default(), name, src, cfg)
}

// The standard library and this module's packages, from source, for the
// rewrites whose files import this module's packages (which
// importer.Default does not find). Not safe for parallel tests.
var (
	sourceFset     = token.NewFileSet()
	sourceImporter = importer.ForCompiler(sourceFset, "source", nil)
)

// rewriteWith type-checks src as the file name with imp and rewrites it
// with cfg.
func rewriteWith(t *testing.T, fset *token.FileSet, imp types.Importer, name, src string, cfg rewrite.Config) (string, []*rewrite.Error) {
	t.Helper()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances: map[*ast.Ident]types.Instance{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	out, errs := rewrite.File(fset, f, info, name, []byte(src), cfg)
	return string(out), errs
}

// TestRefusals: a construct the rewrite cannot carry over is an error
// naming its place and the construct, and the file is not rewritten.
func TestRefusals(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"goto to a labeled select", `package p

func f(c chan int) {
	goto L
L:
	select {
	case <-c:
	}
}
`, "/src/p.go:5:1: goto L: a goto to a labeled select cannot be rewritten"},
		{"a named boolean ok that is not a variable's name", `package p

type Open bool

func f(c chan int, s *struct{ ok Open }) {
	_, s.ok = <-c
}
`, "/src/p.go:6:5: the ok of this receive is a p.Open but not a variable's name: it cannot be rewritten; receive into a variable of that type first"},
	} {
		out, errs := rewriteSource(t, c.src)
		if out != "" || len(errs) != 1 || errs[0].Error() != c.want {
			t.Errorf("%s: got %q, errors %v; want the error %q", c.name, out, errs, c.want)
		}
	}
}

// TestPositionsKept: every original token of a rewritten file keeps its
// line and column, through the directives the rewrite leaves after each
// edit, so that stack traces and reports name the original places.
func TestPositionsKept(t *testing.T) {
	src := `package p

import (
	"sync"
	"time"
)

func f(c chan int, mu *sync.Mutex) int {
	go func() { c <- 1 }()
	select {
	case v := <-c:
		mu.Lock()
		marker1 := v
		mu.Unlock()
		return marker1
	case <-time.After(time.Second):
	}
	marker2 := len(c)
	return marker2
}
`
	out, errs := rewriteSource(t, src)
	if len(errs) > 0 || out == "" {
		t.Fatalf("errors %v, output %q", errs, out)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "/out/p.go", out, parser.ParseComments)
	if err != nil {
		t.Fatalf("the rewritten file does not parse: %v\n%s", err, out)
	}
	for _, name := range []string{"marker1", "marker2"} {
		want := strings.Index(src, name+" :=")
		wantPos := token.NewFileSet()
		tf := wantPos.AddFile("/src/p.go", -1, len(src))
		tf.SetLinesForContent([]byte(src))
		wp := tf.Position(tf.Pos(want))
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if ok && id.Name == name && !found {
				found = true
				p := fset.Position(id.Pos()) // adjusted by the /*line*/ directives
				if p.Filename != "/src/p.go" || p.Line != wp.Line || p.Column != wp.Column {
					t.Errorf("%s is at %s in the rewritten file, want %s", name, p, wp)
				}
			}
			return true
		})
		if !found {
			t.Errorf("%s not in the rewritten file:\n%s", name, out)
		}
	}
	for _, want := range []string{"_dstn.To(", "_dstn.Select(", "_dstn.After", "_dstn.Len(", "_dsts.Mutex"} {
		if !strings.Contains(out, want) {
			t.Errorf("the rewritten file has no %s:\n%s", want, out)
		}
	}
}

// TestGivenChannelsMarked: a channel handed to the standard library (never
// rewritten) goes through native.Given with the function and the place;
// other arguments, and functions the rewrite shims, are left alone.
func TestGivenChannelsMarked(t *testing.T) {
	src := `package p

import (
	"fmt"
	"os"
	"os/signal"
)

func f() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	fmt.Println(c)
}
`
	out, errs := rewriteSource(t, src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if want := `_dstn.Given(/*line /src/p.go:11:16*/c, "os/signal.Notify", "p.go:11")`; !strings.Contains(out, want) {
		t.Errorf("no %s in:\n%s", want, out)
	}
	if strings.Count(out, "Given(") != 1 {
		t.Errorf("only the channel parameter is marked:\n%s", out)
	}
	// What is rewritten is what Config.Rewritten says (dstreplay test knows
	// its targets): a package it names takes the channel as it is.
	out, errs = rewriteSourceWith(t, src, rewrite.Config{Rewritten: func(path string) bool { return path == "os/signal" }})
	if len(errs) > 0 || strings.Contains(out, "Given(") {
		t.Errorf("os/signal rewritten, the channel is still marked (%v):\n%s", errs, out)
	}
}

// TestReflectionChecked: the calls of reflection that operate on channels
// go through native.Reflected and native.ReflectSelect, which refuse a
// channel of the run; the others stay as they are.
func TestReflectionChecked(t *testing.T) {
	src := `package p

import "reflect"

func f(c chan int) {
	v := reflect.ValueOf(c)
	_ = v.Len() + v.Cap()
	reflect.Select([]reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: v}})
	v.Close()
}
`
	out, errs := rewriteSource(t, src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	out = regexp.MustCompile(`/\*line [^*]*\*/`).ReplaceAllString(out, "") // the line directives
	for _, want := range []string{`_dstn.Reflected(v, "Len", "p.go:7").Len() + v.Cap()`,
		`_dstn.ReflectSelect([]reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: v}}, "p.go:8")`,
		`_dstn.Reflected(v, "Close", "p.go:9").Close()`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, out)
		}
	}
}
