package entropy

import (
	"fmt"
	"math/bits"
	"runtime"
	"strconv"
)

// defaultStopLimit is the stop limit of a new Source; see Keyed.Stop.
const defaultStopLimit = 1024

// Source serves the values of one run: from a seeded generator (New) or from
// a recording (Replay). Either way it records every value it serves.
//
// A Source is not safe for concurrent use; the scheduler serializes its
// callers. It may, however, be used by several goroutines in turn with no
// happens-before edge between them (under -race the scheduler hands control
// over through runtime semaphores, which the race detector does not see).
// That is why every function touching Source state is marked //go:norace
// and why draws use only slices and plain fields: no Go maps, no copy or
// append(x, y...) builtins (the runtime checks those for races even in
// norace functions), no atomics or locks.
type Source struct {
	rec       Recording
	rng       rng
	replaying bool
	then      bool // replaying: a uid with no value left draws fresh from rng
	fallbacks int
	stopNo    int // "no" answers from Stop so far
	stopLimit int
	sites     siteCache
	lastPC    uintptr    // the call site of the last call-site draw (callerKey)
	observe   func(Draw) // see Observe

	// Replay state. Replay builds queues, items, index and data; draws only
	// read them, apart from advancing each queue's cursor.
	queues []queue
	items  []item  // every queue's values, grouped by queue
	index  []int32 // open addressing over queues: slot holds queue index+1, 0 is empty
	data   []byte  // the input recording's Data (a private copy)
	none   queue   // the empty queue that absent uids resolve to
	last   *queue  // one-entry cache: the queue of lastID, or nil
	lastID UID
}

// queue is one uid's recorded values: items[next:end] are still to be served.
type queue struct {
	uid       UID
	next, end int
}

// item is one recorded value; off locates a bytes value's bytes in data.
type item struct {
	v   uint64
	off int
}

// New returns a Source serving fresh values from a generator seeded with
// seed. The same seed always yields the same values for the same sequence of
// draws.
//
//go:norace
func New(seed uint64) *Source {
	s := &Source{stopLimit: defaultStopLimit}
	s.rng.seed(seed)
	return s
}

// Reset makes s a fresh source seeded with seed, as New(seed) would return,
// keeping its buffers so that a loop running many short executions does not
// allocate a recording for each. The previous Recording is overwritten:
// Clone it first to keep it.
//
//go:norace
func (s *Source) Reset(seed uint64) {
	sites := s.sites
	values, data := s.rec.Values[:0], s.rec.Data[:0]
	*s = Source{stopLimit: defaultStopLimit, sites: sites}
	s.rec.Values, s.rec.Data = values, data
	s.rng.seed(seed)
}

// Replay returns a Source serving the values of rec, per uid: a draw takes
// the next unserved value recorded for its own uid, so draws added or
// removed at other sites do not shift its values. A draw whose uid has no
// value left is served by a fallback (see the package documentation) and
// counted by Fallbacks. Replayed values are mapped into the draw's range,
// so replay never fails. rec is not modified or retained; nil replays as an
// empty recording.
//
//go:norace
func Replay(rec *Recording) *Source {
	s := &Source{stopLimit: defaultStopLimit, replaying: true}
	if rec == nil {
		return s
	}
	s.data = make([]byte, len(rec.Data))
	for i, b := range rec.Data {
		s.data[i] = b
	}

	// Count each uid's values (in end), in first-appearance order. The map is
	// local to this call and discarded; draws use the frozen index below.
	qi := make(map[UID]int32)
	for _, v := range rec.Values {
		i, ok := qi[v.UID]
		if !ok {
			i = int32(len(s.queues))
			qi[v.UID] = i
			s.queues = append(s.queues, queue{uid: v.UID})
		}
		s.queues[i].end++
	}
	start := 0
	for i := range s.queues {
		q := &s.queues[i]
		n := q.end
		q.next, q.end = start, start // end is the fill cursor until the loop below ends
		start += n
	}
	s.items = make([]item, len(rec.Values))
	off := 0
	for _, v := range rec.Values {
		q := &s.queues[qi[v.UID]]
		it := item{v: v.V}
		if v.UID.Kind() == KindBytes {
			// A hand-made or mutated recording may claim more bytes than
			// Data holds: clamp, and let the draw zero-pad.
			it.off = off
			off += int(min(v.V, uint64(len(s.data)-off)))
		}
		s.items[q.end] = it
		q.end++
	}

	size := 2
	for size < 2*len(s.queues) {
		size *= 2
	}
	s.index = make([]int32, size)
	mask := uint64(size - 1)
	for i := range s.queues {
		j := hashUID(s.queues[i].uid) & mask
		for s.index[j] != 0 {
			j = (j + 1) & mask
		}
		s.index[j] = int32(i + 1)
	}
	return s
}

