package native_test

import (
	"reflect"
	"testing"

	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
)

// reflectLen is reflect.ValueOf(x).Len() as rewritten code calls it: the
// static type is reflect.Value, the kind known only when it runs (testify's
// assert.Len).
func reflectLen(x any) int { return native.Reflected(reflect.ValueOf(x), "Len", "p.go:1").Len() }

// TestReflectedLen: reflect.Value.Len of a channel of the run, inside a
// run, is what len of the channel gives in rewritten code (the run's
// channel holds the values, not Go's), whatever the channel's type, and no
// misuse; Cap is reflect's, and so is Len of any other kind and outside a
// run.
func TestReflectedLen(t *testing.T) {
	type named chan int
	outside := make(chan string, 2)
	outside <- "a"
	outside <- "b"
	adopted := make(chan int, 2)
	adopted <- 1
	adopted <- 2
	var got map[string]int
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) {
		c := native.Make[chan int](3)
		native.To(c).Send(1)
		n := native.Make[named](2)
		native.To(n).Send(1)
		native.To(n).Send(2)
		native.Recv(adopted) // adopts it: 2 sent outside the run, 1 left
		got = map[string]int{
			"chan":      reflectLen(c),
			"cap":       reflect.ValueOf(c).Cap(),
			"recv-only": reflectLen((<-chan int)(c)),
			"send-only": reflectLen((chan<- int)(c)),
			"named":     reflectLen(n),
			"len":       native.Len(c),
			"outside":   reflectLen(outside), // not used by the run yet: Go's channel holds its values
			"adopted":   reflectLen(adopted),
			"nil":       reflectLen((chan int)(nil)),
			"slice":     reflectLen([]int{1, 2, 3, 4}),
			"map":       reflectLen(map[int]int{1: 1}),
			"string":    reflectLen("héllo"),
			"array":     reflectLen([5]int{}),
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("reflect.Value.Len failed the run: %v", res.Failure)
	}
	want := map[string]int{"chan": 1, "cap": 3, "recv-only": 1, "send-only": 1, "named": 2, "len": 1, "outside": 2, "adopted": 1,
		"nil": 0, "slice": 4, "map": 1, "string": 6, "array": 5}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("inside a run: got %v, want %v", got, want)
	}

	c := make(chan int, 3)
	c <- 1
	if n, s := reflectLen(c), reflectLen([]int{1, 2}); n != 1 || s != 2 {
		t.Errorf("outside a run: Len of a channel holding 1 is %d, of a slice of 2 is %d", n, s)
	}
	if got, want := panicOf(func() { reflectLen(1) }), panicOf(func() { reflect.ValueOf(1).Len() }); !reflect.DeepEqual(got, want) {
		t.Errorf("Len of an int panicked with %v, reflect's with %v", got, want)
	}
}

func panicOf(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}
