package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// xsyncVersion is the golang.org/x/sync the suite runs, from the module
// proxy.
const xsyncVersion = "v0.25.0"

// xsyncBugs are bugs fixed in golang.org/x/sync's history (named by the
// commit that fixed them), put back into a copy of the module: each must be
// found by the package's own test, under dstreplay test -wrap, and replay
// exactly. fixed is the code of xsyncVersion, buggy what it was before the
// fix, in today's surroundings.
var xsyncBugs = []struct {
	name, file, fixed, buggy, pkg, test string
}{
	{"43a5402-semaphore-front-waiter-cancels", "semaphore/semaphore.go",
		"\t\tdefault:\n\t\t\tisFront := s.waiters.Front() == elem\n\t\t\ts.waiters.Remove(elem)\n\t\t\t// If we're at the front and there are extra tokens left, notify other waiters.\n\t\t\tif isFront && s.size > s.cur {\n\t\t\t\ts.notifyWaiters()\n\t\t\t}\n\t\t}",
		"\t\tdefault:\n\t\t\ts.waiters.Remove(elem)\n\t\t}",
		"semaphore", "TestAllocCancelDoesntStarve"},
	{"14be23e-semaphore-acquire-done-context", "semaphore/semaphore.go",
		"\t\tcase <-ready:\n\t\t\t// Acquired the semaphore after we were canceled.\n\t\t\t// Pretend we didn't and put the tokens back.\n\t\t\ts.cur -= n\n\t\t\ts.notifyWaiters()",
		"\t\tcase <-ready:\n\t\t\t// Acquired the semaphore after we were canceled.  Rather than trying to\n\t\t\t// fix up the queue, just pretend we didn't notice the cancelation.\n\t\t\ts.mu.Unlock()\n\t\t\treturn nil",
		"semaphore", "TestWeightedAcquireCanceled"},
	{"56d3577-singleflight-forget-deletes-new-call", "singleflight/singleflight.go",
		"\t\tc.wg.Done()\n\t\tif g.m[key] == c {\n\t\t\tdelete(g.m, key)\n\t\t}",
		"\t\tc.wg.Done()\n\t\tdelete(g.m, key)",
		"singleflight", "TestForget"},
}

// TestXSync runs golang.org/x/sync's own test suite (errgroup, semaphore,
// singleflight, syncmap), unedited, under the scheduler with dstreplay test
// -wrap -rewrite=golang.org/x/sync/...: 1000 schedules of every test, and
// none fails. Then each bug of xsyncBugs, put back into a copy of the
// module, is found by its test, and its saved trace re-runs as recorded.
// It fetches the module from the proxy and takes minutes: it runs with
// DST_XSYNC=1 (.ci/run sets it).
func TestXSync(t *testing.T) {
	if os.Getenv("DST_XSYNC") != "1" {
		t.Skip("set DST_XSYNC=1 to run x/sync's suite under the scheduler (minutes; fetches golang.org/x/sync " + xsyncVersion + ")")
	}
	m := newOwnModule(t, map[string]string{"deps.go": `package mine

import (
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/sync/semaphore"
	_ "golang.org/x/sync/singleflight"
	_ "golang.org/x/sync/syncmap"
)
`})
	if out, err := m.sh("go get golang.org/x/sync@" + xsyncVersion); err != nil {
		t.Fatalf("go get: %v\n%s", err, out)
	}
	out, err := m.sh("go tool dstreplay test -wrap -rewrite=golang.org/x/sync/... golang.org/x/sync/...")
	for _, pkg := range []string{"errgroup", "semaphore", "singleflight", "syncmap"} {
		if !regexp.MustCompile(`(?m)^ok\s+golang.org/x/sync/` + pkg + `\b`).MatchString(out) {
			t.Errorf("golang.org/x/sync/%s did not pass under the scheduler", pkg)
		}
	}
	if err != nil || t.Failed() {
		t.Fatalf("x/sync's suite: %v\n%s", err, out)
	}

	// The module's copy, with one bug put back at a time.
	modDir, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	orig := filepath.Join(strings.TrimSpace(string(modDir)), "golang.org", "x", "sync@"+xsyncVersion)
	for _, bug := range xsyncBugs {
		t.Run(bug.name, func(t *testing.T) {
			copyDir := putBack(t, orig, bug.file, bug.fixed, bug.buggy)
			if out, err := m.sh("go mod edit -replace golang.org/x/sync=" + copyDir); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			defer m.sh("go mod edit -dropreplace golang.org/x/sync")
			out, err := m.sh("go tool dstreplay test -wrap -rewrite=golang.org/x/sync/... golang.org/x/sync/" + bug.pkg + " -run '^" + bug.test + "$'")
			if err == nil || !strings.Contains(out, "sched: ") || !strings.Contains(out, "reproduce:") {
				t.Fatalf("the bug was not found: %v\n%s", err, out)
			}
			t.Logf("found:\n%s", out)
			traces, _ := filepath.Glob(filepath.Join(copyDir, bug.pkg, "testdata", "dst", bug.test, "*.trace"))
			if len(traces) != 1 {
				t.Fatalf("%d saved traces, want 1", len(traces))
			}
			if out, err := m.sh("go tool dstreplay exec " + traces[0]); err != nil || !strings.Contains(out, "the re-run ended as recorded") {
				t.Errorf("exec of the saved trace: %v\n%s", err, out)
			}
			// The reproduce line the report prints, as printed.
			line := regexp.MustCompile(`(?m)^\s+(go tool dstreplay test .*-dst\.replay=.*)$`).FindStringSubmatch(out)
			if line == nil {
				t.Fatalf("no reproduce line:\n%s", out)
			}
			if got, err := m.sh(line[1]); err == nil || !strings.Contains(got, "reproduce:") {
				t.Errorf("%s: %v\n%s", line[1], err, got)
			}
		})
	}
}

// putBack copies the module at orig (its directory in the module cache)
// into a temporary directory, puts a bug back into the copy's file by
// replacing its fixed code with buggy, and returns the copy's directory.
func putBack(t *testing.T, orig, file, fixed, buggy string) string {
	t.Helper()
	copyDir := filepath.Join(t.TempDir(), "module") // no "@": go mod edit -replace would read a version
	if err := os.CopyFS(copyDir, os.DirFS(orig)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(copyDir, file)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), fixed) {
		t.Fatalf("%s of %s lacks the fix to revert:\n%s", file, orig, fixed)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(src), fixed, buggy, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return copyDir
}