// ReplayThen returns a Source that replays rec as Replay does, except that a
// draw whose uid has no value left is served fresh, from a generator seeded
// with seed, instead of by fallback. A fuzz loop uses it to run a mutated
// recording: the recorded values steer the run as far as they reach, and
// the rest of the run is random rather than always the fallback. Fallbacks
// stays 0.
//
//go:norace
func ReplayThen(rec *Recording, seed uint64) *Source {
	s := Replay(rec)
	s.then = true
	s.rng.seed(seed)
	return s
}

// FromBytes returns a fresh Source whose generator yields the bytes of data,
// eight at a time (little-endian, the last word zero-padded), and then the
// values of a generator seeded by a hash of data. It lets a byte-oriented
// fuzzer (go test -fuzz) steer every draw in request order; data is not
// retained.
//
//go:norace
func FromBytes(data []byte) *Source {
	s := &Source{stopLimit: defaultStopLimit}
	h := uint64(0xcbf29ce484222325) // FNV-1a
	for _, b := range data {
		h = (h ^ uint64(b)) * 0x100000001b3
	}
	s.rng.seed(h)
	s.rng.stream = make([]byte, len(data))
	for i, b := range data {
		s.rng.stream[i] = b
	}
	return s
}

// hashUID spreads uids over the replay index (Fibonacci hashing).
func hashUID(u UID) uint64 {
	return (uint64(u) * 0x9e3779b97f4a7c15) >> 32
}

// Recording returns what the Source has served so far. It is the live
// recording, which further draws extend; Clone it to keep it.
//
//go:norace
func (s *Source) Recording() *Recording { return &s.rec }

// Len returns the number of values served.
//
//go:norace
func (s *Source) Len() int { return len(s.rec.Values) }

// Fallbacks returns how many draws a replaying Source served by fallback
// because the recording had no value left for their uid. It is always 0 for
// a fresh Source.
//
//go:norace
func (s *Source) Fallbacks() int { return s.fallbacks }

// Replaying reports whether the Source was made by Replay.
//
//go:norace
func (s *Source) Replaying() bool { return s.replaying }

// SetStopLimit sets how many "no" answers Stop may give before it must say
// yes (default 1024); see Stop. A negative n counts as 0.
//
//go:norace
func (s *Source) SetStopLimit(n int) { s.stopLimit = max(n, 0) }

// At returns the draw methods keyed by key instead of by call site: the cheap
// path, with no call-site lookup.
//
//go:norace
func (s *Source) At(key Key) Keyed { return Keyed{s: s, key: key} }

// Keyed draws values from a Source under one explicit key. Obtain it with
// Source.At; it is a small value meant to be used immediately.
type Keyed struct {
	s   *Source
	key Key
}

// origin says where pull got a value from.
type origin uint8

const (
	fromRNG      origin = iota // fresh: a uniform 64-bit word, to be scaled
	fromRecord                 // replay: a recorded value, to be reduced
	fromFallback               // replay: the uid's queue is empty
)

// pull gets the raw material for one draw of uid.
//
//go:norace
func (s *Source) pull(uid UID) (uint64, origin) {
	if !s.replaying {
		return s.rng.next(), fromRNG
	}
	if it, ok := s.take(uid); ok {
		return it.v, fromRecord
	}
	if s.then {
		return s.rng.next(), fromRNG
	}
	return 0, fromFallback
}

