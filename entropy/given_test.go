package entropy_test

import (
	"reflect"
	"testing"

	"github.com/dstgo/dst/entropy"
)

// TestGivenReplays: values a fresh Source is given are recorded, draw
// nothing from its generator, and come back, per uid, from a replay of the
// recording; a replay with none left for a uid says so without a fallback,
// and a Source that goes on fresh records what it is given after them.
func TestGivenReplays(t *testing.T) {
	const steps, times = entropy.Key(1), entropy.Key(2)
	plain, given := entropy.New(7), entropy.New(7)
	if v, ok := given.At(steps).Recorded(); ok || v != 0 {
		t.Fatalf("a fresh Source's Recorded = %d, %v", v, ok)
	}
	var want []uint64
	for i := range uint64(3) {
		given.At(steps).Given(10 * i)
		given.At(times).Given(1000 + i)
		want = append(want, 10*i, 1000+i)
		if a, b := plain.At(3).Uint64(), given.At(3).Uint64(); a != b {
			t.Fatalf("draw %d: %d with Given values, %d without: Given drew from the generator", i, b, a)
		}
	}
	if !given.Fresh() || entropy.Replay(nil).Fresh() || !entropy.ReplayThen(nil, 1).Fresh() {
		t.Errorf("Fresh: New %v, Replay %v, ReplayThen %v", given.Fresh(), entropy.Replay(nil).Fresh(), entropy.ReplayThen(nil, 1).Fresh())
	}
	rec := given.Recording().Clone()

	r := entropy.Replay(rec)
	var got []uint64
	for {
		s, ok := r.At(steps).Recorded()
		if !ok {
			break
		}
		d, ok := r.At(times).Recorded()
		if !ok {
			t.Fatal("a step without its time")
		}
		got = append(got, s, d)
		r.At(3).Uint64()
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("replayed %v, want %v", got, want)
	}
	if r.Fallbacks() != 0 {
		t.Errorf("%d fallbacks", r.Fallbacks())
	}
	if !reflect.DeepEqual(r.Recording().Values, rec.Values) {
		t.Errorf("the replay recorded\n%v\nwant\n%v", r.Recording().Values, rec.Values)
	}

	then := entropy.ReplayThen(rec, 9)
	for range 3 {
		then.At(steps).Recorded()
	}
	if _, ok := then.At(steps).Recorded(); ok {
		t.Fatal("a value past the recording")
	}
	then.At(steps).Given(99)
	vs := then.Recording().Values
	if last := vs[len(vs)-1]; last.V != 99 {
		t.Errorf("the value given after the recording: %v", last)
	}
}
