package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/trace"
)

// A trace is untrusted input: the files its locations name are read for
// the source shown next to events (html's page, the stepper's pane) only
// when they are regular Go files inside the trace's module, the current
// module, the module cache or GOROOT, and small enough. These tests name
// what an attacker would, in traces written by the trace package's own
// writer.

// writeTrace writes a trace of the events evs, with header h and outcome
// o (nil: none, as if cut short), at path.
func writeTrace(t *testing.T, path string, h *trace.Header, o *trace.Outcome, evs ...trace.Event) string {
	t.Helper()
	var b bytes.Buffer
	w, err := trace.NewWriter(&b, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if err := w.Add(&e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(o); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// opLock is the operation Lock's number.
var opLock = uint8(slices.Index(trace.OpNames, "Lock"))

// traceNaming writes, at path, the trace of a run whose events are at
// lines 1 to 3 of each of files, one file after the other, a failure at
// the end.
func traceNaming(t *testing.T, path string, files ...string) string {
	t.Helper()
	evs := []trace.Event{
		{Kind: trace.KindSpawn, Arg: 1},
		{Kind: trace.KindObject, G: 1, Obj: 1, Text: "Mutex"},
	}
	step := int64(0)
	for _, f := range files {
		for line := 1; line <= 3; line++ {
			step++
			evs = append(evs, trace.Event{Kind: trace.KindOp, Step: step, G: 1, Time: step, Op: opLock, Obj: 1,
				Loc: trace.Location{Func: "example.com/m.f", File: f, Line: line}})
		}
	}
	return writeTrace(t, path, &trace.Header{Package: "example.com/m", Test: "TestM", Strategy: "random", Detail: true},
		&trace.Outcome{Kind: "fail", Message: "m_test.go:3: failed"}, evs...)
}

// page is what the tests read of html's page: its text, and its data.
type page struct {
	text   string
	src    map[string]map[int]string
	srcWhy map[string]string
	first  int64
	n      int64
	fail   []int64
	sel    int64
	lanes  []struct {
		G       int32   `json:"g"`
		Runs    []int64 `json:"runs"`
		Blocked []int64 `json:"blocked"`
		Events  int64   `json:"events"`
	}
	omitted string
	ev      struct {
		Step []int64 `json:"s"`
	}
}

// htmlOf runs dstreplay html on the trace at path (with args before it)
// and reads the page.
func htmlOf(t *testing.T, path string, args ...string) page {
	t.Helper()
	out := filepath.Join(t.TempDir(), "page.html")
	var stdout, stderr bytes.Buffer
	args = append(append([]string{"html", "-o", out}, args...), path)
	if code := Main(args, &stdout, &stderr); code != ExitOK {
		t.Fatalf("dstreplay html: exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	_, data, ok := strings.Cut(text, `<script type="application/json" id="dst-data">`)
	data, _, ok2 := strings.Cut(data, "</script>")
	if !ok || !ok2 {
		t.Fatal("the page has no data")
	}
	var d struct {
		Src     map[string]map[int]string `json:"src"`
		SrcWhy  map[string]string         `json:"srcWhy"`
		First   int64                     `json:"first"`
		N       int64                     `json:"n"`
		Fail    []int64                   `json:"fail"`
		Select  int64                     `json:"select"`
		Omitted string                    `json:"omitted"`
	}
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatalf("the page's data: %v", err)
	}
	p := page{text: text, src: d.Src, srcWhy: d.SrcWhy, first: d.First, n: d.N, fail: d.Fail, sel: d.Select, omitted: d.Omitted}
	var rest struct {
		Lanes *[]struct {
			G       int32   `json:"g"`
			Runs    []int64 `json:"runs"`
			Blocked []int64 `json:"blocked"`
			Events  int64   `json:"events"`
		} `json:"lanes"`
		Ev *struct {
			Step []int64 `json:"s"`
		} `json:"ev"`
	}
	rest.Lanes, rest.Ev = &p.lanes, &p.ev
	if err := json.Unmarshal([]byte(data), &rest); err != nil {
		t.Fatalf("the page's data: %v", err)
	}
	return p
}

// paneOf opens the stepper on the trace at path, moves to event n (from
// 0) and returns its source pane's section of the screen.
func paneOf(t *testing.T, path string, n int64) string {
	t.Helper()
	m := stepperOn(t, path)
	m.move(m.c.Goto(n))
	view := plain(m.View())
	_, after, ok := strings.Cut(view, "── events")
	if !ok {
		t.Fatalf("no events section:\n%s", view)
	}
	_, pane, _ := strings.Cut(after, "\n── ")
	pane, _, _ = strings.Cut(pane, "── goroutines")
	return pane
}

// secretFile writes, outside any module, a file every line of which holds
// marker.
func secretFile(t *testing.T, name, marker string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "%s line %d\n", marker, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// module makes a module in a temporary directory, with the files given
// (path: content), and returns its directory.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.24\n"
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A trace naming files outside the modules (a secret, /etc/passwd) gets
// no line of them into the page or the pane, which say the source is not
// available and why. Regression: html embedded the lines around every
// location from whatever file it named.
func TestSourceOutsideTheModule(t *testing.T) {
	const marker = "SECRET-7f3a9c"
	secret := secretFile(t, "secret.go", marker)
	files := []string{secret}
	passwd := ""
	if b, err := os.ReadFile("/etc/passwd"); err == nil && len(b) > 0 {
		passwd, _, _ = strings.Cut(string(b), "\n") // its first line
		files = append(files, "/etc/passwd")
	}
	path := traceNaming(t, filepath.Join(t.TempDir(), "x.trace"), files...)

	p := htmlOf(t, path)
	if strings.Contains(p.text, marker) || passwd != "" && strings.Contains(p.text, passwd) {
		t.Errorf("the page holds the content of a file outside the module")
	}
	for _, f := range files {
		if why := p.srcWhy[f]; !strings.HasPrefix(why, "source not available: ") {
			t.Errorf("the page says of %s: %q; want that its source is not available, and why", f, why)
		}
		if len(p.src[f]) > 0 {
			t.Errorf("the page embeds lines of %s", f)
		}
	}
	if !strings.Contains(p.srcWhy[secret], "outside the module") {
		t.Errorf("the page says of %s: %q; want outside the module", secret, p.srcWhy[secret])
	}

	for i, f := range files {
		pane := paneOf(t, path, int64(2+3*i))
		if strings.Contains(pane, marker) || passwd != "" && strings.Contains(pane, passwd) {
			t.Errorf("the source pane shows the content of %s:\n%s", f, pane)
		}
		if !strings.Contains(pane, "source not available: ") {
			t.Errorf("the source pane at %s does not say its source is not available:\n%s", f, pane)
		}
	}
}

// The reader's own rules, one by one: the roots, the name, the kind of
// file, the size.
func TestSourceReader(t *testing.T) {
	mod := module(t, map[string]string{
		"a.go":        "package m\n\n// line 3\n",
		"big.go":      strings.Repeat("x", 1000) + "\n",
		"sub/b.go":    "package sub\n",
		"sub/notes":   "notes\n",
		"../other.go": "package other\n",
	})
	s := &sourceReader{files: map[string]sourceFile{}, limit: 100, goRoots: true}
	s.addRoot(mod)
	s.addRoot("/") // never a root
	s.addRoot("")
	s.addRoot("relative/dir")
	if len(s.roots) != 1 {
		t.Fatalf("roots %q: want only the module", s.roots)
	}
	if l, err := s.lines(filepath.Join(mod, "a.go")); err != nil || len(l) != 3 || l[2] != "// line 3" {
		t.Errorf("a.go: %q, %v", l, err)
	}
	if l, err := s.lines(filepath.Join(mod, "sub", "..", "sub", "b.go")); err != nil || len(l) != 1 {
		t.Errorf("sub/../sub/b.go: %q, %v", l, err)
	}
	for name, want := range map[string]string{
		filepath.Join(mod, "big.go"):         "file too large",
		filepath.Join(mod, "sub", "notes"):   "not a Go source file",
		filepath.Join(mod, "..", "other.go"): "outside the module",
		filepath.Join(mod, "missing.go"):     "not on disk",
		"a.go":                               "not an absolute path",
		"":                                   "no file named",
		filepath.Join(mod, "sub/../../x/../a.go\x00"): "not a Go source file",
	} {
		if l, err := s.lines(name); err == nil || !strings.Contains(err.Error(), want) || l != nil {
			t.Errorf("%q: %q, %v; want %q", name, l, err, want)
		}
	}
	s2 := &sourceReader{files: map[string]sourceFile{}, limit: 10, goRoots: true}
	s2.addRoot(mod)
	if _, err := s2.lines(filepath.Join(mod, "a.go")); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a.go with a limit of 10 bytes: %v", err)
	}
}

// newSourceReader's roots: the trace's module, the current directory's,
// the module cache and GOROOT/src; nothing above them.
func TestSourceReaderRoots(t *testing.T) {
	mod := module(t, map[string]string{"a.go": "package m\n"})
	s := newSourceReader(filepath.Join(mod, "testdata", "dst", "x.trace"))
	s.addGoRoots()
	wd, _ := os.Getwd()
	d := goDirs()
	for _, dir := range []string{mod, moduleDir(wd), d.modcache, filepath.Join(d.goroot, "src")} {
		dir, _ = filepath.EvalSymlinks(dir)
		if !slices.Contains(s.roots, dir) {
			t.Errorf("roots %q lack %s", s.roots, dir)
		}
	}
	if d.goroot == "" || d.modcache == "" {
		t.Errorf("go env: %+v", d)
	}
	// The standard library's files, as locations name them.
	if l, err := s.lines(filepath.Join(d.goroot, "src", "fmt", "print.go")); err != nil || len(l) < 100 {
		t.Errorf("GOROOT's fmt/print.go: %d lines, %v", len(l), err)
	}
	for _, r := range s.roots {
		if r == "/" || r == filepath.Dir(mod) {
			t.Errorf("root %s", r)
		}
	}
}
