package native_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/sched/schedtest"
)

// TestGivenFailsTheRun: handing a channel to code that is not rewritten,
// inside a run, is a misuse naming the channel, the function and the
// place; outside a run the channel passes through.
func TestGivenFailsTheRun(t *testing.T) {
	c := make(chan os.Signal, 1)
	if native.Given(c, "os/signal.Notify", "main.go:9") != c {
		t.Fatal("outside a run, Given returns its channel")
	}
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) {
		c := native.Make[chan os.Signal](1)
		native.Given(c, "os/signal.Notify", "main.go:9")
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "a chan os.Signal is given to os/signal.Notify at main.go:9, code that dstreplay test does not rewrite"
	if res.Failure == nil || res.Failure.Kind != schedtest.Misuse || !strings.Contains(res.Failure.Message, want) {
		t.Fatalf("got %v, want a misuse saying %q", res.Failure, want)
	}
}

// TestReflectionOverChannelsFailsTheRun: reflect.Value's channel methods
// and reflect.Select, on a channel inside a run, are a misuse naming the
// channel, the method and the place; outside a run they act as reflect's.
func TestReflectionOverChannelsFailsTheRun(t *testing.T) {
	c := make(chan int, 1)
	native.Reflected(reflect.ValueOf(c), "Send", "p.go:3").Send(reflect.ValueOf(7))
	cases := []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)}}
	if i, v, ok := native.ReflectSelect(cases, "p.go:4"); i != 0 || v.Int() != 7 || !ok {
		t.Fatalf("outside a run, ReflectSelect gave %d %v %v", i, v, ok)
	}
	for _, tc := range []struct {
		name string
		body func()
		want string
	}{
		{"method", func() {
			c := native.Make[chan int](1)
			native.Reflected(reflect.ValueOf(c), "TrySend", "p.go:3").TrySend(reflect.ValueOf(1))
		}, "reflect.Value.TrySend on a chan int at p.go:3: reflection over channels is not rewritten"},
		{"select", func() {
			c := native.Make[chan string](0)
			native.ReflectSelect([]reflect.SelectCase{{Dir: reflect.SelectDefault}, {Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)}}, "p.go:4")
		}, "reflect.Select at p.go:4 has a case (1) on a chan string: reflection over channels is not rewritten"},
	} {
		res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) { tc.body() })
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil || res.Failure.Kind != schedtest.Misuse || !strings.Contains(res.Failure.Message, tc.want) {
			t.Errorf("%s: got %v, want a misuse saying %q", tc.name, res.Failure, tc.want)
		}
	}
	// Nil channels and default cases are not channels the run has.
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) {
		var nilc chan int
		native.Reflected(reflect.ValueOf(nilc), "Len", "p.go:5").Len()
		native.ReflectSelect([]reflect.SelectCase{{Dir: reflect.SelectDefault}, {Dir: reflect.SelectRecv, Chan: reflect.ValueOf(nilc)}}, "p.go:6")
	})
	if err != nil || res.Failure != nil {
		t.Errorf("nil channels: %v %v", err, res.Failure)
	}
}
