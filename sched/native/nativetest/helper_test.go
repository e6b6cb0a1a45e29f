package nativetest

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

// runWrapped runs f once as the function of a top-level test called TestX,
// as Wrap does, and returns how the run failed, or nil.
func runWrapped(t *testing.T, f func(*T)) *schedtest.Failure {
	t.Helper()
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(rt *schedtest.T) {
		w := &T{T: t, run: rt, name: "TestX", helpers: newHelperSites()}
		w.main(f)
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Failure
}

// check and checkTwice are test helpers, as testify's assertions are.
func check(t *T, ok bool) {
	t.Helper()
	if !ok {
		t.Error("check failed")
	}
}

func checkTwice(t *T, ok bool) {
	t.Helper()
	check(t, true)
	check(t, ok)
}

// TestHelperPlacesFailures: a failure a helper reports is placed at the
// line that called it, through helpers that call helpers, however many
// times the same sites called Helper before (they are kept as seen), in
// the test and in a subtest.
func TestHelperPlacesFailures(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(*T)
		want string
	}{
		{"direct", func(t *T) {
			for range 100 {
				check(t, true)
			}
			check(t, false) // failure: direct
		}, "failure: direct"},
		{"nested", func(t *T) {
			for range 100 {
				checkTwice(t, true)
				check(t, true)
			}
			checkTwice(t, false) // failure: nested
		}, "failure: nested"},
		{"subtest", func(t *T) {
			check(t, true)
			t.Run("sub", func(t *T) {
				for range 10 {
					checkTwice(t, true)
				}
				checkTwice(t, false) // failure: subtest
			})
		}, "failure: subtest"},
	} {
		f := runWrapped(t, c.f)
		if f == nil {
			t.Errorf("%s: the run passed", c.name)
			continue
		}
		line := lineOf(t, c.want)
		if !strings.Contains(f.Error(), line) {
			t.Errorf("%s: the failure is not placed at %s:\n%s", c.name, line, f.Error())
		}
	}
}

// lineOf returns "helper_test.go:N" for the line of this file holding the
// comment marker.
func lineOf(t *testing.T, marker string) string {
	t.Helper()
	src, err := testdataSelf()
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, "// "+marker) {
			return "helper_test.go:" + itoa(i+1)
		}
	}
	t.Fatalf("no line marked %q", marker)
	return ""
}

// TestHelperSeenSiteIsCheap: Helper called again from a call site the run
// has marked allocates nothing. It symbolized the stack at each call, the
// cost of half of ristretto's TestTreeBasic under -wrap (two million
// assertions, each calling Helper twice).
func TestHelperSeenSiteIsCheap(t *testing.T) {
	var allocs float64
	if f := runWrapped(t, func(w *T) {
		allocs = testing.AllocsPerRun(100, func() { w.Helper() })
	}); f != nil {
		t.Fatal(f)
	}
	if allocs != 0 {
		t.Errorf("Helper from a site seen before: %v allocations a call, want 0", allocs)
	}
}

func testdataSelf() (string, error) {
	b, err := os.ReadFile("helper_test.go")
	return string(b), err
}

func itoa(n int) string { return strconv.Itoa(n) }
