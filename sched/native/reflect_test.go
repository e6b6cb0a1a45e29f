package native_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
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

// The channel methods of reflect.Value and reflect.Select, as rewritten
// code calls them (through Reflected and ReflectSelect).

func reflV(v reflect.Value, op string) native.Value { return native.Reflected(v, op, "p.go:1") }

func refl(c any, op string) native.Value { return reflV(reflect.ValueOf(c), op) }

func rsend(c any, x any) { refl(c, "Send").Send(reflect.ValueOf(x)) }

func rrecv(c any) (reflect.Value, bool) { return refl(c, "Recv").Recv() }

func rclose(c any) { refl(c, "Close").Close() }

func rselect(cases ...reflect.SelectCase) (int, reflect.Value, bool) {
	return native.ReflectSelect(cases, "p.go:2")
}

func recvCase(c any) reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)}
}

func sendCase(c any, x any) reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectSend, Chan: reflect.ValueOf(c), Send: reflect.ValueOf(x)}
}

var defaultCase = reflect.SelectCase{Dir: reflect.SelectDefault}

// show is what a receive gave: the value (or that there was none), ok,
// and the value's type.
func show(x reflect.Value, ok bool) string {
	if !x.IsValid() {
		return fmt.Sprint("none ", ok)
	}
	return fmt.Sprint(x.Interface(), " ", ok, " ", x.Type())
}

// outcomes explores body over iters schedules of each strategy, each
// schedule returning what it saw, and returns the set of what they saw; it
// fails t if a schedule fails, and checks that each schedule runs the same
// twice.
func outcomes(t *testing.T, iters int, body func() string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	wrapped := func(*schedtest.T) { seen[body()] = true }
	for _, strategy := range []string{"random", "pct", "pos"} {
		opts := schedtest.Options{Seed: 7, Strategy: strategy, Iterations: iters}
		res, err := schedtest.Explore(opts, wrapped)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure != nil {
			t.Fatalf("%s, schedule %d: %v", strategy, res.Schedule, res.Failure)
		}
		opts.Iterations = 10
		if err := schedtest.Check(opts, wrapped); err != nil {
			t.Fatalf("%s: %v", strategy, err)
		}
	}
	return seen
}

