package native_test

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/dstgo/dst/sched/native"
)

// The table a rewritten file of this package would register: this test's
// first closure stands for one the original program calls TestFuncName.func7.
var _ = native.FuncNames(map[string]string{"TestFuncName.func1": "TestFuncName.func7"})

// TestFuncName: a registered closure gets its original name, under the
// package's path, from FuncName and Function; any other name is as the
// runtime gives it, nil's included; FuncNames outside a package's
// initialization panics.
func TestFuncName(t *testing.T) {
	registered := func() {}
	f := runtime.FuncForPC(reflect.ValueOf(registered).Pointer())
	pkg, _ := strings.CutSuffix(f.Name(), "TestFuncName.func1")
	if pkg == f.Name() {
		t.Fatalf("the closure is %s, want its name to end in TestFuncName.func1", f.Name())
	}
	if got, want := native.FuncName(f), pkg+"TestFuncName.func7"; got != want {
		t.Errorf("FuncName = %s, want %s", got, want)
	}
	if got, want := native.Function(f.Name()), pkg+"TestFuncName.func7"; got != want {
		t.Errorf("Function = %s, want %s", got, want)
	}
	other := runtime.FuncForPC(reflect.ValueOf(native.FuncName).Pointer())
	if got, want := native.FuncName(other), other.Name(); got != want {
		t.Errorf("FuncName of a function not registered = %s, want %s", got, want)
	}
	if got := native.FuncName(nil); got != "" {
		t.Errorf("FuncName(nil) = %q, want \"\" as (*runtime.Func)(nil).Name()", got)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "not from a package's initialization") {
			t.Errorf("FuncNames in a test: recovered %v, want a panic", r)
		}
	}()
	native.FuncNames(map[string]string{"x": "y"})
}
