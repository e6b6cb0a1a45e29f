package hunt

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
)

// CoverSize is the length of the coverage map a Target fills: hit counters
// indexed by feature hash.
const CoverSize = engine.CoverSize

// Target runs one input and reports what it did, adding the run's coverage
// to cover (CoverSize counters, zeroed by the caller).
type Target func(in Input, cover []byte) Outcome

// Outcome is what running an input did.
type Outcome struct {
	// Rec is every value the run drew: replayed under the same strategy it
	// repeats the run.
	Rec     *entropy.Recording
	Failure *Failure // nil when the run passed
	Size    Size
}

// Failure is a failed run, as the loop needs to know it.
type Failure struct {
	Kind string
	// Signature identifies the failure across schedules: its kind and
	// where it happened. Shrinking keeps it.
	Signature string
	Message   string
}

// Size measures how much a person has to read to follow a run. Smaller is
// simpler: fewer preemptions first, then fewer faults fired (a failure
// that needs one partition should not be reported with the dozen delays
// that happened to fire beside it, even when dropping them makes the run
// longer: the run does more in the same virtual time), then fewer steps,
// goroutines, values, and smaller values.
type Size struct {
	Preemptions int `json:"preemptions"`
	Faults      int `json:"faults,omitempty"`
	Steps       int `json:"steps"`
	Goroutines  int `json:"goroutines"`
	Values      int `json:"values"`
	Sum         uint64
}

// Less orders sizes lexicographically.
func (s Size) Less(t Size) bool {
	a := [...]uint64{uint64(s.Preemptions), uint64(s.Faults), uint64(s.Steps), uint64(s.Goroutines), uint64(s.Values), s.Sum}
	b := [...]uint64{uint64(t.Preemptions), uint64(t.Faults), uint64(t.Steps), uint64(t.Goroutines), uint64(t.Values), t.Sum}
	return slices.Compare(a[:], b[:]) < 0
}

// String reads "P preemptions, F faults, S steps, G goroutines, V values",
// without the faults when none fired.
func (s Size) String() string {
	faults := ""
	switch {
	case s.Faults == 1:
		faults = "1 fault, "
	case s.Faults > 1:
		faults = fmt.Sprintf("%d faults, ", s.Faults)
	}
	return fmt.Sprintf("%d preemptions, %s%d steps, %d goroutines, %d values", s.Preemptions, faults, s.Steps, s.Goroutines, s.Values)
}

// SizeOf fills in the parts of a size that a recording determines.
func SizeOf(s Size, rec *entropy.Recording) Size {
	s.Values, s.Sum = 0, 0
	if rec == nil {
		return s
	}
	s.Values = len(rec.Values)
	for _, v := range rec.Values {
		s.Sum = satAdd(s.Sum, v.V)
	}
	return s
}

func satAdd(a, b uint64) uint64 {
	if s, c := bits.Add64(a, b, 0); c == 0 {
		return s
	}
	return ^uint64(0)
}

// portfolio is the strategies fresh inputs are drawn from, in turn.
// Mostly random walk: measured on the examples, the three find the dedup
// store's bugs about as often, but on the agent's stuck approval one fresh
// random walk in about 500 finds it, one POS run in 550 to 850 and one PCT
// run (depths 1 to 3) in 1300 to 1900. POS and PCT keep a share for the
// bugs they are made for.
var portfolio = []Input{
	{Strategy: engine.Random},
	{Strategy: engine.Random},
	{Strategy: engine.Random},
	{Strategy: engine.POS},
	{Strategy: engine.Random},
	{Strategy: engine.Random},
	{Strategy: engine.Random},
	{Strategy: engine.PCT, Depth: 2},
}

// Config shapes a Loop.
type Config struct {
	// Seed seeds the loop's own choices and the fresh values of its inputs.
	Seed uint64
	// Dir keeps the corpus on disk: inputs found by this loop are written
	// there, and Sync loads those other loops (workers) wrote. Empty: in
	// memory only.
	Dir string
	// PCTSteps is the change-point range of fresh PCT inputs. Default 100.
	PCTSteps int
	// Fresh is the probability of a fresh input once the corpus has
	// inputs. Default 0.5: on the examples, fresh inputs found bugs as
	// often as mutations.
	Fresh float64
}

