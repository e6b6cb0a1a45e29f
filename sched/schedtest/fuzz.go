package schedtest

import (
	"fmt"
	"os"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/schedule"
)

// Fuzz turns a scheduler test into a native Go fuzz target, in one line:
//
//	func FuzzStore(f *testing.F) { schedtest.Fuzz(f, storeBody) }
//
// Each fuzz input is a schedule: its bytes are served, eight at a time, to
// every draw of the run in the order the draws are made (which goroutine
// runs next at each point, whether a fault fires, the body's own T.Entropy
// draws); past the end of the input, draws come from a generator seeded by
// the input. So go test -fuzz=FuzzStore mutates schedules with Go's own
// coverage-guided engine, and the same target runs wherever Go fuzz targets
// run: ClusterFuzzLite and OSS-Fuzz take Go native fuzz targets, which is how
// a hunt scales past one machine. Without -fuzz, go test runs the seed
// corpus and testdata/fuzz/FuzzStore, as for any fuzz target.
//
// A failing input fails the fuzz test with the same report as Test, after
// shrinking, and go test saves the input under testdata/fuzz. The
// scheduler's options come from opts, as changed by -dst.* flags; a flag
// that names one schedule (-dst.seed, -dst.replay, -dst.input, -dst.trace)
// runs it once instead of the corpus.
// F is what Fuzz takes: the *testing.F that go test gives a fuzz target, or
// the testing.F of a fuzzing engine's own that a libFuzzer build puts in its
// place (go-118-fuzz-build's, which OSS-Fuzz and ClusterFuzzLite build Go
// fuzz targets with).
type F interface {
	Helper()
	Add(args ...any)
	Fuzz(ff any)
	Fatal(args ...any)
}

func Fuzz(f F, body func(*T)) {
	f.Helper()
	FuzzWith(f, Options{}, body)
}

// FuzzWith is Fuzz with options.
func FuzzWith(ff F, opts Options, body func(*T)) {
	refuseNested("schedtest.Fuzz")
	ff.Helper()
	f, ok := ff.(*testing.F)
	if !ok {
		fuzzForeign(ff, opts, body)
		return
	}
	o, err := opts.withFlags()
	if err == nil {
		o, err = o.withDefaults()
	}
	if err != nil {
		f.Fatal(err)
	}
	// Seeds: no bytes (every choice past them random), and a few short
	// inputs of small choices, which favour running on over preempting.
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1})
	// A schedule named on the command line (a reproduce line's -dst.seed,
	// -dst.replay, -dst.input or -dst.trace) runs once, in the first input
	// go test gives, rather than once per input of the corpus.
	named := o.namedBy != "" || flags.trace != ""
	var ran atomic.Bool
	f.Fuzz(func(t *testing.T, data []byte) {
		if named && ran.Swap(true) {
			t.Skip("sched: the schedule named on the command line ran in the first input")
		}
		if flags.trace != "" {
			replayForTest(t, flags.trace, body, true)
			return
		}
		if o.fuzzInput != nil {
			data = o.fuzzInput
		}
		s := plan{Schedule: schedule.Schedule{Strategy: engine.Random}, data: data}
		if o.namedBy != "" && o.fuzzInput == nil {
			s = o.schedule(0, o.Seed, schedule.MinPCTSteps)
		}
		x := exploration{s: s, n: 1}
		x.res, x.note = s.run(o, t.Name(), t, body)
		x.res.Schedule = 1
		if x.res.Failure == nil {
			return
		}
		// From here on the schedule is what it drew, so that the
		// reproduce line can name it.
		x.s.Recording, x.s.data = x.res.Recording, nil
		x = shrinkFailure(o, t.Name(), t, body, x)
		x.saved, x.saveErr = saveFailure(t.Name(), o, x, body)
		t.Fatal(failureReport(t.Name(), o, x))
	})
}

// fuzzForeign runs one input of a fuzzing engine whose F is its own (see
// Fuzz): the F's Data field, when it has one, is the engine's input as it
// gave it, and is the schedule's bytes, so that the crash file the engine
// writes replays under go test with -dst.fuzzinput; an F without one is
// asked for a []byte, which the engine derives from its input its own way.
func fuzzForeign(f F, opts Options, body func(*T)) {
	o, err := opts.withDefaults()
	if err != nil {
		panic(err)
	}
	if data, ok := engineInput(f); ok {
		runFuzzInput(o, data, body)
		return
	}
	f.Fuzz(func(_ any, data []byte) { runFuzzInput(o, data, body) })
}

// engineInput is the []byte field Data of the struct f points to.
func engineInput(f F) ([]byte, bool) {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	d := v.Elem().FieldByName("Data")
	if !d.IsValid() || d.Type() != reflect.TypeFor[[]byte]() {
		return nil, false
	}
	return d.Bytes(), true
}

// runFuzzInput runs data as a schedule of body once; a failure is printed,
// with how to replay it, and ends the input with a panic, the engine's
// crash.
func runFuzzInput(o Options, data []byte, body func(*T)) {
	s := plan{Schedule: schedule.Schedule{Strategy: engine.Random}, data: data}
	// On a goroutine of its own: the engine calls a target from C on a
	// goroutine locked to its thread, and the run's coroutines, switched
	// from other goroutines, must not be made on a locked one (the
	// runtime's "coro: OS thread locking must match").
	done := make(chan *Result)
	go func() {
		res, _ := s.run(o, "fuzz", nil, body)
		done <- res
	}()
	res := <-done
	if res.Failure == nil {
		return
	}
	fmt.Fprintf(os.Stderr, "sched: %s in this input's schedule (%d steps, %d switches, %d goroutines)\n\n%s\n\n"+
		"the input is the schedule: to replay it, shrink it and save its trace, run the fuzz target under go test "+
		"with -dst.fuzzinput=<the crash file the engine wrote> (as: go test -run '^FuzzX$' -dst.fuzzinput=crash-...)\n",
		res.Failure.Kind, res.Steps, res.Switches, res.Goroutines, res.Failure.Error())
	panic(fmt.Sprintf("sched: %s: %s", res.Failure.Kind, res.Failure.Message))
}
