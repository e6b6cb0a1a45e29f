package cli_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestWrapGoleak: a suite that checks for leaks with go.uber.org/goleak, as
// many do (defer goleak.VerifyNone(t) in each test, goleak.VerifyTestMain),
// passes under dstreplay test -wrap with no -rewrite flag for goleak, as it
// does under go test: goleak does not report the tool's goroutines (the one
// that runs the run, the watchdog) as leaks, and waits for the test's
// workers to end. A goroutine the test leaves behind is still reported,
// with its own function on top of its stack, and so it is when its saved
// trace is re-run.
// Regression (found on github.com/gammazero/workerpool's suite, fixed): 12
// of its 13 tests failed under -wrap, goleak listing the watchdog and the
// goroutine that ran the run.
func TestWrapGoleak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	m := newOwnModule(t, map[string]string{
		"pool.go": `package mine

import "sync"

// Run runs n workers, each sending its number on the channel it returns,
// and closes the channel once they are done.
func Run(n int) <-chan int {
	c := make(chan int)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c <- i
		}()
	}
	go func() {
		wg.Wait()
		close(c)
	}()
	return c
}
`,
		"pool_test.go": `package mine

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestDrained(t *testing.T) {
	defer goleak.VerifyNone(t)
	n := 0
	for range Run(3) {
		n++
	}
	if n != 3 {
		t.Fatalf("%d values, want 3", n)
	}
}

// TestReturns returns once every value is in, while the workers may still
// be on their way out: goleak waits for them.
func TestReturns(t *testing.T) {
	defer goleak.VerifyNone(t)
	c := Run(2)
	<-c
	<-c
}

func stuck(c chan int) { <-c }

// TestLeaks leaks a goroutine, by design.
func TestLeaks(t *testing.T) {
	defer goleak.VerifyNone(t)
	go stuck(make(chan int))
}
`,
	})
	m.env = append(m.env, "GOPROXY=off")
	out, err := m.sh("go test -count=1 -run '^(TestDrained|TestReturns)$' .")
	if err != nil {
		t.Fatalf("natively: %v\n%s", err, out)
	}
	out, err = m.sh("go tool dstreplay test -wrap -count=1 -run '^(TestDrained|TestReturns)$' . -dst.iters=20")
	if err != nil {
		t.Errorf("under -wrap, the suite without leaks fails: %v\n%s", err, out)
	} else if !regexp.MustCompile(`(?m)^ok\s+example.com/mine\b`).MatchString(out) {
		t.Errorf("under -wrap, no ok line:\n%s", out)
	}
	out, err = m.sh("go tool dstreplay test -wrap -count=1 -run '^TestLeaks$' . -dst.iters=20")
	want := "in state chan receive, with example.com/mine.stuck on top of the stack"
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("under -wrap, TestLeaks: %v, want a failure saying %q\n%s", err, want, out)
	}
	if toolsListed(out) {
		t.Errorf("under -wrap, goleak lists the tool's goroutines:\n%s", out)
	}
	// The saved trace re-runs with the same outcome, and goleak listing
	// the same goroutine: exec rewrites goleak as -wrap did. (Not as
	// recorded: goleak's report holds the goroutine's runtime id.)
	traces, _ := filepath.Glob(filepath.Join(m.dir, "testdata", "dst", "TestLeaks", "*.trace"))
	if len(traces) != 1 {
		t.Fatalf("%d saved traces of TestLeaks, want 1", len(traces))
	}
	out, _ = m.sh("go tool dstreplay exec " + traces[0])
	if !strings.Contains(out, "dstreplay exec: same outcome (leak)") && !strings.Contains(out, "dstreplay exec: the re-run ended as recorded") ||
		!strings.Contains(out, want) || toolsListed(out) {
		t.Errorf("exec of the saved trace: want the same outcome, goleak saying %q and not listing the tool's goroutines\n%s", want, out)
	}
}

// toolsListed reports whether the last goleak report in out lists a
// goroutine of the tool's: one in its packages, or in a coroutine.
func toolsListed(out string) bool {
	i := strings.LastIndex(out, "found unexpected goroutines")
	if i < 0 {
		return false
	}
	found, _, _ := strings.Cut(out[i:], "\n\n")
	return strings.Contains(found, "github.com/dstgo/dst/") || strings.Contains(found, "iter.Pull")
}
