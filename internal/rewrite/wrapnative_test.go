package rewrite_test

import (
	"go/ast"
	"go/parser"
	"go/types"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/rewrite"
)

// TestWrapRunsFrameworkTestsNatively: under -wrap, a test that hands its
// *testing.T (or a subtest's) to a function that is not rewritten and
// needs go test's own (a framework's runner, as gopkg.in/check.v1's
// TestingT) is left as it is, runs natively and says so on the standard
// error when it starts; the file's other tests are wrapped, and the file
// compiles. A helper that hands its t on is still refused
// (TestWrapRefusesUnrewrittenT).
func TestWrapRunsFrameworkTestsNatively(t *testing.T) {
	src := `package p

import (
	"log/slog"
	"testing"
	"testing/slogtest"
)

var _ slog.Handler

func TestHandler(t *testing.T) { slogtest.Run(t, func(*testing.T) slog.Handler { return nil }, nil) }

func TestSub(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		slogtest.Run(t, func(*testing.T) slog.Handler { return nil }, nil)
	})
}

func TestWrapped(t *testing.T) { t.Log("wrapped") }

func FuzzTarget(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) { slogtest.Run(t, func(*testing.T) slog.Handler { return nil }, nil) })
}
`
	out, errs := rewriteWith(t, sourceFset, sourceImporter, "/src/p_test.go", src, rewrite.Config{Wrap: true})
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	note := func(name string, line int) string {
		return `_dst_os.Stderr.WriteString("dstreplay test -wrap: ` + name + ` runs natively, not under the scheduler: it hands its *testing.T ` +
			`to testing/slogtest.Run (p_test.go:` + string(rune('0'+line/10)) + string(rune('0'+line%10)) + `), which is not rewritten; ` +
			`the standard library is never rewritten\n");`
	}
	for _, want := range []string{
		"func TestHandler(t *testing.T) { " + note("TestHandler", 11),
		"func TestSub(t *testing.T) { " + note("TestSub", 15),
		`t.Run("sub", func(t *testing.T) {`,
		"func TestWrapped(t *testing.T) {_dstw.Wrap(t, func(t *_dstw.T) {",
		// once, before f.Fuzz, not at each input
		note("the fuzz target", 22) + " /*line /src/p_test.go:22:2*/f.Fuzz(func(t *testing.T, b []byte) { slogtest.Run(",
		`_dst_os "os"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the rewrite lacks %q:\n%s", want, out)
		}
	}
	f, err := parser.ParseFile(sourceFset, "/out/p_test.go", out, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := (&types.Config{Importer: sourceImporter}).Check("p", sourceFset, []*ast.File{f}, nil); err != nil {
		t.Fatalf("the rewritten file does not compile: %v\n%s", err, out)
	}
}
