package native

import (
	"math/rand"
	randv2 "math/rand/v2"
	"unsafe"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
)

// The global functions of math/rand and math/rand/v2. Inside a run they
// draw from the run's entropy, so a schedule's seed decides them too and a
// recording replays them; outside a run they are the global functions.
// rand.Intn(n) becomes Rand().Intn(n), and v2's rand.IntN(n)
// RandV2().IntN(n).

// randKey is the entropy key of the draws, and the run's table keys its
// generators by the addresses of these.
var randKey = entropy.KeyOf("math/rand")

var v1Slot, v2Slot byte

// runSource draws from a run's entropy source.
type runSource struct{ src *entropy.Source }

func (s runSource) Uint64() uint64 { return s.src.At(randKey).Uint64() }
func (s runSource) Int63() int64   { return int64(s.Uint64() >> 1) }
func (s runSource) Seed(int64)     {} // a run's draws come from its entropy

// globalSource is the global functions' generator.
type globalSource struct{}

func (globalSource) Uint64() uint64  { return rand.Uint64() }
func (globalSource) Int63() int64    { return rand.Int63() }
func (globalSource) Seed(seed int64) { rand.Seed(seed) } //nolint:staticcheck // as the global Seed does

var (
	globalV1 = rand.New(globalSource{})
	globalV2 = randv2.New(globalSource{})
)

// Rand is the generator behind math/rand's global functions.
func Rand() *rand.Rand {
	g := engine.Current()
	if g == nil {
		return globalV1
	}
	if r, ok := g.Shadow(unsafe.Pointer(&v1Slot)).(*rand.Rand); ok {
		return r
	}
	r := rand.New(runSource{g.Source()})
	g.SetShadow(unsafe.Pointer(&v1Slot), nil, r)
	return r
}

// RandV2 is the generator behind math/rand/v2's global functions.
func RandV2() *randv2.Rand {
	g := engine.Current()
	if g == nil {
		return globalV2
	}
	if r, ok := g.Shadow(unsafe.Pointer(&v2Slot)).(*randv2.Rand); ok {
		return r
	}
	r := randv2.New(runSource{g.Source()})
	g.SetShadow(unsafe.Pointer(&v2Slot), nil, r)
	return r
}

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
