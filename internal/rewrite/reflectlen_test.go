package rewrite_test

import (
	"go/ast"
	"go/parser"
	"go/types"
	"os"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// TestReflectLenRewritten: reflect.Value.Len goes through native.Reflected
// however it is reached (a call on a Value, on a pointer to one, on a
// struct embedding one, a method value, a method expression), and the
// rewritten file type-checks; Cap stays reflect's.
func TestReflectLenRewritten(t *testing.T) {
	src := `package p

import "reflect"

type wrapped struct{ reflect.Value }

func lens(x any) []int {
	v := reflect.ValueOf(x)
	p := &v
	w := wrapped{v}
	pw := &w
	f, g := v.Len, w.Len
	return []int{reflect.ValueOf(x).Len(), v.Len(), p.Len(), w.Len(), pw.Len(), f(), g(), reflect.Value.Len(v), v.Cap()}
}
`
	out, errs := rewriteWith(t, sourceFset, sourceImporter, "/src/p.go", src, rewrite.Config{})
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	f, err := parser.ParseFile(sourceFset, "/src/p.go", out, 0)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := (&types.Config{Importer: sourceImporter}).Check("p", sourceFset, []*ast.File{f}, nil); err != nil {
		t.Fatalf("the rewritten file does not type-check: %v\n%s", err, out)
	}
	lens := 0
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok && s.Sel.Name == "Len" {
			if c, ok := s.X.(*ast.CallExpr); !ok || !strings.HasSuffix(types.ExprString(c.Fun), ".Reflected") {
				t.Errorf("%s: %s.Len is left", sourceFset.Position(s.Pos()), types.ExprString(s.X))
			}
			lens++
		}
		return true
	})
	if lens != 8 {
		t.Errorf("%d calls of Len through Reflected, want 8:\n%s", lens, out)
	}
	if !strings.Contains(out, "v.Cap()") {
		t.Errorf("v.Cap() is not left as it is:\n%s", out)
	}
}

// reflectLenSuite is the test of github.com/jellydator/ttlcache/v3's
// Test_Cache_Stop (testify's assert.Len on a channel, through
// reflect.Value.Len in testify's code), with the other ways to reach
// reflect.Value.Len and the lengths of the other kinds.
const reflectLenSuite = `package m

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

type cache struct{ stopCh chan struct{} }

func (c *cache) Stop() { c.stopCh <- struct{}{} }

type wrapped struct{ reflect.Value }

func TestLen(t *testing.T) {
	c := &cache{stopCh: make(chan struct{}, 1)}
	c.Stop()
	assert.Len(t, c.stopCh, 1)

	ch := make(chan int, 3)
	ch <- 1
	assert.Len(t, ch, 1)
	assert.Len(t, (<-chan int)(ch), 1)
	v := reflect.ValueOf(ch)
	p, w, f := &v, wrapped{v}, v.Len
	assert.Equal(t, []int{1, 1, 1, 1, 1, 3}, []int{v.Len(), p.Len(), w.Len(), f(), reflect.Value.Len(v), v.Cap()})
	done := make(chan bool)
	go func() { ch <- 2; ch <- 3; done <- true }()
	<-done
	assert.Len(t, ch, 3)
	<-ch
	assert.Len(t, ch, 2)

	assert.Len(t, []int{1, 2}, 2)
	assert.Len(t, map[string]int{"a": 1}, 1)
	assert.Len(t, "héllo", 6)
	assert.Len(t, [4]int{}, 4)
}
`

// TestReflectLenRun: testify's assert.Len on a channel holding a value,
// in a test run under -wrap (testify rewritten with it, as dstreplay test
// -wrap rewrites every dependency by default), passes as under go test: reflect.Value.Len of a channel of the run is the run's channel's
// length, not a misuse.
func TestReflectLenRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	// The module has dstreplay as a tool, as a user's does (the rewritten
	// code imports this module); once tidied, its go.mod needs no update,
	// which -mod=mod would try where the overlay replaces go.mod.
	dir := tempModule(t, append(os.Environ(), "GOFLAGS=-mod=mod"), map[string]string{
		"go.mod":      "require github.com/stretchr/testify v1.12.1\n\ntool github.com/dstgo/dst/cmd/dstreplay\n",
		"len_test.go": reflectLenSuite,
	})
	env := os.Environ()
	if got, out := goTestJSON(t, dir, env, "-run", "^TestLen$", "."); got["TestLen"] != "pass" {
		t.Fatalf("natively, TestLen: %q\n%s", got["TestLen"], out["TestLen"])
	}
	overlay, _, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: []string{"."}, Wrap: true, Deps: true, Env: env, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	env = append(env, rewrite.EnvMarker+"=-wrap")
	got, out := goTestJSON(t, dir, env, "-overlay="+overlay, "-dst.iters=20", "-run", "^TestLen$", ".")
	if got["TestLen"] != "pass" || !strings.Contains(out["TestLen"], " schedules passed") {
		t.Errorf("wrapped, TestLen: %q, want a pass under the scheduler\n%s", got["TestLen"], out["TestLen"])
	}
}
