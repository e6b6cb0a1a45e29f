package hunt

import (
	"slices"
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

// fineLimit bounds the passes that try one value at a time: they run over
// recordings with at most this many values (or values that are not their
// fallback) to try. A failure of a real suite (hundreds of goroutines, a
// hundred thousand decisions) would spend the whole budget on its first few
// hundred values; the passes over chunks (zeroChunks, deleteChunks) bring
// it down to where trying values one by one pays.
const fineLimit = 256

// Shrink looks for a smaller input that fails with the same signature as
// in did (out), in the spirit of Hypothesis and of delta debugging. A
// random walk's choice of 0 means "no preemption", and every choice shifts
// the meaning of those after it, so the passes work on stretches of the
// schedule before single values: cutTail and zeroPrefix set the values
// after and before where the failure needs them to their fallback
// (searching by halves); single and window look, in a run without
// preemptions elsewhere, for the one decision or the short window of
// decisions where the failure needs them; zeroChunks sets chunks of values
// to their fallback (halves, quarters, ...) and deleteChunks deletes
// chunks; once few values are left, the passes of one value at a time set
// them to their fallback, delete them and lower them. A candidate is kept
// only if it fails the same way and its Size is smaller; what its run drew,
// with each uid's trailing fallbacks dropped, is tried next (adopt). run
// must replay its input deterministically, serving draws past the
// recording by fallback (entropy.Replay, not ReplayThen).
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
	s := &shrinker{cfg: cfg, run: run, start: time.Now(), sig: out.Failure.Signature, singleDone: map[int]bool{}, windowDone: map[Size]bool{}}
	s.best, s.bestOut = in, out
	s.bestSize = SizeOf(out.Size, in.Recording)
	res := ShrinkResult{Before: s.bestSize}
	s.adopt(out)
	s.single()
	for improved := true; improved && !s.spent(); {
		improved = false
		for _, pass := range []func() bool{
			s.cutTail, s.zeroPrefix, s.zeroChunks, s.window, s.frontier, s.single, s.deleteChunks,
			s.zeroSuffix, s.deleteRuns, s.shortenBytes, s.zero, s.lower,
		} {
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
	// singleDone holds the recording lengths whose every single value
	// single has tried.
	singleDone map[int]bool
	// windowDone holds the sizes of the best inputs window started from.
	windowDone map[Size]bool
	// chunks is where zeroChunks stopped at its bound: the number of
	// chunks, from the best input of that size.
	chunks struct {
		from Size
		n    int
	}
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
	s.adopt(out)
	return true
}

// adopt tries, as the next candidate, what the best input's run (out)
// drew, with each uid's trailing fallbacks dropped, when it holds fewer or
// smaller values: it should replay as the same run, and it holds no value
// the run did not reach, which later passes would try in vain.
func (s *shrinker) adopt(out Outcome) {
	if out.Rec == nil {
		return
	}
	rec := canonical(out.Rec)
	if size := SizeOf(out.Size, rec); size.Less(s.bestSize) {
		s.try(rec.Values, rec.Data)
	}
}

// canonical is rec without the values that a replay would serve by
// fallback anyway: each uid's last values, as long as they are the
// fallback (fallback reports which), and their bytes.
func canonical(rec *entropy.Recording) *entropy.Recording {
	offs := dataOffsets(rec)
	keep := make([]bool, len(rec.Values))
	seen := map[entropy.UID]bool{} // a uid whose last value that is not a fallback is kept
	for i := len(rec.Values) - 1; i >= 0; i-- {
		v := rec.Values[i]
		if seen[v.UID] || !isFallback(v, rec.Data[offs[i]:offs[i+1]]) {
			seen[v.UID], keep[i] = true, true
		}
	}
	out := &entropy.Recording{}
	for i, v := range rec.Values {
		if keep[i] {
			out.Values = append(out.Values, v)
			out.Data = append(out.Data, rec.Data[offs[i]:offs[i+1]]...)
		}
	}
	return out
}

// isFallback reports whether replaying the value v (with data, its bytes)
// serves what a draw of its uid with no value left serves: 0 for every
// kind (Choice and Weighted, IntRange's lo, Bool's false) but Stop, whose
// fallback is yes (1), and bytes that are all zero.
func isFallback(v entropy.Value, data []byte) bool {
	switch v.UID.Kind() {
	case entropy.KindStop:
		return v.V == 1
	case entropy.KindBytes:
		return !slices.ContainsFunc(data, func(b byte) bool { return b != 0 })
	}
	return v.V == 0
}

// fallbackOf is the value of v's kind that replays as its fallback.
func fallbackOf(v entropy.Value) uint64 {
	if v.UID.Kind() == entropy.KindStop {
		return 1
	}
	return 0
}

// probe runs a candidate as try does, keeping it if it is smaller, and
// reports whether it failed the same way, smaller or not, and the run.
func (s *shrinker) probe(values []entropy.Value, data []byte) (bool, Outcome) {
	if s.spent() {
		return false, Outcome{}
	}
	in := s.best
	in.Recording = &entropy.Recording{Values: values, Data: data}
	s.runs++
	out := s.run(in)
	if out.Failure == nil || out.Failure.Signature != s.sig {
		return false, out
	}
	if size := SizeOf(out.Size, in.Recording); size.Less(s.bestSize) {
		s.best, s.bestOut, s.bestSize = in, out, size
		s.adopt(out)
	}
	return true, out
}

// window looks for the few decisions where the failure needs preemptions,
// when single cannot try them all. With every value of the busiest uid
// zero, the run goes without preemptions; with those of a window of its
// positions set to fixed pseudo-random values (mix), it is a random walk
// inside the window, which fails where most schedules do. It first looks
// for the latest start of a window that runs to the end and still fails,
// then for the earliest end of one from there, each by halves (positions
// count the decisions of the run as it goes, so that a run without
// preemptions up to the window's start reaches it however few decisions
// that takes). Each run that fails the same way and is smaller is kept,
// whatever the window.
func (s *shrinker) window() bool {
	vs := s.values()
	uid, ok := busiest(vs)
	if !ok || s.windowDone[s.bestSize] {
		return false
	}
	s.windowDone[s.bestSize] = true // from the same best, the same candidates
	base := clone(vs)
	var all []int
	for i, v := range base {
		if v.UID == uid {
			all = append(all, i)
			base[i].V = 0
		}
	}
	grow := func(n int) {
		for len(all) < n {
			all = append(all, len(base))
			base = append(base, entropy.Value{UID: uid})
		}
	}
	drawn := func(out Outcome) int {
		n := 0
		if out.Rec != nil {
			for _, v := range out.Rec.Values {
				if v.UID == uid {
					n++
				}
			}
		}
		return n
	}
	data := s.best.Recording.Data
	before := s.bestSize
	probe := func(lo, hi int, salt uint64) (bool, Outcome) {
		grow(hi)
		cand := clone(base)
		for k, i := range all[lo:hi] {
			cand[i].V = mix(uint64(lo+k) + salt<<40)
		}
		return s.probe(cand, data)
	}
	// A window of random choices may miss the failure by chance: another
	// draw of them is tried before a window is given up.
	fails := func(lo, hi int) bool {
		for salt := range uint64(2) {
			if ok, _ := probe(lo, hi, salt); ok {
				return true
			}
		}
		return false
	}
	// A random walk throughout: the window as long as the recording's
	// values of the uid, four times longer a few times over while the run
	// draws more (a random walk among goroutines that wait for a lock draws
	// tens per step).
	end := len(all)
	for try := 0; ; try++ {
		ok, out := probe(0, end, 0)
		if ok {
			end = max(drawn(out), 1)
			break
		}
		if n := drawn(out); try == 4 || n <= end || s.spent() {
			return s.bestSize.Less(before)
		}
		end *= 4
	}
	// How many values a run without preemptions draws: no window starts
	// later.
	_, serial := probe(0, 0, 0)
	lo, hi := 0, min(drawn(serial), end) // the latest start is in [lo, hi]
	for lo < hi && !s.spent() {
		mid := lo + (hi-lo+1)/2
		if fails(mid, mid+end) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	start := lo
	lo, hi = start+1, start+end // the earliest end is in [lo, hi]
	for lo < hi && !s.spent() {
		mid := lo + (hi-lo)/2
		if fails(start, mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return s.bestSize.Less(before)
}

// mix is a fixed pseudo-random value for position i (splitmix64's
// finalizer): a window of them is a random walk, which fails where most
// schedules do, the same on every machine.
func mix(i uint64) uint64 {
	z := (i + 1) * 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (s *shrinker) values() []entropy.Value { return s.best.Recording.Values }

// changeable lists the positions of the best recording's values, bytes
// values aside, that are not their fallback.
func (s *shrinker) changeable() []int {
	var pos []int
	for i, v := range s.values() {
		if v.UID.Kind() != entropy.KindBytes && v.V != fallbackOf(v) {
			pos = append(pos, i)
		}
	}
	return pos
}

// single tries the simplest schedules outright: the values of the busiest
// uid (for a random walk, its choices) all zero, then all zero but one,
// set to each of a few small values in turn. A bug that one preemption
// shows is found this way however many the failure had; lowering values
// one by one would get stuck, since every choice changes the meaning of
// those after it. With every other value zero, the k-th value is the k-th
// decision of a run without preemptions, whatever the failure's were:
// every position is tried (once per recording length) when there are few
// enough; else frontier tries some.
func (s *shrinker) single() bool {
	vs, base, all, pos, top, ok := s.singleBase()
	if !ok {
		return false
	}
	if len(pos) > 1 && s.try(clone(base), s.best.Recording.Data) {
		return true
	}
	if len(all)*int(top) > s.cfg.Runs/4 || s.singleDone[len(vs)] {
		return false // too dear, or tried: the same candidates
	}
	s.singleDone[len(vs)] = true
	for _, i := range all {
		for v := uint64(1); v <= top && !s.spent(); v++ {
			if (v != vs[i].V || len(pos) > 1) && s.tryAt(base, i, v) {
				return true
			}
		}
	}
	return false
}

// frontier is single for the recordings whose every position it cannot
// try: the values that are not zero are, from both ends inwards, with at
// most a sixteenth of the budget per call. After zeroPrefix the first
// value left is where the run stopped going without preemptions, which is
// where the failure needs one, and after cutTail the last is where it
// needs no more.
func (s *shrinker) frontier() bool {
	vs, base, all, pos, top, ok := s.singleBase()
	if !ok || len(pos) <= 1 || len(all)*int(top) <= s.cfg.Runs/4 {
		return false // nothing to gain, or single tries them all
	}
	order := make([]int, 0, len(pos))
	for lo, hi := 0, len(pos)-1; lo <= hi; lo, hi = lo+1, hi-1 {
		order = append(order, pos[lo])
		if hi != lo {
			order = append(order, pos[hi])
		}
	}
	allowance := max(s.cfg.Runs/16, 1)
	for v := uint64(1); v <= top; v++ {
		for _, i := range order {
			if allowance--; allowance < 0 || s.spent() {
				return false
			}
			if v != vs[i].V && s.tryAt(base, i, v) {
				return true
			}
		}
	}
	return false
}

// singleBase is, for single and frontier, the best recording's values;
// them with those of the busiest uid zero; that uid's positions, and
// those of its values that are not zero; and the largest value to try (at
// most 8). ok is false when there is no such uid.
func (s *shrinker) singleBase() (vs, base []entropy.Value, all, pos []int, top uint64, ok bool) {
	vs = s.values()
	uid, ok := busiest(vs)
	if !ok {
		return nil, nil, nil, nil, 0, false
	}
	top = 1
	base = clone(vs)
	for i, v := range vs {
		if v.UID == uid {
			all = append(all, i)
			if v.V != 0 {
				pos = append(pos, i)
			}
			top = max(top, min(v.V, 8))
			base[i].V = 0
		}
	}
	return vs, base, all, pos, top, len(pos) > 0
}

// tryAt tries base with its value at position i set to v.
func (s *shrinker) tryAt(base []entropy.Value, i int, v uint64) bool {
	cand := clone(base)
	cand[i].V = v
	return s.try(cand, s.best.Recording.Data)
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

// zeroChunks sets chunks of the values that are not their fallback to it,
// as delta debugging removes chunks: the values split in two, then four,
// eight, ... chunks, each chunk tried in turn and, while there are few
// chunks, every chunk but one (its complement). A schedule of thousands of
// preemptions mostly needs none of them, and this drops them by the
// thousand; the finest grain is one value at a time. After a chunk is
// set, the next chunk of the same size is tried, not the first again.
func (s *shrinker) zeroChunks() (improved bool) {
	n := 2
	if s.chunks.n > n && s.chunks.from == s.bestSize {
		n = s.chunks.n // where the last call stopped
	}
	// At most an eighth of the budget per call: the passes after it get
	// their turn, and the loop comes back to where this one stopped (which
	// counts as progress).
	stop := s.runs + max(s.cfg.Runs/8, 1)
	spent := func() bool { return s.spent() || s.runs >= stop }
	defer func() {
		if s.runs >= stop && !s.spent() {
			s.chunks.from, s.chunks.n, improved = s.bestSize, n, true
		}
	}()
	for !spent() {
		pos := s.changeable()
		if len(pos) == 0 {
			break
		}
		n = min(n, len(pos))
		kept := false
		if n > 2 && n <= 16 {
			// Complements: keep one chunk only.
			for i := 0; i < n && !spent(); i++ {
				lo, hi := i*len(pos)/n, (i+1)*len(pos)/n
				if s.setFallback(append(slices.Clone(pos[:lo]), pos[hi:]...)) {
					improved, kept = true, true
					break
				}
			}
			if kept {
				n = 2
				continue
			}
		}
		size := (len(pos) + n - 1) / n
		for at := 0; !spent(); {
			pos := s.changeable()
			if at >= len(pos) {
				break
			}
			if s.setFallback(pos[at:min(at+size, len(pos))]) {
				improved, kept = true, true
			} else {
				at += size
			}
		}
		pos = s.changeable()
		switch {
		case len(pos) == 0:
			return improved
		case kept:
			n = max(len(pos)/size, 2) // chunks of about the same size again
		case size <= 1:
			return improved
		default:
			n = min(2*n, len(pos))
		}
	}
	return improved
}

// setFallback tries the best recording with the values at positions set
// to their fallback.
func (s *shrinker) setFallback(positions []int) bool {
	cand := clone(s.values())
	for _, p := range positions {
		cand[p].V = fallbackOf(cand[p])
	}
	return s.try(cand, s.best.Recording.Data)
}

// zeroPrefix sets to their fallback the values before the latest position
// that still fails, searching by halves, then probing past where the search
// stopped at growing distances (whether a run fails is a function of its
// values, not a monotone one: a later choice can miss the failure by
// chance): the run then goes without preemptions up to close to where the
// failure needs them (cutTail does the same from the end).
func (s *shrinker) zeroPrefix() bool {
	improved := false
	pos := s.changeable()
	vs, data := s.values(), s.best.Recording.Data
	try := func(n int) bool {
		cand := clone(vs)
		for _, p := range pos[:n] {
			cand[p].V = fallbackOf(cand[p])
		}
		return s.try(cand, data)
	}
	lo, hi := 0, len(pos) // the most values that can be set is in [lo, hi]
	for lo < hi && !s.spent() {
		mid := lo + (hi-lo+1)/2
		if try(mid) {
			improved, lo = true, mid
		} else {
			hi = mid - 1
		}
		if lo == hi {
			// Probe past it: lo+1, lo+2, lo+4, ...
			for d := 1; lo+d <= len(pos) && !s.spent(); d *= 2 {
				if try(lo + d) {
					improved, lo, hi = true, lo+d, len(pos)
					break
				}
			}
		}
	}
	return improved
}

// deleteChunks deletes chunks of values, bytes values with their data, as
// zeroChunks sets them: halves, quarters, ... down to sixteenths (deleteRuns
// takes over on short recordings). Deleting a scheduler's choices shifts
// those after them to other decisions, which seldom fails the same way:
// this is for the values a body draws.
func (s *shrinker) deleteChunks() bool {
	improved := false
	for n := 2; n <= 16 && !s.spent(); {
		rec := s.best.Recording
		if len(rec.Values) <= fineLimit/4 || len(rec.Values)/n < 8 {
			break
		}
		kept := false
		for i := n - 1; i >= 0 && !s.spent(); i-- {
			rec := s.best.Recording
			lo, hi := i*len(rec.Values)/n, (i+1)*len(rec.Values)/n
			if s.tryDelete(lo, hi) {
				improved, kept = true, true
			}
		}
		if !kept {
			n *= 2
		}
	}
	return improved
}

// tryDelete tries the best recording without its values [lo, hi), and
// their data.
func (s *shrinker) tryDelete(lo, hi int) bool {
	rec := s.best.Recording
	if lo >= hi || hi > len(rec.Values) {
		return false
	}
	offs := dataOffsets(rec)
	cand := append(clone(rec.Values[:lo]), rec.Values[hi:]...)
	data := append(append([]byte(nil), rec.Data[:offs[lo]]...), rec.Data[offs[hi]:]...)
	return s.try(cand, data)
}

// zeroSuffix sets every value from some position on to its fallback,
// bytes values aside.
func (s *shrinker) zeroSuffix() bool {
	improved := false
	pos := s.changeable()
	if len(pos) > fineLimit {
		return false
	}
	for k := 0; k < len(pos) && !s.spent(); k++ {
		vs := s.values()
		cand, changed := clone(vs), false
		for j := pos[k]; j < len(cand); j++ {
			if f := fallbackOf(cand[j]); cand[j].V != f && cand[j].UID.Kind() != entropy.KindBytes {
				cand[j].V, changed = f, true
			}
		}
		if changed && s.try(cand, s.best.Recording.Data) {
			improved = true
			pos = s.changeable()
			k = -1 // the positions moved
		}
	}
	return improved
}

// cutTail keeps the shortest prefix of the values that still fails,
// searching by halves: a replay serves every draw past it by fallback.
func (s *shrinker) cutTail() bool {
	improved := false
	rec := s.best.Recording
	lo, hi := 0, len(rec.Values) // the shortest failing prefix is in [lo, hi]
	for lo < hi && !s.spent() {
		mid := lo + (hi-lo)/2
		if s.try(clone(rec.Values[:mid]), dataFor(rec, mid)) {
			improved, hi = true, mid
		} else {
			lo = mid + 1
		}
	}
	return improved
}

// deleteRuns deletes runs of 8, 4, 2 and 1 values anywhere, bytes values
// with their data, in a recording of at most fineLimit values.
func (s *shrinker) deleteRuns() bool {
	improved := false
	if len(s.values()) > fineLimit {
		return false
	}
	for _, k := range []int{8, 4, 2, 1} {
		for i := len(s.values()) - k; i >= 0 && !s.spent(); i-- {
			if s.tryDelete(i, i+k) {
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

// zero sets values to 0, one at a time, when there are at most fineLimit
// to set.
func (s *shrinker) zero() bool {
	improved := false
	if len(s.changeable()) > fineLimit {
		return false
	}
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

// lower halves values, then decrements them, when there are at most
// fineLimit to lower.
func (s *shrinker) lower() bool {
	improved := false
	if len(s.changeable()) > fineLimit {
		return false
	}
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
