package hunt

import (
	"math"
	"math/bits"
	"slices"

	"github.com/dstgo/dst/entropy"
)

// Rand is the randomness mutators use; tests pass a scripted fake. A
// *math/rand/v2.Rand satisfies it.
type Rand interface {
	IntN(n int) int // uniform in [0, n), n > 0
	Uint64() uint64
}

// mutator is one named mutation. It changes rec in place and reports whether
// it applied; when it reports false it has left rec unchanged (it may still
// have drawn from r). other is another corpus input's recording for
// splicing, or nil.
//
// No mutator changes or selects a KindBytes value: its V is the length of
// its bytes in Data, so only truncate removes bytes values, and it cuts Data
// to match.
type mutator struct {
	name string
	fn   func(r Rand, rec *entropy.Recording, other *entropy.Recording) bool
}

// mutators is the table Mutate picks from, uniformly among those that apply.
var mutators = []mutator{
	{"value", mutValue},
	{"nudge", mutNudge},
	{"delete-run", mutDeleteRun},
	{"insert-run", mutInsertRun},
	{"replace-run", mutReplaceRun},
	{"copy-run", mutCopyRun},
	{"splice", mutSplice},
	{"order-delete", mutOrderDelete},
	{"order-replace", mutOrderReplace},
	{"truncate", mutTruncate},
}

const (
	mutMaxExtra  = 7 // at most 1+mutMaxExtra mutations per Mutate
	mutMaxRun    = 8 // longest run a run mutation deletes, replaces, copies or splices
	mutMaxInsert = 4 // most values insert-run adds
	mutMaxNudge  = 4 // largest delta nudge applies
)

// Mutate applies 1+k mutations to a deep copy of rec and returns the copy and
// the names of the mutations applied, in order. k is geometric: 0 with
// probability 1/2, 1 with 1/4, and so on, capped at 7. Each mutation tries
// the table's mutators in a random order until one applies, so each step
// picks uniformly among the mutators that apply; a step at which none
// applies (an empty recording, say) is skipped, and then fewer names are
// returned. rec and other are not modified; a nil rec is taken as empty.
func Mutate(r Rand, rec, other *entropy.Recording) (*entropy.Recording, []string) {
	out := rec.Clone()
	if out == nil {
		out = &entropy.Recording{}
	}
	k := 0
	for k < mutMaxExtra && r.IntN(2) == 1 {
		k++
	}
	var names []string
	order := make([]int, len(mutators))
	for range 1 + k {
		for i := range order {
			order[i] = i
		}
		// A lazy Fisher-Yates shuffle: draw the next mutator to try only
		// when the previous one did not apply.
		for i := range order {
			j := i + r.IntN(len(order)-i)
			order[i], order[j] = order[j], order[i]
			if m := mutators[order[i]]; m.fn(r, out, other) {
				names = append(names, m.name)
				break
			}
		}
	}
	return out, names
}

// Resample returns a copy of rec with the values that strategy reports as a
// scheduling strategy's decisions taken out, so that a replay draws them
// afresh from its seed: the same run, interleaved anew. Half the time, and
// always when rec holds no such value, it also keeps only the values drawn
// before a random point (in request order), so that the rest of the run is
// drawn afresh too. rec is not modified; a nil rec is taken as empty.
//
// A random walk's decision is an index into the goroutines runnable at that
// point: once anything before it changes, a recorded decision picks some
// other goroutine, and the interleaving after the change is neither the
// recorded one nor a random one. Resampling keeps the part of a run that
// still means what it meant (the test's own draws, its faults) and draws the
// rest from the distribution the test and the strategy define.
func Resample(r Rand, rec *entropy.Recording, strategy func(entropy.UID) bool) *entropy.Recording {
	out := &entropy.Recording{}
	if rec == nil {
		return out
	}
	dropped := false
	out.Values = make([]entropy.Value, 0, len(rec.Values))
	for _, v := range rec.Values {
		if strategy(v.UID) {
			dropped = true
			continue
		}
		out.Values = append(out.Values, v)
	}
	out.Data = append([]byte(nil), rec.Data...)
	if !dropped || r.IntN(2) == 0 {
		// Cut at a random point of the whole recording, not of what is
		// left: that is where the run diverges.
		cut := 0
		if len(rec.Values) > 0 {
			cut = r.IntN(len(rec.Values))
		}
		keep := 0
		for _, v := range rec.Values[:cut] {
			if !strategy(v.UID) {
				keep++
			}
		}
		out.Values = out.Values[:keep]
		out.Data = out.Data[:mutDataLen(out)]
	}
	return out
}

// mutValue replaces one value of a uid (picked with mutPickUID) with mutRandV.
func mutValue(r Rand, rec, _ *entropy.Recording) bool {
	i, ok := mutPickValue(r, rec)
	if ok {
		rec.Values[i].V = mutRandV(r)
	}
	return ok
}

