package schedtest_test

import (
	"strings"
	"testing"

	"github.com/dstgo/dst/sched/schedtest"
)

// twoReads fails when its reader, reading twice, sees 3 and then 12 of the
// writer's 12 increments: the writer preempted after its third, the reader
// preempted between its reads. Two preemptions; no schedule with fewer
// fails.
var twoReads = writerReader(2, func(seen []int) bool { return seen[0] == 3 && seen[1] == 12 })

// TestBoundedProvesAndFinds: with one preemption the search runs every
// schedule and says so, none failing; with two it finds the failure; the
// counts grow with the bound; and the failure replays from its recording.
func TestBoundedProvesAndFinds(t *testing.T) {
	run := func(k int) *schedtest.Result {
		t.Helper()
		res, err := schedtest.Explore(schedtest.Options{Seed: 1, Strategy: "bounded", Preemptions: k, Iterations: 100_000}, twoReads)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	none, one := run(-1), run(1)
	for _, r := range []*schedtest.Result{none, one} {
		if r.Failure != nil || !r.Exhausted {
			t.Fatalf("bounded search below two preemptions: failure %v, exhausted %v after %d schedules, want all passed", r.Failure, r.Exhausted, r.Schedule)
		}
	}
	if !(none.Schedule < one.Schedule) {
		t.Errorf("schedules with no preemption %d, with at most one %d: want more with the larger bound", none.Schedule, one.Schedule)
	}
	two := run(2)
	if two.Failure == nil || !strings.Contains(two.Failure.Message, "[3 12]") {
		t.Fatalf("bounded search with two preemptions: %v after %d schedules, want the reader's failure", two.Failure, two.Schedule)
	}
	if two.Exhausted {
		t.Errorf("a search that failed says it was exhausted")
	}
	t.Logf("schedules: %d with no preemption, %d with at most one; the failure at schedule %d with two", none.Schedule, one.Schedule, two.Schedule)
	again, err := schedtest.Run(schedtest.Options{Recording: two.Recording, Strategy: two.Strategy}, twoReads)
	if err != nil {
		t.Fatal(err)
	}
	if again.Failure == nil || again.Failure.Message != two.Failure.Message {
		t.Errorf("the failure's recording replayed: %v, want %q", again.Failure, two.Failure.Message)
	}
}

// TestBoundedBudget: a search cut short by its budget does not claim to
// have run everything.
func TestBoundedBudget(t *testing.T) {
	res, err := schedtest.Explore(schedtest.Options{Seed: 1, Strategy: "bounded", Preemptions: 1, Iterations: 3}, twoReads)
	if err != nil {
		t.Fatal(err)
	}
	if res.Exhausted || res.Schedule != 3 {
		t.Errorf("exhausted %v after %d schedules, want not, after 3", res.Exhausted, res.Schedule)
	}
}
