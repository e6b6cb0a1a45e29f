// Package schedule is what decides one run besides its body: the strategy
// that picks who runs at each scheduling point, its parameters, and the
// entropy every decision is drawn from (a seed, a recording, or a recording
// and then a seed). The harness's options and results, a hunt's inputs and
// a trace's header all carry a Schedule; this package is its one
// definition, with its defaults, its text forms (for people, and as go test
// flags) and its place in a trace's header.
package schedule

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/trace"
)

// Defaults.
const (
	// DefaultDepth is PCT's bug depth when none is given.
	DefaultDepth = 3
	// MinPCTSteps is the least range PCT draws its change points from.
	MinPCTSteps = 100
)

// Strategies lists the strategies a single schedule runs, in the order
// their names are documented.
var Strategies = []engine.Strategy{engine.Random, engine.PCT, engine.POS, engine.SURW}

// ParseStrategy returns the strategy named name ("random", "pct" or
// "pos").
func ParseStrategy(name string) (engine.Strategy, error) {
	for _, s := range Strategies {
		if s.String() == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown strategy %q: want %s", name, strategyNames())
}

func strategyNames() string {
	var names []string
	for _, s := range Strategies {
		names = append(names, s.String())
	}
	return strings.Join(names, ", ")
}

// Schedule decides one run.
type Schedule struct {
	Strategy engine.Strategy
	Depth    int // PCT: the bug depth d, d-1 priority change points
	PCTSteps int // PCT: change points are drawn in [1, PCTSteps]
	// Seed serves fresh draws, unless Recording replays them.
	Seed uint64
	// Recording, when not nil, is replayed per uid. Past its values draws
	// come fresh from Seed when Then is set (a hunt's mutated input), and
	// are errors of the entropy source otherwise.
	Recording *entropy.Recording
	Then      bool
	// SeedRecorded says that Recording is what Seed drew: the seed
	// reproduces the schedule too (a failure found by exploring, re-run
	// from its recording).
	SeedRecorded bool
}

// WithDefaults fills a zero Depth and PCTSteps: DefaultDepth, and pctHint
// (at least MinPCTSteps).
func (s Schedule) WithDefaults(pctHint int) Schedule {
	if s.Depth == 0 {
		s.Depth = DefaultDepth
	}
	if s.PCTSteps == 0 {
		s.PCTSteps = max(pctHint, MinPCTSteps)
	}
	return s
}

// Source returns a fresh entropy source that serves the schedule's draws.
func (s Schedule) Source() *entropy.Source {
	switch {
	case s.Recording != nil && s.Then:
		return entropy.ReplayThen(s.Recording, s.Seed)
	case s.Recording != nil:
		return entropy.Replay(s.Recording)
	}
	return entropy.New(s.Seed)
}

// String describes the schedule for people: "seed 0x2a, pct depth 3 over
// 120 steps", "from a recording, random".
func (s Schedule) String() string {
	var b strings.Builder
	switch {
	case s.Recording != nil:
		fmt.Fprintf(&b, "from a recording, %s", s.Strategy)
	default:
		fmt.Fprintf(&b, "seed %#x, %s", s.Seed, s.Strategy)
	}
	if s.Strategy == engine.PCT {
		fmt.Fprintf(&b, " depth %d over %d steps", s.Depth, s.PCTSteps)
	}
	return b.String()
}

// Flags are the go test flags that run exactly this schedule: its
// recording's handle (-dst.replay) or its seed, and its strategy and
// parameters. A schedule that draws past its recording from a seed has no
// such flags: name what it drew instead.
func (s Schedule) Flags() []string {
	var args []string
	if s.Recording != nil {
		args = append(args, "-dst.replay="+s.Recording.Handle())
	} else {
		args = append(args, fmt.Sprintf("-dst.seed=%#x", s.Seed))
	}
	args = append(args, "-dst.strategy="+s.Strategy.String())
	if s.Strategy == engine.PCT {
		args = append(args, fmt.Sprintf("-dst.depth=%d", s.Depth), fmt.Sprintf("-dst.pctsteps=%d", s.PCTSteps))
	}
	return args
}

// entropyOption is the header option that says what reproduces the
// schedule.
func (s Schedule) entropyOption() string {
	switch {
	case s.Then:
		// A trace streamed up to a crash holds only the input's recording.
		return trace.EntropyRecordingThenSeed
	case s.Recording == nil || s.SeedRecorded:
		return trace.EntropySeed
	}
	return trace.EntropyRecording
}

// Header writes the schedule into a trace's header: the strategy and its
// parameters, the seed, the entropy option, and recording (the values the
// run drew, which may be more than s.Recording).
func (s Schedule) Header(h *trace.Header, recording *entropy.Recording) {
	h.Strategy, h.Depth, h.PCTSteps, h.Seed = s.Strategy.String(), s.Depth, s.PCTSteps, s.Seed
	h.Options = append(h.Options, s.entropyOption())
	h.Recording = nil
	if recording != nil {
		h.Recording, _ = recording.MarshalBinary()
	}
}

// FromHeader is the schedule a trace's header records: its recording,
// replayed, then (for a hunt's input) its seed.
func FromHeader(h *trace.Header) (Schedule, error) {
	rec := &entropy.Recording{}
	if err := rec.UnmarshalBinary(h.Recording); err != nil {
		return Schedule{}, fmt.Errorf("the trace's recording: %w", err)
	}
	st, err := ParseStrategy(h.Strategy)
	if err != nil {
		return Schedule{}, fmt.Errorf("the trace's strategy: %w", err)
	}
	return Schedule{
		Strategy: st, Depth: h.Depth, PCTSteps: h.PCTSteps, Seed: h.Seed, Recording: rec,
		Then:         slices.Contains(h.Options, trace.EntropyRecordingThenSeed),
		SeedRecorded: slices.Contains(h.Options, trace.EntropySeed),
	}, nil
}

// IsEntropyOption reports whether a header option is the one Header writes
// to say what reproduces the schedule (which String already says).
func IsEntropyOption(o string) bool {
	return o == trace.EntropySeed || o == trace.EntropyRecording || o == trace.EntropyRecordingThenSeed
}
