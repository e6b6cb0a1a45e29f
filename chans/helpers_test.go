package chans_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched/schedtest"
)

// seed is the base seed of every exploration in this package: the tests are
// deterministic.
const seed = 0xC4A45

// schedules is how many schedules a conformance case explores.
const schedules = 300

// explorePass explores body for n schedules and fails t if any schedule
// fails.
func explorePass(t *testing.T, n int, body func(*schedtest.T)) {
	t.Helper()
	testutil.Pass(t, schedtest.Options{Seed: seed, Iterations: n}, body)
}

// everyRunFails runs body under n schedules (successive seeds, alternating
// strategies) and asserts that every one of them fails with kind and a
// report containing each of wants.
func everyRunFails(t *testing.T, n int, kind schedtest.FailureKind, body func(*schedtest.T), wants ...string) {
	t.Helper()
	for i := range n {
		strategy := "pct"
		if i%2 == 1 {
			strategy = "random"
		}
		res, err := schedtest.Run(schedtest.Options{Seed: seed + uint64(i), Strategy: strategy}, body)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil {
			t.Fatalf("run %d (seed %#x, %s) passed; want %s", i, res.Seed, strategy, kind)
		}
		if res.Failure.Kind != kind {
			t.Fatalf("run %d (seed %#x, %s): failure %q, want %q:\n%s", i, res.Seed, strategy, res.Failure.Kind, kind, res.Failure.Error())
		}
		for _, w := range wants {
			if !strings.Contains(res.Failure.Error(), w) {
				t.Fatalf("run %d (seed %#x, %s): report lacks %q:\n%s", i, res.Seed, strategy, w, res.Failure.Error())
			}
		}
	}
}

// panicOf returns the message of the panic f raises, as
// recovered-value.(error).Error(), and whether the value is a runtime.Error.
func panicOf(f func()) (msg string, isRuntimeError bool, panicked bool) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		panicked = true
		switch v := r.(type) {
		case runtime.Error:
			msg, isRuntimeError = v.Error(), true
		case error:
			msg = v.Error()
		default:
			msg = fmt.Sprintf("non-error panic value %T(%v)", r, r)
		}
	}()
	f()
	return "", false, false
}

// checkPanicLike asserts, from inside a run, that f panics as native does:
// with a runtime.Error whose Error() is the same string.
func checkPanicLike(t interface{ Errorf(string, ...any) }, what string, f, native func()) {
	want, _, ok := panicOf(native)
	if !ok {
		t.Errorf("%s: the native version did not panic", what)
		return
	}
	got, isRT, ok := panicOf(f)
	if !ok {
		t.Errorf("%s: no panic; want %q", what, want)
		return
	}
	if got != want || !isRT {
		t.Errorf("%s: panic %q (runtime.Error: %v); want runtime.Error %q", what, got, isRT, want)
	}
}
