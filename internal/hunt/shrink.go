package hunt

import (
	"time"

	"github.com/dstgo/dst/entropy"
)

// ShrinkConfig bounds shrinking.
type ShrinkConfig struct {
	// Runs bounds the candidate runs; default 2000.
	Runs int
	// Time bounds the wall-clock time; default 30s.
	Time time.Duration
}

// ShrinkResult is what shrinking did.
type ShrinkResult struct {
	Input         Input   // the smallest input found with the same failure
	Outcome       Outcome // its run
	Before, After Size
	Runs          int // candidate runs
	// OutOfTime says that shrinking stopped at its time bound, not its run
	// bound or for want of anything smaller: on a faster or slower machine
	// the result may differ.
	OutOfTime bool
}

// Shrink looks for a smaller input that fails with the same signature as
// in did (out), in the spirit of Hypothesis: passes over the recorded values
// that cut the tail, delete runs of values, set values to zero and lower
// them, each candidate kept only if it fails the same way and its Size is
// smaller. run must replay its input deterministically, serving draws past
// the recording by fallback (entropy.Replay, not ReplayThen): a fallback is
// the simplest value (for a random walk's choices, 0 means no preemption).
func Shrink(cfg ShrinkConfig, in Input, out Outcome, run func(Input) Outcome) ShrinkResult {
	if cfg.Runs <= 0 {
		cfg.Runs = 2000
	}
	if cfg.Time <= 0 {
		cfg.Time = 30 * time.Second
	}
	if in.Recording == nil {
		in.Recording = out.Rec // a fresh input: what it drew replays it
	}
	s := &shrinker{cfg: cfg, run: run, start: time.Now(), sig: out.Failure.Signature}
	s.best, s.bestOut = in, out
	s.bestSize = SizeOf(out.Size, in.Recording)
	res := ShrinkResult{Before: s.bestSize}
	s.single()
	for improved := true; improved && !s.spent(); {
		improved = false
		for _, pass := range []func() bool{s.cutTail, s.zeroSuffix, s.deleteRuns, s.shortenBytes, s.zero, s.lower} {
			if pass() {
				improved = true
			}
		}
	}
	res.Input, res.Outcome, res.After, res.Runs = s.best, s.bestOut, s.bestSize, s.runs
	res.OutOfTime = s.outOfTime
	return res
}

type shrinker struct {
	cfg      ShrinkConfig
	run      func(Input) Outcome
	start    time.Time
	sig      string
	runs     int
	best     Input
	bestOut  Outcome
	bestSize Size
	// outOfTime is set once the time bound stopped it.
	outOfTime bool
}

func (s *shrinker) spent() bool {
	if s.runs >= s.cfg.Runs {
		return true
	}
	if time.Since(s.start) >= s.cfg.Time {
		s.outOfTime = true
	}
	return s.outOfTime
}

// try runs a candidate recording and keeps it if it fails the same way and
// is smaller.
func (s *shrinker) try(values []entropy.Value, data []byte) bool {
	if s.spent() {
		return false
	}
	in := s.best
	in.Recording = &entropy.Recording{Values: values, Data: data}
	s.runs++
	out := s.run(in)
	if out.Failure == nil || out.Failure.Signature != s.sig {
		return false
	}
	size := SizeOf(out.Size, in.Recording)
	if !size.Less(s.bestSize) {
		return false
	}
	s.best, s.bestOut, s.bestSize = in, out, size
	return true
}

func (s *shrinker) values() []entropy.Value { return s.best.Recording.Values }

// single tries the simplest schedules outright: the values of the busiest
// uid (for a random walk, its choices) all zero but one, which is set to
// each of a few small values in turn. A bug that one preemption shows is
// found this way however many the failure had; lowering values one by one
// would get stuck, since every choice changes the meaning of those after it.
func (s *shrinker) single() bool {
	vs := s.values()
	uid, ok := busiest(vs)
	if !ok {
		return false
	}
	var pos []int
	top := uint64(1)
	for i, v := range vs {
		if v.UID == uid {
			pos = append(pos, i)
			top = max(top, min(v.V, 8))
		}
	}
	base := clone(vs)
	for _, i := range pos {
		base[i].V = 0
	}
	if s.try(clone(base), s.best.Recording.Data) {
		return true
	}
	for _, i := range pos {
		for v := uint64(1); v <= top && !s.spent(); v++ {
			cand := clone(base)
			cand[i].V = v
			if s.try(cand, s.best.Recording.Data) {
				return true
			}
		}
	}
	return false
}

// busiest is the non-bytes uid with the most values.
func busiest(vs []entropy.Value) (entropy.UID, bool) {
	var uids []entropy.UID
	var counts []int
	for _, v := range vs {
		if v.UID.Kind() == entropy.KindBytes {
			continue
		}
		i := 0
		for i < len(uids) && uids[i] != v.UID {
			i++
		}
		if i == len(uids) {
			uids, counts = append(uids, v.UID), append(counts, 0)
		}
		counts[i]++
	}
	best := -1
	for i := range uids {
		if best < 0 || counts[i] > counts[best] {
			best = i
		}
	}
	if best < 0 {
		return 0, false
	}
	return uids[best], true
}

