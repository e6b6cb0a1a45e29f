package atomic_test

import (
	"reflect"
	"slices"
	"strings"
	stdatomic "sync/atomic"
	"testing"

	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/schedtest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMethodSetsMatchSyncAtomic(t *testing.T) {
	pairs := []struct{ ours, theirs any }{
		{&atomic.Bool{}, &stdatomic.Bool{}},
		{&atomic.Int32{}, &stdatomic.Int32{}},
		{&atomic.Int64{}, &stdatomic.Int64{}},
		{&atomic.Uint32{}, &stdatomic.Uint32{}},
		{&atomic.Uint64{}, &stdatomic.Uint64{}},
		{&atomic.Uintptr{}, &stdatomic.Uintptr{}},
		{&atomic.Value{}, &stdatomic.Value{}},
	}
	for _, p := range pairs {
		ours, theirs := reflect.TypeOf(p.ours), reflect.TypeOf(p.theirs)
		if got, want := testutil.MethodSet(ours), testutil.MethodSet(theirs); !slices.Equal(got, want) {
			t.Errorf("%v methods %v, want %v", ours, got, want)
		}
	}
	// Pointer[T]'s methods mention T; compare their names.
	names := func(t reflect.Type) (out []string) {
		for i := range t.NumMethod() {
			out = append(out, t.Method(i).Name)
		}
		return out
	}
	if got, want := names(reflect.TypeOf(&atomic.Pointer[int]{})), names(reflect.TypeOf(&stdatomic.Pointer[int]{})); !slices.Equal(got, want) {
		t.Errorf("Pointer methods %v, want %v", got, want)
	}
}

// A read-modify-write made of a Load and a Store loses updates when another
// goroutine runs between them: each atomic operation is a scheduling point,
// so the scheduler finds it. Add does not.
func increments(useAdd bool) func(*schedtest.T) {
	return func(t *schedtest.T) {
		var n atomic.Int64
		var wg sched.WaitGroup
		for range 2 {
			wg.Go(func() {
				if useAdd {
					n.Add(1)
					return
				}
				n.Store(n.Load() + 1)
			})
		}
		wg.Wait()
		if got := n.Load(); got != 2 {
			t.Errorf("n = %d, want 2", got)
		}
	}
}

func TestAtomicOperationsAreSchedulingPoints(t *testing.T) {
	res, err := schedtest.Explore(schedtest.Options{Seed: 3, Iterations: 200}, increments(false))
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || res.Failure.Kind != schedtest.TestFailed || !strings.Contains(res.Failure.Error(), "n = 1, want 2") {
		t.Fatalf("the lost update was not found: %+v", res.Failure)
	}
	res, _ = schedtest.Explore(schedtest.Options{Seed: 3, Iterations: 200}, increments(true))
	if res.Failure != nil {
		t.Fatalf("Add lost an update: %v", res.Failure)
	}
}

func TestOutsideRun(t *testing.T) {
	var b atomic.Bool
	var i atomic.Int32
	var u atomic.Uint64
	var p atomic.Pointer[string]
	var v atomic.Value
	s := "x"
	b.Store(true)
	p.Store(&s)
	v.Store(3)
	if !b.Load() || i.Add(5) != 5 || i.Or(2) != 5 || i.And(4) != 7 || i.Load() != 4 ||
		!u.CompareAndSwap(0, 9) || u.Swap(1) != 9 || *p.Load() != "x" || v.Load() != 3 {
		t.Fatal("atomic operations outside a run do not behave as sync/atomic")
	}
	defer func() {
		if recover() == nil {
			t.Error("Value.Store of an inconsistent type did not panic")
		}
	}()
	v.Store("not an int")
}