// take returns the next recorded value of uid, or false (counting a
// fallback) if there is none. Consecutive draws of one uid hit the one-entry
// cache and skip the index.
//
//go:norace
func (s *Source) take(uid UID) (item, bool) {
	q := s.last
	if q == nil || s.lastID != uid {
		q = s.find(uid)
		s.last, s.lastID = q, uid
	}
	if q.next == q.end {
		if !s.then {
			s.fallbacks++
		}
		return item{}, false
	}
	it := s.items[q.next]
	q.next++
	return it, true
}

// find returns uid's queue, or the empty queue if uid was never recorded.
//
//go:norace
func (s *Source) find(uid UID) *queue {
	if len(s.index) == 0 {
		return &s.none
	}
	mask := uint64(len(s.index) - 1)
	for j := hashUID(uid) & mask; ; j = (j + 1) & mask {
		i := s.index[j]
		if i == 0 {
			return &s.none
		}
		if q := &s.queues[i-1]; q.uid == uid {
			return q
		}
	}
}

// record appends a served value.
//
//go:norace
func (s *Source) record(uid UID, v uint64) {
	s.rec.Values = append(reserve(s.rec.Values, 1), Value{UID: uid, V: v})
}

// reserve returns s with room for n more elements. It doubles the capacity
// itself because append grows large slices by only 1.25x, which made
// re-copying the recording the dominant cost of a draw; and it copies
// element by element because the copy builtin is race-checked by the runtime
// even in norace functions (see Source).
//
//go:norace
func reserve[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	return grow(s, n)
}

// grow is reserve's slow path, out of line so that the draws keep small
// stack frames.
//
//go:norace
//go:noinline
func grow[T any](s []T, n int) []T {
	t := make([]T, len(s), max(2*cap(s), len(s)+n, 256))
	for i := range s {
		t[i] = s[i]
	}
	return t
}

// reduce maps a recorded value into [0, n), n == 0 meaning all of uint64.
func reduce(v, n uint64) uint64 {
	if n == 0 {
		return v
	}
	return v % n
}

// Uint64 returns a uniformly distributed uint64. Fallback: 0.
//
//go:norace
func (k Keyed) Uint64() uint64 {
	s, uid := k.s, MakeUID(KindUint, k.key)
	v, _ := s.pull(uid) // a fallback pulls 0
	s.record(uid, v)
	return v
}

// Int64 returns a uniformly distributed int64. Fallback: 0.
//
//go:norace
func (k Keyed) Int64() int64 {
	s, uid := k.s, MakeUID(KindInt, k.key)
	v, _ := s.pull(uid)
	s.record(uid, v)
	return int64(v)
}

// IntRange returns an int in [lo, hi], both inclusive. It panics if lo > hi.
// Recorded as the offset from lo. Fallback: lo.
//
//go:norace
func (k Keyed) IntRange(lo, hi int) int {
	if lo > hi {
		panic(fmt.Sprintf("entropy: IntRange(%d, %d): lo > hi", lo, hi))
	}
	s, uid := k.s, MakeUID(KindRange, k.key)
	// Unsigned arithmetic: hi-lo may exceed MaxInt, and the full range wraps
	// n to 0, which scale and reduce read as 2^64.
	n := uint64(hi) - uint64(lo) + 1
	v, o := s.pull(uid)
	switch o {
	case fromRNG:
		v = scale(v, n)
	case fromRecord:
		v = reduce(v, n)
	}
	s.record(uid, v)
	return int(uint64(lo) + v)
}

// Bool returns true with probability p: never if p <= 0 (or NaN), always if
// p >= 1, but recorded either way. Fallback: false.
//
//go:norace
func (k Keyed) Bool(p float64) bool {
	s, uid := k.s, MakeUID(KindBool, k.key)
	v, o := s.pull(uid)
	var b bool
	switch o {
	case fromRNG:
		switch {
		case p >= 1:
			b = true
		case p > 0:
			b = v < uint64(p*(1<<64))
		}
	case fromRecord:
		b = v != 0
	}
	s.record(uid, b2u(b))
	return b
}

