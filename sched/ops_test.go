package sched_test

import (
	"slices"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
)

// WaitGroup.Done is recorded as Done, not as the Add(-1) it is. Regression:
// traces showed "op Add" for it.
func TestWaitGroupDoneNamedInTraces(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Record: true}, func(*schedtest.T) {
		var wg sched.WaitGroup
		wg.Add(2)
		wg.Done()
		wg.Done()
		wg.Go(func() {}) // Add, then Done when it returns
		wg.Wait()
	})
	if err != nil || res.Failure != nil {
		t.Fatal(err, res.Failure)
	}
	evs, err := res.Trace.Events()
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, e := range evs {
		if e.Kind == trace.KindOp && e.Obj != 0 {
			ops = append(ops, trace.OpName(e.Op))
		}
	}
	if want := []string{"Add", "Done", "Done", "Add", "Done", "Wait"}; !slices.Equal(ops, want) && !slices.Equal(ops, []string{"Add", "Done", "Done", "Add", "Wait", "Done"}) {
		t.Errorf("the trace says %v, want %v (the Go's Done and the Wait in either order)", ops, want)
	}
}
