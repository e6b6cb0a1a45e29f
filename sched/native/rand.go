package native

import (
	"math/rand"
	randv2 "math/rand/v2"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
)

// The global functions of math/rand and math/rand/v2. Inside a run they
// draw from the run's entropy, so a schedule's seed decides them too and a
// recording replays them; outside a run they are the global functions.
// rand.Intn(n) becomes Rand().Intn(n), and v2's rand.IntN(n)
// RandV2().IntN(n).
//
// Each call returns a generator of its own, made for that use: goroutines
// of a run that draw at once share no generator, so the race detector sees
// no memory they share. A generator kept per run was one: made by the
// goroutine that drew first, its fields were read by the others (and
// rand.Read writes some) with no happens-before edge, since the scheduler's
// handoff creates none, and -race reported a race that Go's global
// functions do not have. Edges added at each use would silence it, but
// they would hide the races of the code under test too: Go's global
// functions draw from the runtime's generator, which creates no edge. The
// run's Source is safe to draw from in turn (package entropy is norace).

// randKey is the entropy key of the draws.
var randKey = engine.KeyRand

// runSource draws from a run's entropy source, for one use (one call of
// a global function).
//
// A replay whose recording has run out of draws for a key gets 0 for each
// (entropy's fallback): the shrinker's candidates cut recordings short. A
// rejection loop then never ends: math/rand's Shuffle and Intn, and
// math/rand/v2's IntN, retry while the value is below a threshold that 0
// always is, and each retry was recorded (bigcache's TestAppendRandomly
// grew a run's recording to 23 GB while its leak was shrunk). So after
// zeroRun zeros in a row, which real entropy gives with probability
// 2^-(64*zeroRun), this use's values are a fixed function of how many it
// drew since: as deterministic as the zeros, and any rejection loop ends.
type runSource struct {
	src   *entropy.Source
	zeros int // in a row; from zeroRun on, values are mixed
}

// zeroRun is how many zeros in a row a use of math/rand takes as a
// recording that ran out.
const zeroRun = 8

func (s *runSource) Uint64() uint64 {
	v := s.src.At(randKey).Uint64()
	if v != 0 {
		s.zeros = 0
		return v
	}
	s.zeros++
	if s.zeros < zeroRun {
		return 0
	}
	return mix(uint64(s.zeros))
}

func (s *runSource) Int63() int64 { return int64(s.Uint64() >> 1) }
func (s *runSource) Seed(int64)   {} // a run's draws come from its entropy

// mix is splitmix64's output function: distinct inputs give values spread
// over the whole range.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// globalSource is the global functions' generator.
type globalSource struct{}

func (globalSource) Uint64() uint64  { return rand.Uint64() }
func (globalSource) Int63() int64    { return rand.Int63() }
func (globalSource) Seed(seed int64) { rand.Seed(seed) } //nolint:staticcheck // as the global Seed does

// source is what the global functions draw from: the current run's
// entropy, or outside a run the global functions.
func source() rand.Source64 {
	if g := engine.Current(); g != nil {
		return &runSource{src: g.Source()}
	}
	return globalSource{}
}

// Rand is the generator behind math/rand's global functions, for one use.
func Rand() *rand.Rand { return rand.New(source()) }

// RandV2 is the generator behind math/rand/v2's global functions, for one
// use.
func RandV2() *randv2.Rand { return randv2.New(source()) }

// RandN is math/rand/v2's N.
func RandN[Int intType](n Int) Int {
	if n <= 0 {
		panic("invalid argument to N")
	}
	if engine.Current() == nil {
		return randv2.N(n)
	}
	return Int(RandV2().Uint64N(uint64(n)))
}

type intType interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}