// panicf panics with a formatted message. It is a function of its own so
// that the draws that call it keep small stack frames: the scheduler draws
// at every decision, deep in a goroutine's stack.
//
//go:noinline
func panicf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Choice returns an int uniformly distributed in [0, n). It panics if
// n <= 0. Fallback: 0.
//
//go:norace
func (k Keyed) Choice(n int) int {
	if n <= 0 {
		panicf("entropy: Choice(%d): n must be positive", n)
	}
	s, uid := k.s, MakeUID(KindChoice, k.key)
	v, o := s.pull(uid)
	switch o {
	case fromRNG:
		v = scale(v, uint64(n))
	case fromRecord:
		v = v % uint64(n)
	}
	s.record(uid, v)
	return int(v)
}

// Weighted returns an index i of weights with probability
// weights[i]/sum(weights); an index with weight 0 is never returned. It
// panics if no weight is positive. A replayed index is taken modulo
// len(weights) and, if its weight is 0, moved cyclically to the next index
// with positive weight. Fallback: the first index with positive weight.
//
//go:norace
func (k Keyed) Weighted(weights []uint64) int {
	// The sum is kept in 128 bits so that no weights can overflow it.
	var hi, lo uint64
	for _, w := range weights {
		var c uint64
		lo, c = bits.Add64(lo, w, 0)
		hi += c
	}
	if hi == 0 && lo == 0 {
		panic(fmt.Sprintf("entropy: Weighted: no positive weight among %d weights", len(weights)))
	}
	s, uid := k.s, MakeUID(KindChoice, k.key)
	v, o := s.pull(uid)
	var i int
	switch o {
	case fromRNG:
		i = pickWeighted(weights, v, hi, lo)
	case fromRecord:
		i = nextPositive(weights, int(v%uint64(len(weights))))
	default:
		i = nextPositive(weights, 0)
	}
	s.record(uid, uint64(i))
	return i
}

// pickWeighted returns the index whose cumulative weight interval holds
// t = floor(x * sum / 2^64), where sum = hi<<64 | lo.
func pickWeighted(weights []uint64, x, hi, lo uint64) int {
	// x*sum/2^64 = x*hi + x*lo/2^64, and x*hi is an integer.
	th, tl := bits.Mul64(x, hi)
	m, _ := bits.Mul64(x, lo)
	var c uint64
	tl, c = bits.Add64(tl, m, 0)
	th += c
	for i, w := range weights {
		if th == 0 && tl < w {
			return i
		}
		var b uint64
		tl, b = bits.Sub64(tl, w, 0)
		th -= b
	}
	return nextPositive(weights, 0) // unreachable: t < sum
}

// nextPositive returns the first index at or cyclically after i whose weight
// is positive; the caller has checked that one exists.
func nextPositive(weights []uint64, i int) int {
	for weights[i] == 0 {
		i++
		if i == len(weights) {
			i = 0
		}
	}
	return i
}

// Bytes returns n new bytes. It panics if n < 0. A replay serves the
// recorded bytes, truncated or zero-padded to n, and records the n bytes
// actually served. Fallback: n zero bytes.
//
//go:norace
func (k Keyed) Bytes(n int) []byte {
	if n < 0 {
		panic(fmt.Sprintf("entropy: Bytes(%d): negative length", n))
	}
	s, uid := k.s, MakeUID(KindBytes, k.key)
	out := make([]byte, n)
	if !s.replaying {
		s.fill(out)
	} else if it, ok := s.take(uid); ok {
		m := min(uint64(n), it.v, uint64(len(s.data)-it.off))
		for i := range int(m) {
			out[i] = s.data[it.off+i]
		}
	} else if s.then {
		s.fill(out)
	}
	s.record(uid, uint64(n))
	data := reserve(s.rec.Data, n)
	for _, b := range out {
		data = append(data, b)
	}
	s.rec.Data = data
	return out
}

// fill fills out from the generator.
//
//go:norace
func (s *Source) fill(out []byte) {
	for i := 0; i < len(out); i += 8 {
		w := s.rng.next()
		for j := i; j < len(out) && j < i+8; j++ {
			out[j] = byte(w)
			w >>= 8
		}
	}
}

