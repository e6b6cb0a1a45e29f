package cli_test

// A trace is untrusted input (issue 26): dstreplay exec and debug hand its
// package, its test and its rewrite options to the go command, so hostile
// values must be refused before any command runs. Each trace here is
// written by the trace package's own writer (valid CRCs). The go command
// the CLI runs is a wrapper on $PATH that logs every invocation before it
// runs the real one (or, for go test, does not run it), so that a test
// sees what ran.

import (
	"archive/zip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/cli"
	"github.com/dstgo/dst/trace"
)

// attackTrace writes a trace of one scheduling point recorded by test of
// package pkg, with header options opts, which ended in a deadlock.
func attackTrace(t *testing.T, pkg, test string, opts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hostile.trace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := trace.NewWriter(f, &trace.Header{Package: pkg, Test: test, Strategy: "random", Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []trace.Event{{Kind: trace.KindSpawn, Arg: 1}, {Kind: trace.KindOp, Step: 1, G: 1, Op: 5}} {
		if err := w.Add(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(&trace.Outcome{Kind: "deadlock", Steps: 1}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// attackGo puts a go command first on $PATH that appends its arguments to
// the returned log file, one invocation a line, then runs the real go; with
// runTests false, go test is logged and not run (it exits with 3).
func attackGo(t *testing.T, runTests bool) (log string) {
	t.Helper()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log = filepath.Join(dir, "go.log")
	block := ""
	if !runTests {
		block = `if [ "$1" = test ]; then exit 3; fi` + "\n"
	}
	script := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$*\" >> '%s'\n%sexec '%s' \"$@\"\n", log, block, real)
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// goRan is what the go wrapper logged: one line per invocation.
func goRan(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// attackModule makes the current directory a new module example.com/tiny
// with one test, TestX, so that whatever go test an old dstreplay would
// run builds little.
func attackModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":       "module example.com/tiny\n\ngo 1.26\n",
		"tiny.go":      "package tiny\n",
		"tiny_test.go": "package tiny\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

// refused runs dstreplay cmd on path and checks that it exits with
// ExitUsage, naming the trace and saying want.
func refused(t *testing.T, cmd, path, want string) {
	t.Helper()
	out, errOut, code := run(cmd, path)
	prefix := fmt.Sprintf("dstreplay %s: %s: ", cmd, path)
	if code != cli.ExitUsage || !strings.Contains(errOut, prefix+want) {
		t.Errorf("dstreplay %s of a hostile trace: exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", cmd, code, cli.ExitUsage, prefix+want, out, errOut)
	}
}

// A package that is a go flag, -toolexec, ran a shell command on exec.
func TestAttackToolexecPackage(t *testing.T) {
	attackModule(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	pkg := fmt.Sprintf(`-toolexec=/bin/sh -c "touch %s" sh`, marker)
	path := attackTrace(t, pkg, "TestX")
	log := attackGo(t, true)
	for _, cmd := range []string{"exec", "debug"} {
		refused(t, cmd, path, fmt.Sprintf("the trace's package %q is not the import path of a package: it begins with '-', as a flag does", pkg))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the trace's -toolexec command ran: %s exists", marker)
	}
	if ran := goRan(t, log); len(ran) > 0 {
		t.Errorf("the go command ran: %q", ran)
	}
}

// A package that is -overlay added a file of the attacker's to the
// package under test, whose init ran.
func TestAttackOverlayPackage(t *testing.T) {
	dir := attackModule(t)
	evil := t.TempDir()
	marker := filepath.Join(evil, "pwned")
	src := fmt.Sprintf("package tiny\n\nimport \"os\"\n\nfunc init() { os.WriteFile(%q, nil, 0o644) }\n", marker)
	if err := os.WriteFile(filepath.Join(evil, "evil.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(evil, "overlay.json")
	js := fmt.Sprintf(`{"Replace": {%q: %q}}`, filepath.Join(dir, "zz_evil.go"), filepath.Join(evil, "evil.go"))
	if err := os.WriteFile(overlay, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := "-overlay=" + overlay
	path := attackTrace(t, pkg, "TestX")
	log := attackGo(t, true)
	for _, cmd := range []string{"exec", "debug"} {
		refused(t, cmd, path, fmt.Sprintf("the trace's package %q is not the import path of a package: it begins with '-', as a flag does", pkg))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the overlay's file was compiled in and ran: %s exists", marker)
	}
	if ran := goRan(t, log); len(ran) > 0 {
		t.Errorf("the go command ran: %q", ran)
	}
}

// Test names that are flags, hold control characters (terminal escapes)
// or are no test's name are refused before anything runs.
func TestAttackTestName(t *testing.T) {
	attackModule(t)
	for _, c := range []struct{ test, why string }{
		{`-toolexec=/bin/sh -c "touch x" sh`, `"-toolexec=" is not a test function's name`},
		{"-test.run=.", `"-test.run=." is not a test function's name`},
		{"TestX/a\x1b]0;pwned\x07", `its subtest name "a\x1b]0;pwned\a" has the character '\x1b'`},
		{"TestX\n-v", `"TestX\n-v" is not a test function's name`},
		{"TestX/a b", `its subtest name "a b" has the character ' '`},
	} {
		path := attackTrace(t, "example.com/tiny", c.test)
		log := attackGo(t, false)
		for _, cmd := range []string{"exec", "debug"} {
			refused(t, cmd, path, fmt.Sprintf("the trace's test %q is not a test's name: %s", c.test, c.why))
		}
		if ran := goRan(t, log); len(ran) > 0 {
			t.Errorf("test %q: the go command ran: %q", c.test, ran)
		}
	}
}

// The rewrite's patterns in a trace's header (rewritten code) go to the
// rewrite, which lists them with go list: a flag among them is refused.
func TestAttackRewriteOption(t *testing.T) {
	attackModule(t)
	for _, c := range []struct{ opt, why string }{
		{`rewritten.rewrite=-toolexec=/bin/sh -c "touch x" sh`, `has "-toolexec=/bin/sh -c \"touch x\" sh", which is not an import path pattern: it begins with '-', as a flag does`},
		{"rewritten.rewrite=golang.org/x/sync/...,-overlay=/tmp/o.json", `has "-overlay=/tmp/o.json", which is not an import path pattern: it begins with '-'`},
		{"rewritten.rewrite=/...", `has "/...", which is not an import path pattern: it matches every package`},
		{"rewritten.wrap=-x", `is not rewritten.wrap=1`},
	} {
		path := attackTrace(t, "example.com/tiny", "TestX", "rewritten=1", c.opt)
		log := attackGo(t, false)
		for _, cmd := range []string{"exec", "debug"} {
			refused(t, cmd, path, fmt.Sprintf("the trace's option %q %s", c.opt, c.why))
		}
		if ran := goRan(t, log); len(ran) > 0 {
			t.Errorf("option %q: the go command ran: %q", c.opt, ran)
		}
	}
}

// A package that is a pattern, a meta-package, a file or a directory is
// refused unlisted; one that go list finds outside the current module, the
// module cache and GOPATH/src is refused after go list, and never tested.
func TestAttackPackageNotOrdinary(t *testing.T) {
	dir := attackModule(t)
	for pkg, why := range map[string]string{
		"std":                    `is not the import path of a package: "std" is the go command's name for a set of packages`,
		"all":                    `is not the import path of a package: "all" is the go command's name for a set of packages`,
		"example.com/tiny/...":   "is not the import path of a package: it is a pattern (it contains ...), not one package",
		"command-line-arguments": "is not the import path of a package: it is the go command's name for files given on its command line",
		"tiny_test.go":           "is not the import path of a package: it ends in .go",
		"./":                     `is not the import path of a package: its element "." begins with a dot`,
		"../tiny":                `is not the import path of a package: its element ".." begins with a dot`,
		dir:                      "is not the import path of a package: it is an absolute file path",
	} {
		path := attackTrace(t, pkg, "TestX")
		log := attackGo(t, false)
		for _, cmd := range []string{"exec", "debug"} {
			refused(t, cmd, path, fmt.Sprintf("the trace's package %q %s", pkg, why))
		}
		if ran := goRan(t, log); len(ran) > 0 {
			t.Errorf("package %q: the go command ran: %q", pkg, ran)
		}
	}

	// A module beside this one, which go.mod replaces with its directory,
	// is the user's choice (a fork under test, as TestXSync's bugs are):
	// re-run. The Go distribution's packages are not.
	side := t.TempDir()
	if err := os.WriteFile(filepath.Join(side, "go.mod"), []byte("module example.com/side\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(side, "side.go"), []byte("package side\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gomod := fmt.Sprintf("module example.com/tiny\n\ngo 1.26\n\nrequire example.com/side v0.0.0\n\nreplace example.com/side => %s\n", side)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	for pkg, why := range map[string]string{
		"fmt": "is in the Go distribution",
	} {
		path := attackTrace(t, pkg, "TestX")
		log := attackGo(t, false)
		for _, cmd := range []string{"exec", "debug"} {
			refused(t, cmd, path, fmt.Sprintf("the trace's package %s %s", pkg, why))
		}
		for _, l := range goRan(t, log) {
			if !strings.HasPrefix(l, "list ") && !strings.HasPrefix(l, "env ") {
				t.Errorf("package %q: the go command ran %q, want go list and go env only", pkg, l)
			}
		}
	}
	path := attackTrace(t, "example.com/side", "TestX")
	attackGo(t, false)
	if _, errOut, _ := run("exec", path); strings.Contains(errOut, "outside the current module") || !strings.Contains(errOut, "in "+side) {
		t.Errorf("exec of a trace of a module go.mod replaces with a directory:\n%s", errOut)
	}
}

// Under GOFLAGS=-mod=mod, go list of a package that no module of the build
// list provides looks one up, downloads it and requires it in go.mod: a
// trace named a module of a proxy's (here a file:// proxy), and exec ran
// its tests. The package must be found in the build list as it is.
func TestAttackModuleDownload(t *testing.T) {
	dir := attackModule(t)
	proxy, marker := t.TempDir(), filepath.Join(t.TempDir(), "pwned")
	v := filepath.Join(proxy, "example.com", "evil", "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		t.Fatal(err)
	}
	const mod = "module example.com/evil\n\ngo 1.26\n"
	var zb strings.Builder
	zw := zip.NewWriter(&zb)
	for name, text := range map[string]string{
		"go.mod":       mod,
		"evil.go":      "package evil\n",
		"evil_test.go": fmt.Sprintf("package evil\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc init() { os.WriteFile(%q, nil, 0o644) }\n\nfunc TestX(t *testing.T) {}\n", marker),
	} {
		w, err := zw.Create("example.com/evil@v1.0.0/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(text))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"list": "v1.0.0\n", "v1.0.0.info": `{"Version":"v1.0.0"}`, "v1.0.0.mod": mod, "v1.0.0.zip": zb.String(),
	} {
		if err := os.WriteFile(filepath.Join(v, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	t.Setenv("GOFLAGS", "-mod=mod -modcacherw")
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOMODCACHE", cache)
	before, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	path := attackTrace(t, "example.com/evil", "TestX")
	log := attackGo(t, true)
	for _, cmd := range []string{"exec", "debug"} {
		refused(t, cmd, path, "the trace's package example.com/evil is not found from here")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the downloaded module's test ran: %s exists", marker)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "go.mod")); string(after) != string(before) {
		t.Errorf("go.mod changed:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(cache, "example.com", "evil@v1.0.0")); err == nil {
		t.Error("the trace's module was downloaded")
	}
	for _, l := range goRan(t, log) {
		if !strings.HasPrefix(l, "list ") && !strings.HasPrefix(l, "env ") {
			t.Errorf("the go command ran %q, want go list and go env only", l)
		}
	}
}

// A trace of a package of this module execs: dstreplay says what it runs
// and where, and runs exactly that, the package before the test's flags.
func TestExecSaysWhatItRuns(t *testing.T) {
	const pkg = "github.com/dstgo/dst/examples/bank"
	path := attackTrace(t, pkg+"_test", "TestBuggyBank/sub-1")
	log := attackGo(t, false)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, _ := run("exec", path)
	argv := "test -count=1 " + pkg + ` -run=^TestBuggyBank$/^sub-1$ -dst.trace=` + path
	for _, want := range []string{
		"dstreplay exec: test TestBuggyBank/sub-1 of package " + pkg + ", in " + filepath.Join(filepath.Dir(filepath.Dir(cwd)), "examples", "bank") + "\n",
		"dstreplay exec: running in " + cwd + ": go test -count=1 " + pkg + ` '-run=^TestBuggyBank$/^sub-1$' -dst.trace=` + path + "\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("exec does not say %q\nstderr:\n%s", want, errOut)
		}
	}
	ran := goRan(t, log)
	if len(ran) == 0 || ran[len(ran)-1] != argv {
		t.Errorf("the go command ran %q, want last %q", ran, argv)
	}
}

// A trace of rewritten code (dstreplay test -wrap -rewrite=...) with valid
// options is rewritten again and run with the overlay.
func TestExecRewrittenSaysWhatItRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("rewrites a package")
	}
	const pkg = "github.com/dstgo/dst/examples/bank"
	path := attackTrace(t, pkg, "TestBuggyBank", "rewritten=1", "rewritten.wrap=1", "rewritten.rewrite=golang.org/x/sync/...,golang.org/x/sy...")
	log := attackGo(t, false)
	_, errOut, _ := run("exec", path)
	want := "dstreplay exec: the trace was recorded by code that dstreplay test rewrote: rewriting " + pkg +
		" again, as dstreplay test -wrap -rewrite=golang.org/x/sync/...,golang.org/x/sy... " + pkg + "\n"
	if !strings.Contains(errOut, want) {
		t.Errorf("exec does not say %q\nstderr:\n%s", want, errOut)
	}
	// What it runs is said with the environment it adds, the marker of
	// rewritten code that the test binary reads.
	if !regexp.MustCompile(`dstreplay exec: running in \S+: DST_REWRITTEN='-wrap -rewrite=\S*golang.org/x/sync/\.\.\.,golang.org/x/sy\.\.\.' go test -count=1 -overlay=`).MatchString(errOut) {
		t.Errorf("exec does not say the environment it runs go test in:\n%s", errOut)
	}
	ran := goRan(t, log)
	if len(ran) == 0 || !strings.HasPrefix(ran[len(ran)-1], "test -count=1 -overlay=") ||
		!strings.HasSuffix(ran[len(ran)-1], " "+pkg+` -run=^TestBuggyBank$ -dst.trace=`+path) {
		t.Errorf("the go command ran %q, want last go test -count=1 -overlay=... %s -run=^TestBuggyBank$ -dst.trace=%s\nstderr:\n%s", ran, pkg, path, errOut)
	}
}

// The re-run's output quotes the trace (a divergence names its recorded
// events' files, functions and labels; a report, its outcome): exec
// passes it on escaped.
// Regression (found in an attack, fixed): exec copied go test's output to
// the terminal as it was, with a crafted trace's escape sequences.
func TestExecEscapesTheRunsOutput(t *testing.T) {
	real, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// go test prints what a divergence from a crafted trace printed.
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = test ]; then printf 'expected: at evil\\033]0;PWNED\\007\\033[2J\\r\\n'; printf 'x\\033[31m\\n' >&2; exit 1; fi\nexec '%s' \"$@\"\n", real)
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	path := attackTrace(t, "github.com/dstgo/dst/examples/bank_test", "TestBuggyBank")
	out, errOut, _ := run("exec", path)
	if strings.ContainsAny(out+errOut, "\x1b\a\r") {
		t.Fatalf("exec passed control characters on:\nstdout: %q\nstderr: %q", out, errOut)
	}
	if !strings.Contains(out, `expected: at evil\x1b]0;PWNED\a\x1b[2J\r`) || !strings.Contains(errOut, `x\x1b[31m`) {
		t.Errorf("exec's output does not show the run's, escaped:\nstdout: %q\nstderr: %q", out, errOut)
	}
}