// mutNudge moves one value up or down by 1..mutMaxNudge, saturating rather than wrapping.
func mutNudge(r Rand, rec, _ *entropy.Recording) bool {
	i, ok := mutPickValue(r, rec)
	if ok {
		v := &rec.Values[i]
		d := uint64(1 + r.IntN(mutMaxNudge))
		v.V = mutNudged(v.V, d, r.IntN(2) == 0, v.UID.Kind() == entropy.KindInt)
	}
	return ok
}

// mutDeleteRun deletes a run of one uid's consecutive values.
func mutDeleteRun(r Rand, rec, _ *entropy.Recording) bool {
	u, ok := mutPickUID(r, rec, 1, nil)
	if !ok {
		return false
	}
	pos := mutPositions(rec, u)
	lo, n := mutRun(r, len(pos))
	del := pos[lo : lo+n]
	// Compact in place, skipping the indices in del (ascending).
	w := del[0]
	for i := del[0]; i < len(rec.Values); i++ {
		if len(del) > 0 && i == del[0] {
			del = del[1:]
			continue
		}
		rec.Values[w] = rec.Values[i]
		w++
	}
	rec.Values = rec.Values[:w]
	return true
}

// mutInsertRun inserts 1..mutMaxInsert random values of one uid right after one of its values.
func mutInsertRun(r Rand, rec, _ *entropy.Recording) bool {
	i, ok := mutPickValue(r, rec)
	if !ok {
		return false
	}
	ins := make([]entropy.Value, 1+r.IntN(mutMaxInsert))
	for j := range ins {
		ins[j] = entropy.Value{UID: rec.Values[i].UID, V: mutRandV(r)}
	}
	rec.Values = slices.Insert(rec.Values, i+1, ins...)
	return true
}

// mutReplaceRun replaces a run of one uid's consecutive values with random values.
func mutReplaceRun(r Rand, rec, _ *entropy.Recording) bool {
	u, ok := mutPickUID(r, rec, 1, nil)
	if !ok {
		return false
	}
	pos := mutPositions(rec, u)
	lo, n := mutRun(r, len(pos))
	for _, i := range pos[lo : lo+n] {
		rec.Values[i].V = mutRandV(r)
	}
	return true
}

// mutCopyRun copies a run of one uid's values over another place in the same uid's sequence.
func mutCopyRun(r Rand, rec, _ *entropy.Recording) bool {
	u, ok := mutPickUID(r, rec, 2, nil)
	if !ok {
		return false
	}
	pos := mutPositions(rec, u)
	n := 1 + r.IntN(min(mutMaxRun, len(pos)-1))
	src := r.IntN(len(pos) - n + 1)
	dst := r.IntN(len(pos) - n) // a start other than src
	if dst >= src {
		dst++
	}
	vals := make([]uint64, n)
	for j := range vals {
		vals[j] = rec.Values[pos[src+j]].V
	}
	for j, v := range vals {
		rec.Values[pos[dst+j]].V = v
	}
	return true
}

// mutSplice copies a run of other's values of a uid both have over rec's values of that uid, appending past rec's last.
func mutSplice(r Rand, rec, other *entropy.Recording) bool {
	if other == nil {
		return false
	}
	inOther := make(map[entropy.UID]bool)
	for _, v := range other.Values {
		inOther[v.UID] = true
	}
	u, ok := mutPickUID(r, rec, 1, func(u entropy.UID) bool { return inOther[u] })
	if !ok {
		return false
	}
	from, to := mutPositions(other, u), mutPositions(rec, u)
	lo, n := mutRun(r, len(from))
	dst := r.IntN(len(to) + 1)
	var extra []entropy.Value
	for j, i := range from[lo : lo+n] {
		if dst+j < len(to) {
			rec.Values[to[dst+j]].V = other.Values[i].V
		} else {
			extra = append(extra, other.Values[i])
		}
	}
	rec.Values = slices.Insert(rec.Values, to[len(to)-1]+1, extra...)
	return true
}

// mutOrderDelete deletes a run of consecutive values in request order, whatever their uids.
func mutOrderDelete(r Rand, rec, _ *entropy.Recording) bool {
	lo, hi, ok := mutOrderRun(r, rec)
	if ok {
		rec.Values = slices.Delete(rec.Values, lo, hi)
	}
	return ok
}

// mutOrderReplace gives a run of consecutive values in request order random values, each keeping its uid.
func mutOrderReplace(r Rand, rec, _ *entropy.Recording) bool {
	lo, hi, ok := mutOrderRun(r, rec)
	for i := lo; ok && i < hi; i++ {
		rec.Values[i].V = mutRandV(r)
	}
	return ok
}

