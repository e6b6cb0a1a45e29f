package gotest

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Tests lists what go test would run, in its order: the package's test
// files by name, then the external test package's, each in declaration
// order; not TestMain, methods, lowercase names, other signatures, or
// files the build constraints leave out.
func TestTests(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"p.go": "package p\n\nfunc TestNotATestFile(t *T) {}\n\ntype T struct{}\n",
		"b_test.go": `package p

import tt "testing"

func TestB2(t *tt.T)   {}
func TestB1(t *tt.T)   {}
func TestMain(m *tt.M) {}
func Testlower(t *tt.T) {}
func Test(t *tt.T)     {}
func TestÄ(t *tt.T)    {}
func TestGeneric[X any](t *tt.T) {}
func TestTwo(t *tt.T, n int) {}
func TestResult(t *tt.T) error { return nil }
func TestB(b *tt.B)    {}
func BenchmarkX(b *tt.B) {}

type s struct{}

func (s) TestMethod(t *tt.T) {}
`,
		"a_test.go":             "package p\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n",
		"c_test.go":             "package p_test\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) {}\n",
		"aa_test.go":            "package p_test\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
		"off_test.go":           "//go:build never\n\npackage p\n\nimport \"testing\"\n\nfunc TestOff(t *testing.T) {}\n",
		"race_test.go":          "//go:build race\n\npackage p\n\nimport \"testing\"\n\nfunc TestRace(t *testing.T) {}\n",
		"other_windows_test.go": "package p\n\nimport \"testing\"\n\nfunc TestWindows(t *testing.T) {}\n",
		"notesting_test.go":     "package p\n\ntype T struct{}\n\nfunc TestFake(t *T) {}\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := build.Default
	ctx.GOOS = "linux"
	got, err := Tests(&ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"TestA", "TestB2", "TestB1", "Test", "TestÄ", "TestX", "TestC"}
	if !slices.Equal(got, want) {
		t.Errorf("Tests = %q, want %q", got, want)
	}
	ctx.BuildTags = []string{"race"}
	got, _ = Tests(&ctx, dir)
	if !slices.Contains(got, "TestRace") {
		t.Errorf("with the race tag, Tests = %q: no TestRace", got)
	}

	if err := os.WriteFile(filepath.Join(dir, "broken_test.go"), []byte("package p\n\nfunc TestBroken(\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Tests(&ctx, dir); err == nil {
		t.Error("Tests of a directory with a file that does not parse: no error")
	}
	got, err = Tests(&ctx, t.TempDir())
	if err != nil || len(got) != 0 {
		t.Errorf("Tests of an empty directory = %q, %v; want none and no error", got, err)
	}
}

// TopLevel reads -run and -skip as package testing does for a top-level
// test: alternatives at '|', elements at '/', neither inside brackets or
// parentheses, and -skip only by alternatives of one element.
func TestTopLevel(t *testing.T) {
	for _, c := range []struct {
		run, skip string
		in, out   []string
	}{
		{"", "", []string{"TestA", "TestB"}, nil},
		{"A", "", []string{"TestA", "TestAB"}, []string{"TestB"}},
		{"^TestA$", "", []string{"TestA"}, []string{"TestAB"}},
		{"^TestA$/sub", "", []string{"TestA"}, []string{"TestB"}},
		{"^TestA$/x|^TestB$", "", []string{"TestA", "TestB"}, []string{"TestC"}},
		{"Test(A|B)", "", []string{"TestA", "TestB"}, []string{"TestC"}},
		{"Test[/|]x|TestC", "", []string{"Test/x", "Test|x", "TestC"}, []string{"TestA"}},
		{`Test\|A`, "", []string{"Test|A"}, []string{"TestA"}},
		{"", "^TestA$", []string{"TestB"}, []string{"TestA"}},
		{"", "^TestA$/sub", []string{"TestA"}, nil},
		{"", "^TestA$/sub|B", []string{"TestA"}, []string{"TestB"}},
		{"Test", "C", []string{"TestA"}, []string{"TestC"}},
		{"(", "", []string{"TestA"}, nil}, // does not compile: go test refused it
	} {
		selected := TopLevel(c.run, c.skip)
		for _, n := range c.in {
			if !selected(n) {
				t.Errorf("-run %q -skip %q: %s not selected", c.run, c.skip, n)
			}
		}
		for _, n := range c.out {
			if selected(n) {
				t.Errorf("-run %q -skip %q: %s selected", c.run, c.skip, n)
			}
		}
	}
}
