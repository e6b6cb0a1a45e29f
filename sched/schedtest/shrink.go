package schedtest

import (
	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/hunt"
	"github.com/dstgo/dst/internal/schedule"
)

// loopOutcome is a run as the fuzz loop and the shrinker see it.
func loopOutcome(out *engine.Outcome, rec *entropy.Recording) hunt.Outcome {
	o := hunt.Outcome{Rec: rec, Size: hunt.Size{
		Preemptions: out.Preemptions, Faults: len(out.Faults), Steps: out.Steps, Goroutines: out.Goroutines,
	}}
	if f := out.Failure; f != nil {
		o.Failure = &hunt.Failure{Kind: f.Kind.String(), Signature: f.Signature(), Message: firstLine(f.Message)}
	}
	return o
}

// shrinkable reports whether a failure can be shrunk: re-executing it must
// be possible (a watchdog abandons a goroutine; an escape runs outside the
// scheduler), and worth it: a run that reached the step bound while making
// progress did more work than the bound allows whatever the interleaving,
// and each candidate would run to the bound (millions of points) again.
func shrinkable(k FailureKind) bool {
	return k != Watchdog && k != Escape && k != StepBound && (k != DataRace || engine.RaceRepeatable())
}

// shrinkFailure replaces the failing schedule of x with the smallest one
// found that fails the same way (the same signature: its kind and where),
// re-executed with source locations for the report. The failure is first
// transcribed as a random walk, whatever the strategy that found it, so
// that every choice of 0 means "no preemption" and lowering choices
// simplifies the schedule.
func shrinkFailure(o Options, name string, tb tbase, body func(*T), x exploration) exploration {
	if o.noShrink || x.res.Failure == nil || !shrinkable(x.res.Failure.Kind) {
		return x
	}
	s := x.s
	s.Recording, s.Then, s.data, s.transcribe = x.res.Recording, false, nil, true
	out, rec, _ := s.execute(o, name, tb, body, false)
	first := loopOutcome(out, rec)
	if first.Failure == nil || first.Failure.Signature != x.res.Failure.signature {
		return x // it does not fail the same way again: leave it as it is
	}
	// The random walk equivalent: the strategy's decisions as choices, and
	// every other value (faults, timers, the body's draws) as drawn.
	var values []entropy.Value
	for _, v := range rec.Values {
		if !engine.StrategyUID(v.UID) {
			values = append(values, v)
		}
	}
	for _, c := range out.Transcript {
		values = append(values, entropy.Value{UID: engine.TranscriptUID, V: c})
	}
	in := hunt.Input{Strategy: engine.Random, Recording: &entropy.Recording{Values: values, Data: rec.Data}}
	run := func(in hunt.Input) hunt.Outcome {
		s := plan{index: x.s.index, Schedule: in}
		out, rec, _ := s.execute(o, name, tb, body, false)
		return loopOutcome(out, rec)
	}
	walk := run(in)
	if walk.Failure == nil || walk.Failure.Signature != first.Failure.Signature {
		return x
	}
	r := hunt.Shrink(hunt.ShrinkConfig{}, in, walk, run)
	r.Before = hunt.SizeOf(first.Size, x.res.Recording)
	// No seed: the found schedule's would not reproduce the shrunk one.
	small := plan{index: x.s.index, Schedule: schedule.Schedule{Strategy: engine.Random, Recording: r.Input.Recording}}
	res, note := small.run(o, name, tb, body)
	if res.Failure == nil || res.Failure.signature != x.res.Failure.signature || note != "" {
		// Its last executions failed another way than the schedule as
		// found, or than each other (state that the shrinker's
		// executions piled up): the report is of the schedule as found,
		// whose executions agreed.
		return x
	}
	res.Schedule = x.res.Schedule
	x.found0 = &x.s
	x.s, x.res, x.note = small, res, note
	x.shrunk = &r
	return x
}
