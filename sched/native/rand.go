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
	return perRun(&v1Slot, globalV1, func(s runSource) *rand.Rand { return rand.New(s) })
}

// RandV2 is the generator behind math/rand/v2's global functions.
func RandV2() *randv2.Rand {
	return perRun(&v2Slot, globalV2, func(s runSource) *randv2.Rand { return randv2.New(s) })
}

// perRun returns the run's generator kept at slot, made by newR on its
// first use in the run; outside a run, global.
func perRun[R any](slot *byte, global R, newR func(runSource) R) R {
	g := engine.Current()
	if g == nil {
		return global
	}
	if r, ok := g.Shadow(unsafe.Pointer(slot)).(R); ok {
		return r
	}
	r := newR(runSource{g.Source()})
	g.SetShadow(unsafe.Pointer(slot), nil, r)
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
