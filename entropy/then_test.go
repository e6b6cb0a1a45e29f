package entropy

import (
	"bytes"
	"testing"
)

// TestReplayThenServesRecordThenFresh: recorded values come first, per uid;
// a uid with nothing left draws from the seeded generator, not the fallback,
// and the run's own recording replays it exactly.
func TestReplayThenServesRecordThenFresh(t *testing.T) {
	a, b := KeyOf("a"), KeyOf("b")
	src := New(1)
	for range 3 {
		src.At(a).Choice(1000)
	}
	rec := src.Recording().Clone()

	got := func(seed uint64) ([]int, *Recording, int) {
		s := ReplayThen(rec, seed)
		var out []int
		for range 6 {
			out = append(out, s.At(a).Choice(1000))
		}
		out = append(out, s.At(b).Choice(1000))
		return out, s.Recording().Clone(), s.Fallbacks()
	}
	x, xrec, fb := got(7)
	if fb != 0 {
		t.Errorf("Fallbacks = %d, want 0", fb)
	}
	for i, v := range rec.Values {
		if uint64(x[i]) != v.V {
			t.Errorf("draw %d = %d, want the recorded %d", i, x[i], v.V)
		}
	}
	zeros := 0
	for _, v := range x[3:] {
		if v == 0 {
			zeros++
		}
	}
	if zeros == len(x[3:]) {
		t.Errorf("draws past the recording are all the fallback 0: %v", x)
	}
	y, _, _ := got(7)
	if !slicesEqual(x, y) {
		t.Errorf("same seed, different draws: %v vs %v", x, y)
	}
	z, _, _ := got(8)
	if slicesEqual(x, z) {
		t.Errorf("different seeds, same fresh draws: %v", x)
	}
	// The recording of the run replays it exactly, even without the seed.
	r := Replay(xrec)
	for i := range 6 {
		if v := r.At(a).Choice(1000); v != x[i] {
			t.Fatalf("replay draw %d = %d, want %d", i, v, x[i])
		}
	}
}

func TestReplayThenBytes(t *testing.T) {
	s := ReplayThen(&Recording{}, 3)
	if b := s.At(KeyOf("x")).Bytes(16); bytes.Equal(b, make([]byte, 16)) {
		t.Errorf("fresh bytes past the recording are zeros")
	}
}

// TestFromBytesStreamsInRequestOrder: each word comes from the next eight
// bytes, so a byte fuzzer controls draws in the order they are made.
func TestFromBytesStreamsInRequestOrder(t *testing.T) {
	data := []byte{5, 0, 0, 0, 0, 0, 0, 0, 9}
	s := FromBytes(data)
	if v := s.At(KeyOf("p")).Uint64(); v != 5 {
		t.Errorf("first word = %d, want 5", v)
	}
	if v := s.At(KeyOf("q")).Uint64(); v != 9 {
		t.Errorf("second (short) word = %d, want 9", v)
	}
	// Past the data: a generator seeded by the data, the same every time.
	v1 := s.At(KeyOf("r")).Uint64()
	s2 := FromBytes(data)
	s2.At(KeyOf("p")).Uint64()
	s2.At(KeyOf("q")).Uint64()
	if v2 := s2.At(KeyOf("r")).Uint64(); v1 != v2 || v1 == 0 {
		t.Errorf("draws past the data: %d and %d, want equal and not 0", v1, v2)
	}
	data[0] = 6 // not retained
	if v := FromBytes([]byte{5}).At(KeyOf("p")).Uint64(); v != 5 {
		t.Errorf("got %d", v)
	}
	// Its recording replays it.
	r := Replay(s.Recording())
	if v := r.At(KeyOf("p")).Uint64(); v != 5 {
		t.Errorf("replayed first word = %d, want 5", v)
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