// zeroSuffix sets every value from some position on to 0.
func (s *shrinker) zeroSuffix() bool {
	improved := false
	for i := 0; i < len(s.values()) && !s.spent(); i++ {
		vs := s.values()
		cand, changed := clone(vs), false
		for j := i; j < len(cand); j++ {
			if cand[j].V != 0 && cand[j].UID.Kind() != entropy.KindBytes {
				cand[j].V, changed = 0, true
			}
		}
		if changed && s.try(cand, s.best.Recording.Data) {
			improved = true
		}
	}
	return improved
}

// cutTail keeps the shortest prefix of the values that still fails,
// searching by halves.
func (s *shrinker) cutTail() bool {
	improved := false
	for n := 0; n < len(s.values()) && !s.spent(); {
		vs := s.values()
		if s.try(clone(vs[:n]), dataFor(s.best.Recording, n)) {
			improved = true
			continue
		}
		n = n + (len(vs)-n+1)/2
		if n >= len(vs) {
			break
		}
	}
	return improved
}

// deleteRuns deletes runs of 8, 4, 2 and 1 values anywhere, bytes values
// with their data.
func (s *shrinker) deleteRuns() bool {
	improved := false
	for _, k := range []int{8, 4, 2, 1} {
		for i := len(s.values()) - k; i >= 0 && !s.spent(); i-- {
			rec := s.best.Recording
			if i+k > len(rec.Values) {
				continue
			}
			offs := dataOffsets(rec)
			cand := append(clone(rec.Values[:i]), rec.Values[i+k:]...)
			data := append(append([]byte(nil), rec.Data[:offs[i]]...), rec.Data[offs[i+k]:]...)
			if s.try(cand, data) {
				improved = true
			}
		}
	}
	return improved
}

// shortenBytes drops the data of each bytes value, then halves it: a
// replay zero-pads a draw past its recorded bytes, so a shorter value is a
// draw of zeros at its end.
func (s *shrinker) shortenBytes() bool {
	improved := false
	for i := 0; i < len(s.values()) && !s.spent(); i++ {
		for _, half := range []bool{false, true} {
			rec := s.best.Recording
			if i >= len(rec.Values) || rec.Values[i].UID.Kind() != entropy.KindBytes || rec.Values[i].V == 0 {
				break
			}
			offs := dataOffsets(rec)
			n := 0
			if half {
				n = (offs[i+1] - offs[i]) / 2
			}
			cand := clone(rec.Values)
			cand[i].V = uint64(n)
			data := append(append([]byte(nil), rec.Data[:offs[i]+n]...), rec.Data[offs[i+1]:]...)
			if s.try(cand, data) {
				improved = true
				break
			}
		}
	}
	return improved
}

// zero sets values to 0, one at a time.
func (s *shrinker) zero() bool {
	improved := false
	for i := 0; i < len(s.values()) && !s.spent(); i++ {
		vs := s.values()
		if vs[i].V == 0 || vs[i].UID.Kind() == entropy.KindBytes {
			continue
		}
		cand := clone(vs)
		cand[i].V = 0
		if s.try(cand, s.best.Recording.Data) {
			improved = true
		}
	}
	return improved
}

// lower halves values, then decrements them.
func (s *shrinker) lower() bool {
	improved := false
	for i := 0; i < len(s.values()) && !s.spent(); i++ {
		for _, f := range []func(uint64) uint64{func(v uint64) uint64 { return v / 2 }, func(v uint64) uint64 { return v - 1 }} {
			vs := s.values()
			if i >= len(vs) || vs[i].V <= 1 || vs[i].UID.Kind() == entropy.KindBytes {
				break
			}
			cand := clone(vs)
			cand[i].V = f(cand[i].V)
			if s.try(cand, s.best.Recording.Data) {
				improved = true
			}
		}
	}
	return improved
}

func clone(vs []entropy.Value) []entropy.Value {
	return append([]entropy.Value(nil), vs...)
}

// dataFor is the Data of rec's first n values.
func dataFor(rec *entropy.Recording, n int) []byte {
	off := dataOffsets(rec)[n]
	return rec.Data[:off:off]
}

// dataOffsets is where each value's bytes start in rec.Data, and at the
// end where they stop, clamped to the data there is as a replay clamps
// them; a value that is not bytes takes none.
func dataOffsets(rec *entropy.Recording) []int {
	offs := make([]int, len(rec.Values)+1)
	off := 0
	for i, v := range rec.Values {
		offs[i] = off
		if v.UID.Kind() == entropy.KindBytes {
			off += int(min(v.V, uint64(len(rec.Data)-off)))
		}
	}
	offs[len(rec.Values)] = off
	return offs
}