// Loop is a coverage-guided search over schedules: it keeps a corpus of
// inputs that reached some coverage feature most cheaply, runs mutations of
// them and fresh inputs from the portfolio, and adds any input that reaches
// a feature first, or more cheaply. An input that reaches a feature no input
// reached before is mutated next, before any other, once.
type Loop struct {
	cfg    Config
	target Target
	rng    *rand.Rand
	cover  []byte

	corpus []*entry
	// best[f] is the corpus entry holding feature f (a map index times 8
	// plus a hit-count bucket), the cheapest to reach it.
	best  []*entry
	nfeat int
	known map[string]bool // input files already loaded or written
	// pending is the corpus entries that reached a feature first and have
	// not been mutated yet; the newest is mutated next.
	pending []*entry

	fresh    int // fresh inputs made, for the portfolio's turn
	maxSteps int // the most steps a run took
	stats    Stats
}

type entry struct {
	in    Input
	cost  cost
	holds int // features this entry is the best for
	file  string
}

// cost ranks corpus entries for one feature: fewer values, then fewer
// steps.
type cost struct{ values, steps int }

func (c cost) less(d cost) bool {
	return c.values < d.values || c.values == d.values && c.steps < d.steps
}

// Stats counts what a loop has done.
type Stats struct {
	Execs    int // inputs run
	New      int // inputs that joined the corpus
	Corpus   int // inputs in the corpus now
	Cover    int // coverage features reached
	Failures int // failing runs
}

// New returns a loop over target. With cfg.Dir set it loads the corpus
// there, running each input to learn its coverage.
func New(cfg Config, target Target) (*Loop, error) {
	if cfg.PCTSteps <= 0 {
		cfg.PCTSteps = 100
	}
	if cfg.Fresh <= 0 {
		cfg.Fresh = 0.5
	}
	l := &Loop{
		cfg:    cfg,
		target: target,
		rng:    rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x6a09e667f3bcc909)),
		cover:  make([]byte, CoverSize),
		best:   make([]*entry, CoverSize*8),
		known:  map[string]bool{},
	}
	if cfg.Dir != "" {
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("hunt: the corpus directory: %w", err)
		}
		if _, err := l.Sync(); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Stats returns what the loop has done so far.
func (l *Loop) Stats() Stats {
	s := l.stats
	s.Corpus, s.Cover = len(l.corpus), l.nfeat
	return s
}

// Next returns the next input to run: a mutation of a corpus input, or a
// fresh one from the portfolio.
//
// The corpus input mutated is the newest one that reached a feature first
// and has not been mutated yet, else one chosen uniformly. A mutation
// resamples it (Resample): the strategy's decisions are drawn afresh, and
// half the time also whatever the run drew after a random point.
func (l *Loop) Next() Input {
	seed := l.rng.Uint64()
	if len(l.corpus) < 2 || l.rng.Float64() < l.cfg.Fresh {
		in := portfolio[l.fresh%len(portfolio)]
		l.fresh++
		if in.Strategy == engine.PCT {
			// Change points over the steps runs actually take: drawn from
			// a longer range, most would fall after the end of the run.
			in.PCTSteps = l.cfg.PCTSteps
			if l.maxSteps > 0 {
				in.PCTSteps = max(l.maxSteps, 2)
			}
		}
		in.Seed = seed
		return in
	}
	in := l.parent().in
	in.Recording = Resample(l.rng, in.Recording, engine.StrategyUID)
	in.Seed = seed
	return in
}

// parent returns the corpus entry to mutate: the newest pending one still in
// the corpus, else one chosen uniformly.
func (l *Loop) parent() *entry {
	for len(l.pending) > 0 {
		e := l.pending[len(l.pending)-1]
		l.pending = l.pending[:len(l.pending)-1]
		if e.holds > 0 {
			return e
		}
	}
	return l.corpus[l.rng.IntN(len(l.corpus))]
}