// mutTruncate keeps a strict prefix of the values, and of Data the bytes the kept bytes values use.
func mutTruncate(r Rand, rec, _ *entropy.Recording) bool {
	if len(rec.Values) == 0 {
		return false
	}
	rec.Values = rec.Values[:r.IntN(len(rec.Values))]
	rec.Data = rec.Data[:mutDataLen(rec)]
	return true
}

// mutUIDCounts returns rec's non-bytes uids in first-appearance order and the number of values of each.
func mutUIDCounts(rec *entropy.Recording) ([]entropy.UID, []int) {
	index := make(map[entropy.UID]int)
	var uids []entropy.UID
	var counts []int
	for _, v := range rec.Values {
		if v.UID.Kind() == entropy.KindBytes {
			continue
		}
		i, ok := index[v.UID]
		if !ok {
			i = len(uids)
			index[v.UID] = i
			uids = append(uids, v.UID)
			counts = append(counts, 0)
		}
		counts[i]++
	}
	return uids, counts
}

// mutPickUID picks a non-bytes uid of rec that has at least least values and
// satisfies keep (if not nil), weighting each by 1+bits.Len(count): uids
// with more values are preferred, logarithmically. One r.IntN draw.
func mutPickUID(r Rand, rec *entropy.Recording, least int, keep func(entropy.UID) bool) (entropy.UID, bool) {
	uids, counts := mutUIDCounts(rec)
	weights := make([]int, len(uids))
	total := 0
	for i, u := range uids {
		if counts[i] >= least && (keep == nil || keep(u)) {
			weights[i] = 1 + bits.Len(uint(counts[i]))
			total += weights[i]
		}
	}
	if total == 0 {
		return 0, false
	}
	x := r.IntN(total)
	for i, w := range weights {
		if x < w {
			return uids[i], true
		}
		x -= w
	}
	panic("unreachable")
}

// mutPickValue picks a uid with mutPickUID, then one of its values uniformly, and returns its index.
func mutPickValue(r Rand, rec *entropy.Recording) (int, bool) {
	u, ok := mutPickUID(r, rec, 1, nil)
	if !ok {
		return 0, false
	}
	pos := mutPositions(rec, u)
	return pos[r.IntN(len(pos))], true
}

// mutPositions returns the indices in rec.Values of uid u's values, ascending.
func mutPositions(rec *entropy.Recording, u entropy.UID) []int {
	var pos []int
	for i, v := range rec.Values {
		if v.UID == u {
			pos = append(pos, i)
		}
	}
	return pos
}

// mutRun picks a run [lo, lo+n) of 1..mutMaxRun of n items (n > 0): first its length, then its start.
func mutRun(r Rand, n int) (lo, length int) {
	length = 1 + r.IntN(min(mutMaxRun, n))
	return r.IntN(n - length + 1), length
}

// mutOrderRun picks a run [lo, hi) of 1..mutMaxRun consecutive values in
// request order: a random non-bytes start, a random length, and the run
// stops early at the end or before a bytes value.
func mutOrderRun(r Rand, rec *entropy.Recording) (lo, hi int, ok bool) {
	var starts []int
	for i, v := range rec.Values {
		if v.UID.Kind() != entropy.KindBytes {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		return 0, 0, false
	}
	lo = starts[r.IntN(len(starts))]
	n := 1 + r.IntN(min(mutMaxRun, len(rec.Values)-lo))
	hi = lo
	for hi < lo+n && rec.Values[hi].UID.Kind() != entropy.KindBytes {
		hi++
	}
	return lo, hi, true
}

// mutRandV returns a random V: half the time a small one, 0..3 (for a
// scheduling choice 0 means no preemption), otherwise any uint64 (a replay
// maps it into the draw's range).
func mutRandV(r Rand) uint64 {
	if r.IntN(2) == 0 {
		return uint64(r.IntN(4))
	}
	return r.Uint64()
}

// mutNudged returns v moved by d up or down, saturating at the ends of the
// uint64 range, or of the int64 range if signed (a KindInt V is an int64).
func mutNudged(v, d uint64, up, signed bool) uint64 {
	if signed {
		x, dd := int64(v), int64(d)
		switch {
		case up && x > math.MaxInt64-dd:
			return math.MaxInt64
		case up:
			return uint64(x + dd)
		case x < math.MinInt64+dd:
			return uint64(1) << 63 // MinInt64
		default:
			return uint64(x - dd)
		}
	}
	switch {
	case up && v > math.MaxUint64-d:
		return math.MaxUint64
	case up:
		return v + d
	default:
		return v - min(v, d)
	}
}

// mutDataLen returns the number of bytes of rec.Data that rec's bytes
// values use: each takes its V bytes, clamped where Data runs short, as
// entropy.Replay reads them.
func mutDataLen(rec *entropy.Recording) int {
	n := 0
	for _, v := range rec.Values {
		if v.UID.Kind() == entropy.KindBytes {
			n += int(min(v.V, uint64(len(rec.Data)-n)))
		}
	}
	return n
}
