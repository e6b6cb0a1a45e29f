package schedtest

import (
	"fmt"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/trace"
)

// Check runs body for opts.Iterations schedules (default 100), each twice
// with the same entropy, and returns a *NondeterminismError for the first
// schedule whose two runs differ (their events, or how they ended), or nil.
// Without opts.Strategy (or with "portfolio"), the schedules take turns
// with PCT, the random walk and POS.
func Check(opts Options, body func(*T)) error {
	if opts.Iterations == 0 {
		opts.Iterations = 100
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	opts.Record, opts.Detail = true, true // a divergence is reported with both source lines
	for i := 0; i < opts.Iterations; i++ {
		o := opts
		o.Seed = opts.Seed + uint64(i)*seedStep // as an exploration spreads its seeds
		if opts.Strategy == "" || opts.Strategy == "portfolio" {
			o.Strategy = checkStrategies[i%len(checkStrategies)].String()
		}
		a, err := Run(o, body)
		if err != nil {
			return err
		}
		o.Recording = a.Recording
		o.Strategy = a.Strategy
		b, err := Run(o, body)
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
func end(r *Result) string {
	o := trace.Outcome{Kind: "pass"}
	if f := r.Failure; f != nil {
		o.Kind, o.Message = string(f.Kind), f.Message
	}
	return o.End()
}

// checkStrategies are the strategies Check takes turns with.
var checkStrategies = []engine.Strategy{engine.PCT, engine.Random, engine.POS}

// NondeterminismError says that one schedule ran differently twice.
type NondeterminismError struct {
	Seed       uint64
	Strategy   string
	Divergence *trace.Divergence
}

func (e *NondeterminismError) Error() string {
	return fmt.Sprintf("schedtest: the body is not deterministic: schedule %#x (%s) ran differently the second time: %v",
		e.Seed, e.Strategy, e.Divergence)
}

func (e *NondeterminismError) Unwrap() error { return e.Divergence }
