// Package replay re-executes recorded runs and checks that runs are
// deterministic.
//
//   - File re-runs a test body from a trace file (see package trace): the
//     decisions come from the trace's entropy recording and every event of
//     the new run is compared with the recorded one; the first difference is
//     a *trace.Divergence with the step, both events and their source lines.
//   - Check runs a body twice per schedule with the same entropy and compares
//     the events, proving (or refuting) that the body is deterministic under
//     the scheduler.
//   - Cursor steps through a trace, forward and back, and gives the state of
//     every goroutine at any event, for tools that show a run to a person.
package replay

import (
	"fmt"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/trace"
)

// File re-executes body from the trace file at path. It returns the new
// run's result, and a *trace.Divergence error when the run differs from the
// recording.
func File(path string, body func(*sched.T)) (*sched.Result, error) {
	return sched.Replay(path, body)
}

// Check runs body for opts.Iterations schedules (default 100), each twice
// with the same entropy, and returns a *NondeterminismError for the first
// schedule whose two runs differ (their events, or how they ended), or nil.
// Without opts.Strategy (or with "portfolio"), the schedules take turns
// with PCT, the random walk and POS.
func Check(opts sched.Options, body func(*sched.T)) error {
	if opts.Iterations == 0 {
		opts.Iterations = 100
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	opts.Record, opts.Detail = true, true // a divergence is reported with both source lines
	const step = 0x9E3779B97F4A7C15       // as sched spreads the seeds of an exploration
	for i := 0; i < opts.Iterations; i++ {
		o := opts
		o.Seed = opts.Seed + uint64(i)*step
		if opts.Strategy == "" || opts.Strategy == "portfolio" {
			o.Strategy = []string{"pct", "random", "pos"}[i%3]
		}
		a, err := sched.Run(o, body)
		if err != nil {
			return err
		}
		o.Recording = a.Recording
		o.Strategy = a.Strategy
		b, err := sched.Run(o, body)
		if err != nil {
			return err
		}
		want, err := a.Trace.Events()
		if err != nil {
			return err
		}
		got, err := b.Trace.Events()
		if err != nil {
			return err
		}
		d := trace.Compare(want, got)
		if d == nil {
			d = trace.CompareEnds(int64(len(got)), end(a), end(b))
		}
		if d != nil {
			return &NondeterminismError{Seed: o.Seed, Strategy: a.Strategy, Divergence: d}
		}
	}
	return nil
}

// end is how a run ended, as its trace's outcome says it.
func end(r *sched.Result) string {
	o := trace.Outcome{Kind: "pass"}
	if f := r.Failure; f != nil {
		o.Kind, o.Message = string(f.Kind), f.Message
	}
	return o.End()
}

// NondeterminismError says that one schedule ran differently twice.
type NondeterminismError struct {
	Seed       uint64
	Strategy   string
	Divergence *trace.Divergence
}

func (e *NondeterminismError) Error() string {
	return fmt.Sprintf("replay: the body is not deterministic: schedule %#x (%s) ran differently the second time: %v",
		e.Seed, e.Strategy, e.Divergence)
}

func (e *NondeterminismError) Unwrap() error { return e.Divergence }
