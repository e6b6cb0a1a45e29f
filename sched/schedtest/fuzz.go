package schedtest

import (
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
func Fuzz(f *testing.F, body func(*T)) {
	f.Helper()
	FuzzWith(f, Options{}, body)
}

// FuzzWith is Fuzz with options.
func FuzzWith(f *testing.F, opts Options, body func(*T)) {
	refuseNested("schedtest.Fuzz")
	f.Helper()
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
		s := plan{Schedule: schedule.Schedule{Strategy: engine.Random}, data: data}
		if o.namedBy != "" {
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
