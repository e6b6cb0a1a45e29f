package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/cli"
)

// TestTestCommand uses dstreplay test as a user does, on a module of their
// own whose code uses Go's own channels and select: the bug is found with
// the original file's lines, every command the report prints works as
// printed, exec and debug re-run the rewritten code, and a construct the
// rewrite cannot carry over stops it with its place.
func TestTestCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	m := newOwnModule(t, map[string]string{
		"fetch.go": `package mine

import "time"

// First returns the first answer, or "" after a timeout: the slower
// fetchers are left blocked on their send forever.
func First(fetch func() string) string {
	ch := make(chan string)
	for i := 0; i < 2; i++ {
		go func() {
			ch <- fetch()
		}()
	}
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Second):
		return ""
	}
}
`,
		"fetch_test.go": `package mine

import (
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

func TestFirst(t *testing.T) {
	schedtest.Test(t, func(t *schedtest.T) {
		First(func() string { return "x" })
	})
}
`,
	})
	dir, sh := m.dir, m.sh
	out, err := sh("go tool dstreplay test -count=1 .")
	if err == nil || !strings.Contains(out, "leak in schedule") || !strings.Contains(out, "blocked in chan string#1.Send\n") ||
		!strings.Contains(out, "at fetch.go:11 (mine.First.func1)") {
		t.Fatalf("the leaky fetch: %v\n%s", err, out)
	}
	hints := regexp.MustCompile(`(?m)^\s+((?:go test|go tool dstreplay) .*)$`).FindAllStringSubmatch(out, -1)
	if len(hints) < 3 {
		t.Fatalf("the report prints %d commands:\n%s", len(hints), out)
	}
	for _, h := range hints {
		if strings.HasPrefix(h[1], "go test") {
			t.Errorf("a hint runs the code as written, not rewritten: %s", h[1])
			continue
		}
		got, _ := sh(h[1])
		if !strings.Contains(got, "leak") {
			t.Errorf("%s:\n%s", h[1], got)
		}
	}
	traces, _ := filepath.Glob(filepath.Join(dir, "testdata", "dst", "TestFirst", "*.trace"))
	if len(traces) == 0 {
		t.Fatal("no saved trace")
	}
	if out, err := sh("go tool dstreplay exec " + traces[0]); err != nil || !strings.Contains(out, "the re-run ended as recorded: leak") {
		t.Errorf("exec of a rewritten trace: %v\n%s", err, out)
	}
	if cli.HaveDlv() {
		os.WriteFile(filepath.Join(dir, "cmds"), []byte("exit\n"), 0o644)
		if out, err := sh("go tool dstreplay debug --init cmds " + traces[0]); err != nil || !strings.Contains(out, "dstreplay: stopped at step") {
			t.Errorf("debug of a rewritten trace: %v\n%s", err, out)
		}
	}
	// A refusal names the place and stops before go test.
	bad := "package mine\n\nfunc wait(c chan int) {\n\tgoto L\nL:\n\tselect {\n\tcase <-c:\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "bad.go"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = sh("go tool dstreplay test -count=1 .")
	if err == nil || !strings.Contains(out, filepath.Join(dir, "bad.go")+":5:1: goto L: a goto to a labeled select cannot be rewritten") ||
		strings.Contains(out, "leak") {
		t.Errorf("a refused construct: %v\n%s", err, out)
	}
}
