package rewrite_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// oldModules are two modules as they ship on the proxy: one without a go
// directive (go1.16, as a module without go.mod compiles), one at go 1.18
// with generics. Their tests pass natively only with one variable per loop
// (Go before 1.22), and their code uses what the rewrite turns into generic
// calls and ranges over functions (go1.18, go1.23).
var oldModules = map[string]string{
	"go.mod": "require (\n\texample.com/old v0.0.0\n\texample.com/gen v0.0.0\n)\n\nreplace example.com/old => ./old\n\nreplace example.com/gen => ./gen\n",
	"use.go": "package m\n\nimport (\n\t_ \"example.com/gen\"\n\t_ \"example.com/old\"\n)\n",

	"old/go.mod": "module example.com/old\n",
	"old/old.go": `// Copyright line, then a build constraint of the old form.

// +build !dstnever

// Package old is written for Go 1.16.
package old

import "sync"

// Funcs returns closures over a loop's variable.
func Funcs(n int) []func() int {
	var fs []func() int
	var mu sync.Mutex
	for i := 0; i < n; i++ {
		mu.Lock()
		fs = append(fs, func() int { return i })
		mu.Unlock()
	}
	return fs
}

// Ptrs takes the address of a range's value, in a labeled loop.
func Ptrs(xs []string) []*string {
	var ps []*string
outer:
	for _, x := range xs {
		for j := 0; j < 1; j++ {
			ps = append(ps, &x)
			continue outer
		}
	}
	return ps
}

// Drain keeps closures over a channel range's value.
func Drain(c chan int) []func() int {
	var fs []func() int
	for v := range c {
		fs = append(fs, func() int { return v })
	}
	return fs
}

// Keys takes the address of a map range's key.
func Keys(m map[string]bool) []*string {
	var ps []*string
	for k := range m {
		ps = append(ps, &k)
	}
	return ps
}

type counter struct{ n int }

func (c *counter) self() *counter { return c }

// Selves calls a pointer method on an array range's value.
func Selves(cs [3]counter) []*counter {
	var ps []*counter
	for _, c := range cs {
		ps = append(ps, c.self())
	}
	return ps
}

// Runes keeps closures over a string range's variables.
func Runes(s string) []func() (int, rune) {
	var fs []func() (int, rune)
	for i, r := range s {
		fs = append(fs, func() (int, rune) { return i, r })
	}
	return fs
}

// Plain has loops nothing captures: they stay as written.
func Plain(xs []int) (sum int) {
	for i := 0; i < len(xs); i++ {
		sum += xs[i]
	}
	for _, x := range xs {
		sum += x
	}
	return sum
}
`,
	"old/tagged.go": `//go:build !dstnever
// +build !dstnever

package old

// Async sends from a goroutine and selects.
func Async(n int) int {
	c := make(chan int)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < n; i++ {
			c <- i
		}
	}()
	sum := 0
	for {
		select {
		case v := <-c:
			sum += v
		case <-done:
			return sum
		}
	}
}
`,
	"old/old_test.go": `package old

import "testing"

func TestFuncs(t *testing.T) {
	for _, f := range Funcs(3) {
		if f() != 3 {
			t.Fatalf("a closure saw %d: one variable per iteration, not per loop", f())
		}
	}
}

func TestPtrs(t *testing.T) {
	if ps := Ptrs([]string{"a", "b"}); ps[0] != ps[1] || *ps[0] != "b" {
		t.Fatal("two variables, not one per loop")
	}
}

func TestDrain(t *testing.T) {
	c := make(chan int, 2)
	c <- 1
	c <- 2
	close(c)
	for _, f := range Drain(c) {
		if f() != 2 {
			t.Fatalf("a closure saw %d", f())
		}
	}
}

func TestKeys(t *testing.T) {
	if ps := Keys(map[string]bool{"a": true, "b": true}); ps[0] != ps[1] {
		t.Fatal("two variables, not one per loop")
	}
}

func TestSelves(t *testing.T) {
	if ps := Selves([3]counter{}); ps[0] != ps[2] {
		t.Fatal("three variables, not one per loop")
	}
}

func TestRunes(t *testing.T) {
	for _, f := range Runes("ab") {
		if i, r := f(); i != 1 || r != 'b' {
			t.Fatalf("a closure saw %d %q", i, r)
		}
	}
}

func TestPlainAndAsync(t *testing.T) {
	if Plain([]int{1, 2}) != 6 || Async(4) > 6 {
		t.Fatal("wrong sums")
	}
}
`,

	"gen/go.mod": "module example.com/gen\n\ngo 1.18\n",
	"gen/gen.go": `package gen

import "sync"

// Each runs f on every element in a goroutine of its own, and returns
// closures over the loop's variable.
func Each[S ~[]E, E any](xs S, f func(E)) []func() E {
	var wg sync.WaitGroup
	var fs []func() E
	for _, x := range xs {
		wg.Add(1)
		go func(x E) { defer wg.Done(); f(x) }(x)
		fs = append(fs, func() E { return x })
	}
	wg.Wait()
	return fs
}
`,
	"gen/gen_test.go": `package gen

import (
	"sync"
	"testing"
)

func TestEach(t *testing.T) {
	var mu sync.Mutex
	seen := 0
	fs := Each([]int{1, 2, 3}, func(x int) { mu.Lock(); seen += x; mu.Unlock() })
	if seen != 6 {
		t.Fatalf("seen %d", seen)
	}
	for _, f := range fs {
		if f() != 3 {
			t.Fatalf("a closure saw %d", f())
		}
	}
}
`,
}