func wantOutcomes(t *testing.T, got map[string]bool, want ...string) {
	t.Helper()
	w := map[string]bool{}
	for _, s := range want {
		w[s] = true
	}
	if !reflect.DeepEqual(got, w) {
		var ks []string
		for k := range got {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		t.Errorf("outcomes:\n\t%s\nwant exactly:\n\t%s", strings.Join(ks, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestReflectSendRecvClose: inside a run, reflect.Value's Send, Recv,
// TryRecv and Close act on the run's channel, mixed with the language's
// operations on it: values go through in order, a receive after the close
// gets the zero value with ok false; a received value has the channel's
// element type, an interface type included, and is not addressable, as
// reflect's. Every schedule sees the same.
func TestReflectSendRecvClose(t *testing.T) {
	got := outcomes(t, 30, func() string {
		c := native.Make[chan int](0)
		e := native.Make[chan error](2)
		native.Go(func() {
			rsend(c, 1)
			native.To(c).Send(2)
			refl(c, "Send").Send(reflect.ValueOf(3).Convert(reflect.TypeFor[int]()))
			rclose(c)
		})
		var out []string
		x, ok := rrecv(c)
		out = append(out, show(x, ok), fmt.Sprint("addressable ", x.CanAddr()))
		out = append(out, fmt.Sprint(native.Recv(c)))
		out = append(out, show(rrecv(c)))
		out = append(out, show(rrecv(c)))
		out = append(out, show(refl(c, "TryRecv").TryRecv()))
		rsend(e, errors.New("boom"))
		refl(e, "Send").Send(reflect.Zero(reflect.TypeFor[error]()))
		out = append(out, fmt.Sprint("len ", refl(e, "Len").Len()))
		x, ok = rrecv(e)
		out = append(out, fmt.Sprint(x.Kind(), " ", x.Type(), " ", x.Interface(), " ", ok))
		x, ok = rrecv(e)
		out = append(out, fmt.Sprint(x.Kind(), " ", x.IsNil(), " ", ok))
		return strings.Join(out, "; ")
	})
	wantOutcomes(t, got, "1 true int; addressable false; 2; 3 true int; 0 false int; 0 false int; len 2; "+
		"interface error boom true; interface true true")
}

// TestReflectTryOutcomes: TrySend on an unbuffered channel succeeds only
// when the receiver already waits, TryRecv only when the value was sent:
// the schedules explored show every outcome Go allows, and no other.
func TestReflectTryOutcomes(t *testing.T) {
	got := outcomes(t, 100, func() string {
		c := native.Make[chan int](0)
		d := native.Make[chan int](1)
		var sent bool
		native.Go(func() {
			sent = refl(c, "TrySend").TrySend(reflect.ValueOf(7))
			if !sent {
				native.To(c).Send(7)
			}
			native.To(d).Send(9)
		})
		v, ok := rrecv(c)
		x, xok := refl(d, "TryRecv").TryRecv()
		if !x.IsValid() {
			if n := native.Recv(d); n != 9 {
				return fmt.Sprint("received ", n)
			}
		}
		return fmt.Sprintf("recv %s, TrySend %v, TryRecv %s", show(v, ok), sent, show(x, xok))
	})
	wantOutcomes(t, got,
		"recv 7 true int, TrySend true, TryRecv 9 true int",
		"recv 7 true int, TrySend true, TryRecv none false",
		"recv 7 true int, TrySend false, TryRecv 9 true int",
		"recv 7 true int, TrySend false, TryRecv none false")
}

// TestReflectSelectReady: reflect.Select picks among its ready cases, each
// in some schedule; cases on nil channels and zero Value cases are never
// ready, and the default case is not taken while a case is ready. The same
// seed picks the same.
func TestReflectSelectReady(t *testing.T) {
	var picks []string
	body := func() string {
		a, b := native.Make[chan int](1), native.Make[chan string](1)
		native.To(a).Send(1)
		native.To(b).Send("two")
		var nilc chan int
		i, x, ok := rselect(
			recvCase(nilc),
			reflect.SelectCase{Dir: reflect.SelectRecv},
			recvCase(a),
			reflect.SelectCase{Dir: reflect.SelectSend, Send: reflect.ValueOf(5)},
			recvCase((<-chan string)(b)),
			sendCase(nilc, 3),
			defaultCase)
		s := fmt.Sprint(i, " ", show(x, ok))
		picks = append(picks, s)
		return s
	}
	got := outcomes(t, 40, body)
	wantOutcomes(t, got, "2 1 true int", "4 two true string")

	// Determinism: the same seeds pick the same.
	run := func() []string {
		picks = nil
		res, err := schedtest.Explore(schedtest.Options{Seed: 3, Iterations: 30}, func(*schedtest.T) { body() })
		if err != nil || res.Failure != nil {
			t.Fatal(err, res.Failure)
		}
		return picks
	}
	if first, again := run(), run(); !slices.Equal(first, again) {
		t.Errorf("the same seed picked\n%v\nthen\n%v", first, again)
	}
}

// TestReflectSelectBlocks: a select with no default case that finds
// nothing ready blocks until another goroutine completes one of its cases,
// a send or a receive, each in some schedule; a send case on a full
// channel with a default takes the default.
func TestReflectSelectBlocks(t *testing.T) {
	got := outcomes(t, 100, func() string {
		in, out := native.Make[chan int](0), native.Make[chan int](0)
		var taken int
		done := native.Make[chan bool](0)
		native.Go(func() {
			taken = native.Recv(out)
			native.To(done).Send(true)
		})
		native.Go(func() { native.To(in).Send(5) })
		i, x, ok := rselect(sendCase(out, 9), recvCase(in))
		s := fmt.Sprint(i, " ", show(x, ok))
		if i == 0 {
			native.Recv(in)
		} else {
			native.To(out).Send(9)
		}
		native.Recv(done)
		full := native.Make[chan int](1)
		native.To(full).Send(1)
		j, _, _ := rselect(sendCase(full, 2), defaultCase)
		return fmt.Sprint(s, "; taken ", taken, "; full ", j)
	})
	wantOutcomes(t, got, "0 none false; taken 9; full 1", "1 5 true int; taken 9; full 1")
}

// TestReflectSelectClosed: a receive case on a closed channel drains it,
// then gets the zero value with ok false; a select of nil channels and
// zero Value cases with a default takes the default.
func TestReflectSelectClosed(t *testing.T) {
	got := outcomes(t, 10, func() string {
		c := native.Make[chan int](1)
		rsend(c, 7)
		rclose(c)
		var out []string
		for range 2 {
			i, x, ok := rselect(recvCase(c))
			out = append(out, fmt.Sprint(i, " ", show(x, ok)))
		}
		i, x, ok := rselect(recvCase((chan int)(nil)), reflect.SelectCase{Dir: reflect.SelectSend}, defaultCase)
		out = append(out, fmt.Sprint(i, " ", show(x, ok)))
		i, _, _ = rselect(defaultCase)
		out = append(out, fmt.Sprint(i))
		return strings.Join(out, "; ")
	})
	wantOutcomes(t, got, "0 7 true int; 0 0 false int; 2 none false; 0")
}

// TestReflectPanics: inside a run, reflection over channels panics where
// Go's does, with Go's messages: what the operations give outside a run,
// where they are reflect's.
func TestReflectPanics(t *testing.T) {
	type hidden struct {
		x int
		c chan int
	}
	mk := func() chan int { return native.Make[chan int](1) }
	closed := func() chan int {
		c := mk()
		rclose(c)
		return c
	}
	cases := map[string]func(){
		"send on closed":        func() { rsend(closed(), 1) },
		"trysend on closed":     func() { refl(closed(), "TrySend").TrySend(reflect.ValueOf(1)) },
		"close of closed":       func() { rclose(closed()) },
		"close of nil":          func() { rclose((chan int)(nil)) },
		"send on recv-only":     func() { rsend((<-chan int)(mk()), 1) },
		"trysend on recv-only":  func() { refl((<-chan int)(mk()), "TrySend").TrySend(reflect.ValueOf(1)) },
		"recv on send-only":     func() { rrecv((chan<- int)(mk())) },
		"tryrecv on send-only":  func() { refl((chan<- int)(mk()), "TryRecv").TryRecv() },
		"close of recv-only":    func() { rclose((<-chan int)(mk())) },
		"send of another type":  func() { rsend(mk(), "x") },
		"send of a zero Value":  func() { refl(mk(), "Send").Send(reflect.Value{}) },
		"send unexported value": func() { refl(mk(), "Send").Send(reflect.ValueOf(hidden{x: 1}).Field(0)) },
		"recv unexported chan":  func() { reflV(reflect.ValueOf(hidden{c: mk()}).Field(1), "Recv").Recv() },
		"close unexported chan": func() { reflV(reflect.ValueOf(hidden{c: mk()}).Field(1), "Close").Close() },
		"recv of an int":        func() { rrecv(1) },
		"close of an int":       func() { rclose(1) },
		"trysend of a string":   func() { refl("s", "TrySend").TrySend(reflect.ValueOf(1)) },

		"select send on closed":          func() { rselect(sendCase(closed(), 1)) },
		"select send on closed, default": func() { rselect(recvCase(mk()), sendCase(closed(), 1), defaultCase) },
		"select multiple defaults":       func() { rselect(defaultCase, recvCase(mk()), defaultCase) },
		"select default with Chan":       func() { rselect(reflect.SelectCase{Dir: reflect.SelectDefault, Chan: reflect.ValueOf(mk())}) },
		"select default with Send":       func() { rselect(reflect.SelectCase{Dir: reflect.SelectDefault, Send: reflect.ValueOf(1)}) },
		"select send on recv-only":       func() { rselect(sendCase((<-chan int)(mk()), 1)) },
		"select recv on send-only":       func() { rselect(recvCase((chan<- int)(mk()))) },
		"select recv with Send": func() {
			rselect(reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(mk()), Send: reflect.ValueOf(1)})
		},
		"select recv of none with Send": func() { rselect(reflect.SelectCase{Dir: reflect.SelectRecv, Send: reflect.ValueOf(1)}) },
		"select send without Send":      func() { rselect(reflect.SelectCase{Dir: reflect.SelectSend, Chan: reflect.ValueOf(mk())}) },
		"select send of another type":   func() { rselect(sendCase(mk(), "x")) },
		"select send unexported value": func() {
			rselect(reflect.SelectCase{Dir: reflect.SelectSend, Chan: reflect.ValueOf(mk()), Send: reflect.ValueOf(hidden{x: 1}).Field(0)})
		},
		"select unexported chan": func() {
			rselect(reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(hidden{c: mk()}).Field(1)})
		},
		"select invalid Dir":       func() { rselect(reflect.SelectCase{Dir: 9}) },
		"select on an int":         func() { rselect(recvCase(1)) },
		"select first bad case":    func() { rselect(recvCase(mk()), recvCase((chan<- int)(mk())), sendCase(mk(), "x")) },
		"select bad after default": func() { rselect(defaultCase, sendCase(mk(), "x"), defaultCase) },
	}
	show := func(v any) string {
		if v == nil {
			return "no panic"
		}
		return fmt.Sprint(v)
	}
	want := map[string]string{}
	for name, f := range cases {
		want[name] = show(panicOf(f))
		if want[name] == "no panic" {
			t.Errorf("%s: Go does not panic", name)
		}
	}
	got := map[string]string{}
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) {
		for name, f := range cases {
			got[name] = show(panicOf(f))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("the run failed: %v", res.Failure)
	}
	for name := range cases {
		if got[name] != want[name] {
			t.Errorf("%s: inside a run, panic %q; Go's: %q", name, got[name], want[name])
		}
	}
}

// TestReflectBlockedSendPanicsOnClose: a send through reflection blocked
// on a channel panics when another goroutine closes the channel through
// reflection, as in Go; a receive from a nil channel blocks forever.
func TestReflectBlockedSendPanicsOnClose(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		res, err := schedtest.Run(schedtest.Options{Seed: seed}, func(*schedtest.T) {
			c := native.Make[chan int](0)
			native.Go(func() { rsend(c, 1) })
			rclose(c)
			native.Recv(native.Make[chan int](0)) // wait for the panic
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil || res.Failure.Kind != schedtest.Panic || !strings.Contains(res.Failure.Message, "send on closed channel") {
			t.Fatalf("seed %d: %v, want the panic send on closed channel", seed, res.Failure)
		}
	}
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) { rrecv((chan int)(nil)) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || res.Failure.Kind != schedtest.Deadlock {
		t.Fatalf("a receive from a nil channel: %v, want a deadlock", res.Failure)
	}
}

// unmade is an element type of no channel made by chans.Make in this
// test binary.
type unmade struct{ a [3]int16 }

// TestReflectAdopts: a channel made outside the run, first used in it
// through reflection, is adopted with what it holds and closed if it is,
// as the language's operations adopt it, and both kinds of operation then
// share the run's channel; so is one that reflect.MakeChan made in the
// run. A channel whose element type the run cannot make a channel of is a
// misuse naming it.
func TestReflectAdopts(t *testing.T) {
	outside := make(chan int, 3)
	outside <- 1
	outside <- 2
	close(outside)
	held := make(chan string, 1)
	held <- "h"
	var got []string
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) {
		got = append(got, show(rrecv(outside)), fmt.Sprint(native.Recv(outside)), show(rrecv(outside)))
		i, x, ok := rselect(recvCase(held), defaultCase)
		got = append(got, fmt.Sprint(i, " ", show(x, ok)), fmt.Sprint(native.Len(held)))
		mc := reflect.MakeChan(reflect.TypeFor[chan int](), 1)
		native.Go(func() { reflV(mc, "Send").Send(reflect.ValueOf(4)) })
		got = append(got, fmt.Sprint(native.Recv(mc.Interface().(chan int))))
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("the run failed: %v", res.Failure)
	}
	if want := []string{"1 true int", "2", "0 false int", "0 h true string", "0", "4"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}

	odd := make(chan unmade, 1)
	res, err = schedtest.Run(schedtest.Options{Seed: 1}, func(*schedtest.T) { rrecv(odd) })
	if err != nil {
		t.Fatal(err)
	}
	want := "reflection at p.go:1 is the run's first use of a chan native_test.unmade made outside the run, and the run cannot make a channel of native_test.unmade"
	if res.Failure == nil || res.Failure.Kind != schedtest.Misuse || !strings.Contains(res.Failure.Message, want) {
		t.Errorf("got %v, want a misuse saying %q", res.Failure, want)
	}
}

// TestReflectOutsideRun: outside a run, the channel methods and Select are
// reflect's.
func TestReflectOutsideRun(t *testing.T) {
	c := make(chan int, 1)
	rsend(c, 7)
	if i, v, ok := rselect(recvCase(c)); i != 0 || v.Int() != 7 || !ok {
		t.Fatalf("ReflectSelect gave %d %v %v", i, v, ok)
	}
	if !refl(c, "TrySend").TrySend(reflect.ValueOf(8)) {
		t.Fatal("TrySend on an empty buffered channel failed")
	}
	if x, ok := refl(c, "TryRecv").TryRecv(); x.Int() != 8 || !ok {
		t.Fatalf("TryRecv gave %v %v", x, ok)
	}
	rclose(c)
	if x, ok := rrecv(c); x.Int() != 0 || ok {
		t.Fatalf("Recv of a closed channel gave %v %v", x, ok)
	}
}
