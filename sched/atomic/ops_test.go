package atomic_test

import (
	"reflect"
	"testing"

	"github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
)

// Each atomic operation is recorded under its method's name. Regression:
// every one read "atomic", so a trace did not say which was a load and
// which a store.
func TestOperationsNamedInTraces(t *testing.T) {
	for _, x := range []any{&atomic.Bool{}, &atomic.Int32{}, &atomic.Int64{}, &atomic.Uint32{}, &atomic.Uint64{},
		&atomic.Uintptr{}, &atomic.Pointer[int]{}, &atomic.Value{}} {
		v := reflect.ValueOf(x)
		var called []string
		res, err := schedtest.Run(schedtest.Options{Seed: 1, Record: true}, func(*schedtest.T) {
			for i := range v.NumMethod() {
				m := v.Type().Method(i)
				args := make([]reflect.Value, m.Type.NumIn()-1)
				for k := range args {
					in := m.Type.In(k + 1)
					if in.Kind() == reflect.Interface { // Value's: a value of one type throughout
						args[k] = reflect.ValueOf(1)
					} else {
						args[k] = reflect.Zero(in)
					}
				}
				v.Method(i).Call(args)
				called = append(called, m.Name)
			}
		})
		if err != nil || res.Failure != nil {
			t.Fatal(err, res.Failure)
		}
		evs, err := res.Trace.Events()
		if err != nil {
			t.Fatal(err)
		}
		var recorded []string
		for _, e := range evs {
			if e.Kind == trace.KindOp && e.Obj != 0 {
				recorded = append(recorded, trace.OpName(e.Op))
			}
		}
		if !reflect.DeepEqual(recorded, called) {
			t.Errorf("%T: called %v, the trace says %v", x, called, recorded)
		}
	}
}