// Stop answers "stop here?": fresh, yes with probability 1/8. It is
// guaranteed to say yes eventually, in both modes: once the Source has
// answered no more than the stop limit times in total (that is, limit+1
// times; see SetStopLimit), every further Stop says yes and records 1, so a
// loop that runs until Stop says yes always ends, whatever a (mutated)
// recording says. A replayed Stop still consumes its recorded value, so
// later draws of the uid stay aligned. Fallback: yes.
//
//go:norace
func (k Keyed) Stop() bool {
	s, uid := k.s, MakeUID(KindStop, k.key)
	v, o := s.pull(uid)
	var yes bool
	switch o {
	case fromRNG:
		yes = v>>61 == 0
	case fromRecord:
		yes = v != 0
	default:
		yes = true
	}
	if s.stopNo > s.stopLimit {
		yes = true
	}
	if !yes {
		s.stopNo++
	}
	s.record(uid, b2u(yes))
	return yes
}

// The default-key draws key each draw by the calling function's name and
// line, looked up through a per-Source PC cache. They are the convenient
// form for test code; the scheduler uses At.

// Uint64 is At(key of the calling site).Uint64.
//
//go:norace
//go:noinline
func (s *Source) Uint64() uint64 {
	v := s.At(s.callerKey()).Uint64()
	if s.observe != nil {
		s.observed(fmt.Sprintf("Uint64() = %d", v))
	}
	return v
}

// Int64 is At(key of the calling site).Int64.
//
//go:norace
//go:noinline
func (s *Source) Int64() int64 {
	v := s.At(s.callerKey()).Int64()
	if s.observe != nil {
		s.observed(fmt.Sprintf("Int64() = %d", v))
	}
	return v
}

// IntRange is At(key of the calling site).IntRange.
//
//go:norace
//go:noinline
func (s *Source) IntRange(lo, hi int) int {
	v := s.At(s.callerKey()).IntRange(lo, hi)
	if s.observe != nil {
		s.observed(fmt.Sprintf("IntRange(%d, %d) = %d", lo, hi, v))
	}
	return v
}

// Bool is At(key of the calling site).Bool.
//
//go:norace
//go:noinline
func (s *Source) Bool(p float64) bool {
	v := s.At(s.callerKey()).Bool(p)
	if s.observe != nil {
		s.observed(fmt.Sprintf("Bool(%v) = %v", p, v))
	}
	return v
}

// Choice is At(key of the calling site).Choice.
//
//go:norace
//go:noinline
func (s *Source) Choice(n int) int {
	v := s.At(s.callerKey()).Choice(n)
	if s.observe != nil {
		s.observed(fmt.Sprintf("Choice(%d) = %d", n, v))
	}
	return v
}

// Weighted is At(key of the calling site).Weighted.
//
//go:norace
//go:noinline
func (s *Source) Weighted(weights []uint64) int {
	v := s.At(s.callerKey()).Weighted(weights)
	if s.observe != nil {
		s.observed(fmt.Sprintf("Weighted(%v) = %d", weights, v))
	}
	return v
}

// Bytes is At(key of the calling site).Bytes.
//
//go:norace
//go:noinline
func (s *Source) Bytes(n int) []byte {
	v := s.At(s.callerKey()).Bytes(n)
	if s.observe != nil {
		s.observed(fmt.Sprintf("Bytes(%d) = %x", n, v))
	}
	return v
}

// Stop is At(key of the calling site).Stop.
//
//go:norace
//go:noinline
func (s *Source) Stop() bool {
	v := s.At(s.callerKey()).Stop()
	if s.observe != nil {
		s.observed(fmt.Sprintf("Stop() = %v", v))
	}
	return v
}

// Draw is a value the call-site methods served (Uint64, IntRange, ...), as
// a report shows it: the call and its result, and where it was made.
type Draw struct {
	Call string // "IntRange(1, 6) = 4"
	Site string // "store_test.go:42"
}

// Observe has f called with each value the call-site methods serve from
// now on (the scheduler's own draws, through At, are not), so that a
// report can show what a failing run drew; nil stops it. It costs a
// formatted string and a symbol lookup per draw: a harness observes the
// one run it reports, not every run it explores. f must not draw.
func (s *Source) Observe(f func(Draw)) { s.observe = f }

// observed tells the observer about the draw call just made.
func (s *Source) observed(call string) {
	frame, _ := runtime.CallersFrames([]uintptr{s.lastPC}).Next()
	s.observe(Draw{Call: call, Site: baseName(frame.File) + ":" + strconv.Itoa(frame.Line)})
}
