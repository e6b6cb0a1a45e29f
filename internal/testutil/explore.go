package testutil

import (
	"cmp"
	"strings"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

// Explore explores body with opts, failing t if the options are invalid.
// Unless opts say otherwise, it runs 300 schedules from seed 42: tests see
// the same schedules every time.
func Explore(t testing.TB, opts schedtest.Options, body func(*schedtest.T)) *schedtest.Result {
	t.Helper()
	if opts.Seed == 0 {
		opts.Seed = 42
	}
	if opts.Iterations == 0 {
		opts.Iterations = 300
	}
	res, err := schedtest.Explore(opts, body)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Pass explores body as Explore does and fails t at the first failing
// schedule, or when fewer schedules ran than asked.
func Pass(t testing.TB, opts schedtest.Options, body func(*schedtest.T)) {
	t.Helper()
	res := Explore(t, opts, body)
	if res.Failure != nil {
		t.Fatalf("schedule %d (seed %#x, %s) failed:\n%s", res.Schedule, res.Seed, res.Strategy, res.Failure.Error())
	}
	if want := cmp.Or(opts.Iterations, 300); res.Schedule != want {
		t.Fatalf("explored %d schedules, want %d", res.Schedule, want)
	}
}

// Fails explores body as Explore does and fails t unless a schedule fails with
// kind and a report that contains every one of wants.
func Fails(t testing.TB, opts schedtest.Options, kind schedtest.FailureKind, body func(*schedtest.T), wants ...string) *schedtest.Result {
	t.Helper()
	res := Explore(t, opts, body)
	if res.Failure == nil {
		t.Fatalf("no failure in %d schedules; want %s", res.Schedule, kind)
	}
	if res.Failure.Kind != kind {
		t.Fatalf("failure kind %q, want %q; report:\n%s", res.Failure.Kind, kind, res.Failure)
	}
	for _, w := range wants {
		if !strings.Contains(res.Failure.Error(), w) {
			t.Errorf("report lacks %q:\n%s", w, res.Failure)
		}
	}
	return res
}
