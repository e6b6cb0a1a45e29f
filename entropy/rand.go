package entropy

import "math/bits"

// rng is xoshiro256** seeded through splitmix64. It is our own so that the
// stream for a seed is fixed forever, independent of math/rand's evolution.
// A stream, when set (FromBytes), is served first, eight bytes per word.
type rng struct {
	s      [4]uint64
	stream []byte
}

// splitmix64 advances *x and returns the next output; used only to expand a
// 64-bit seed into xoshiro's 256-bit state (never all zero).
func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

//go:norace
func (r *rng) seed(seed uint64) {
	for i := range r.s {
		r.s[i] = splitmix64(&seed)
	}
}

//go:norace
func (r *rng) next() uint64 {
	if len(r.stream) > 0 {
		return r.fromStream()
	}
	s := &r.s
	result := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return result
}

// scale maps a uniform 64-bit word onto [0, n) by taking the high word of
// x*n (Lemire). The bias is below n/2^64, which is immaterial for test
// scheduling, and it costs exactly one word per draw, which keeps the stream
// layout simple. n == 0 means the full 2^64 range.
func scale(x, n uint64) uint64 {
	if n == 0 {
		return x
	}
	hi, _ := bits.Mul64(x, n)
	return hi
}

//go:norace
func (r *rng) fromStream() uint64 {
	var w uint64
	for i := 0; i < 8 && i < len(r.stream); i++ {
		w |= uint64(r.stream[i]) << (8 * i)
	}
	r.stream = r.stream[min(8, len(r.stream)):]
	return w
}