// TestOldLanguageVersions: modules that declare an old Go (no go
// directive, go 1.18) build under the rewrite, whose code needs go1.23, and
// keep their meaning (one variable per loop): their tests, which pass
// natively only with Go's old loops, pass under -wrap, on the scheduler.
func TestOldLanguageVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules of their own")
	}
	files := map[string]string{}
	for k, v := range oldModules {
		files[k] = v
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	dir := tempModule(t, env, files)
	pkgs := []string{"example.com/old", "example.com/gen"}
	tests := []string{"TestFuncs", "TestPtrs", "TestDrain", "TestKeys", "TestSelves", "TestRunes", "TestPlainAndAsync", "TestEach"}

	native, out := goTestJSON(t, dir, env, pkgs...)
	for _, name := range tests {
		if native[name] != "pass" {
			t.Errorf("natively, %s: %q\n%s", name, native[name], out[name])
		}
	}

	overlay, _, err := rewrite.Overlay(rewrite.Options{Dir: dir, Patterns: pkgs, Rewrite: []string{"example.com/..."}, Wrap: true, Env: env, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	env = append(env, rewrite.EnvMarker+"=-wrap")
	got, out := goTestJSON(t, dir, env, append(append([]string{"-overlay=" + overlay}, pkgs...), "-dst.iters=20")...)
	for _, name := range tests {
		if got[name] != "pass" || !strings.Contains(out[name], " schedules passed") {
			t.Errorf("rewritten, %s: %q, want a pass on the scheduler\n%s\n%v", name, got[name], out[name], out)
		}
	}
}

// rewriteAt type-checks src as a file of the given language version and
// rewrites it.
func rewriteAt(t *testing.T, goVersion, src string) (string, []*rewrite.Error) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "/src/p.go", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances: map[*ast.Ident]types.Instance{}, FileVersions: map[*ast.File]string{}}
	conf := types.Config{Importer: importer.Default(), GoVersion: goVersion}
	if _, err := conf.Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	out, errs := rewrite.File(fset, f, info, "/src/p.go", []byte(src), rewrite.Config{})
	return string(out), errs
}

// TestVersionRaised: the //go:build line a rewritten old file gets, from
// its own constraints; a file at go1.23 or later keeps its header.
func TestVersionRaised(t *testing.T) {
	body := "package p\n\nfunc f(c chan int) { c <- 1 }\n"
	for _, tc := range []struct{ version, header, want string }{
		{"go1.16", "", "//go:build go1.23\n\n/*line /src/p.go:1:1*/package p"},
		{"go1.20", "// +build linux darwin\n// +build amd64\n\n", "//go:build (linux || darwin) && amd64 && go1.23"},
		{"go1.21", "//go:build linux\n// +build linux\n\n", "//go:build linux && go1.23"},
		{"go1.23", "//go:build linux\n\n", "//go:build linux\n"},
		{"go1.16", "// Package p.\n// +build linux\npackage p\n", "//go:build go1.23\n\n"}, // a +build line in the doc comment does not count
	} {
		src := tc.header + body
		if strings.HasSuffix(tc.header, "package p\n") {
			src = tc.header + strings.TrimPrefix(body, "package p\n")
		}
		out, errs := rewriteAt(t, tc.version, src)
		if len(errs) > 0 {
			t.Fatalf("%s %q: %v", tc.version, tc.header, errs)
		}
		if !strings.Contains(out, tc.want) || tc.version == "go1.23" && strings.Contains(out, "go1.23") {
			t.Errorf("%s, header %q:\n%s\nwant %q", tc.version, tc.header, out, tc.want)
		}
	}
}

// TestSharedLoopRefusals: a loop the rewrite of an old file cannot keep
// one variable for is an error naming it, not a change of meaning.
func TestSharedLoopRefusals(t *testing.T) {
	src := `package p

func f() (fs []func() int) {
	i := 0
	goto L
L:
	for j := 0; j < 3; j++ {
		fs = append(fs, func() int { return i + j })
	}
	return fs
}
`
	_, errs := rewriteAt(t, "go1.20", src)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "p.go:6:1: the variables of loop L are captured") {
		t.Fatalf("errors %v, want the goto's loop refused", errs)
	}
	if out, errs := rewriteAt(t, "go1.22", src); len(errs) > 0 || out != "" {
		t.Fatalf("at go1.22 the file needs no rewrite: %q %v", out, errs)
	}
}