// Run runs in and learns from it: it returns the outcome and whether the
// input joined the corpus.
func (l *Loop) Run(in Input) (Outcome, bool, error) {
	clear(l.cover)
	out := l.target(in, l.cover)
	l.stats.Execs++
	l.maxSteps = max(l.maxSteps, out.Size.Steps)
	if out.Failure != nil {
		l.stats.Failures++
		return out, false, nil // a failing input is the caller's to keep
	}
	kept := in
	kept.Recording = out.Rec // everything it drew: replays without the seed
	e, added := l.learn(kept, out)
	if !added {
		return out, false, nil
	}
	l.stats.New++
	if l.cfg.Dir != "" {
		path, err := WriteInput(l.cfg.Dir, kept)
		if err != nil {
			return out, true, fmt.Errorf("hunt: saving a corpus input: %w", err)
		}
		e.file = path
		l.known[filepath.Base(path)] = true
	}
	return out, true, nil
}

// Step runs the next input.
func (l *Loop) Step() (Input, Outcome, bool, error) {
	in := l.Next()
	out, added, err := l.Run(in)
	return in, out, added, err
}

// learn adds the run of in to the corpus if it reached a feature first or
// more cheaply than the entry holding it, and drops entries left holding
// nothing (passive minimization). An entry that reached a feature first is
// also pending: it is mutated next.
func (l *Loop) learn(in Input, out Outcome) (*entry, bool) {
	c := cost{values: out.Rec.Len(), steps: out.Size.Steps}
	var e *entry
	first := false
	for i := 0; i < len(l.cover); i++ {
		if i&7 == 0 && binary.LittleEndian.Uint64(l.cover[i:]) == 0 {
			i += 7 // most of the map is untouched: skip it a word at a time
			continue
		}
		n := l.cover[i]
		if n == 0 {
			continue
		}
		f := i*8 + bucket(n)
		old := l.best[f]
		if old != nil && !c.less(old.cost) {
			continue
		}
		if e == nil {
			e = &entry{in: in, cost: c}
		}
		if old == nil {
			l.nfeat++
			first = true
		} else if old.holds--; old.holds == 0 {
			l.drop(old)
		}
		l.best[f] = e
		e.holds++
	}
	if e == nil {
		return nil, false
	}
	l.corpus = append(l.corpus, e)
	if first {
		l.pending = append(l.pending, e)
	}
	return e, true
}

func (l *Loop) drop(e *entry) {
	if i := slices.Index(l.corpus, e); i >= 0 {
		l.corpus = slices.Delete(l.corpus, i, i+1)
	}
	if e.file != "" {
		os.Remove(e.file) // superseded; other workers may still load it, harmlessly
	}
}

// bucket classifies a hit count as AFL does: 1, 2, 3, 4-7, 8-15, 16-31,
// 32-127, 128 and more.
func bucket(n byte) int {
	switch {
	case n <= 3:
		return int(n) - 1
	case n < 8:
		return 3
	case n < 16:
		return 4
	case n < 32:
		return 5
	case n < 128:
		return 6
	}
	return 7
}

// Sync loads the corpus inputs in cfg.Dir that this loop has not seen
// (written by other workers, or by earlier hunts), runs each and keeps those
// that add coverage. It returns how many it loaded.
func (l *Loop) Sync() (int, error) {
	if l.cfg.Dir == "" {
		return 0, nil
	}
	ents, err := os.ReadDir(l.cfg.Dir)
	if err != nil {
		return 0, fmt.Errorf("hunt: reading the corpus: %w", err)
	}
	n := 0
	for _, de := range ents {
		name := de.Name()
		if !strings.HasSuffix(name, ".input") || l.known[name] {
			continue
		}
		l.known[name] = true
		path := filepath.Join(l.cfg.Dir, name)
		in, err := ReadInput(path)
		if err != nil {
			if os.IsNotExist(err) {
				continue // superseded and removed meanwhile
			}
			return n, fmt.Errorf("hunt: %w", err)
		}
		clear(l.cover)
		out := l.target(in, l.cover)
		l.stats.Execs++
		if out.Failure != nil {
			continue
		}
		if e, ok := l.learn(in, out); ok {
			e.file = path
			n++
		}
	}
	return n, nil
}
