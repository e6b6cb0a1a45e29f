package hunt

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dstgo/dst/entropy"
)

// mutScript is a Rand that returns predetermined numbers and records the
// bound of every IntN call, so a test states the exact draws a mutator makes.
type mutScript struct {
	t    *testing.T
	ints []int    // IntN results, in order
	u64s []uint64 // Uint64 results, in order
	ns   []int    // the n of each IntN call
}

func (s *mutScript) IntN(n int) int {
	s.t.Helper()
	s.ns = append(s.ns, n)
	if len(s.ints) == 0 {
		s.t.Fatalf("IntN(%d): the script has no ints left (bounds so far %v)", n, s.ns)
	}
	v := s.ints[0]
	s.ints = s.ints[1:]
	if v < 0 || v >= n {
		s.t.Fatalf("IntN(%d): scripted %d is out of range", n, v)
	}
	return v
}

func (s *mutScript) Uint64() uint64 {
	s.t.Helper()
	if len(s.u64s) == 0 {
		s.t.Fatalf("Uint64: the script has no uint64s left")
	}
	v := s.u64s[0]
	s.u64s = s.u64s[1:]
	return v
}

// done fails the test if the script was not used up.
func (s *mutScript) done() {
	s.t.Helper()
	if len(s.ints) > 0 || len(s.u64s) > 0 {
		s.t.Errorf("script not used up: ints %v, uint64s %v left", s.ints, s.u64s)
	}
}

var (
	mtA = entropy.MakeUID(entropy.KindChoice, 1)
	mtB = entropy.MakeUID(entropy.KindUint, 2)
	mtC = entropy.MakeUID(entropy.KindInt, 3)
	mtY = entropy.MakeUID(entropy.KindBytes, 4)
	mtZ = entropy.MakeUID(entropy.KindUint, 9)
)

func mtV(u entropy.UID, v uint64) entropy.Value { return entropy.Value{UID: u, V: v} }

// mutBase is the recording the mutator tests start from:
//
//	index  0    1    2    3   4    5    6
//	value  A10  B20  A11  Y2  A12  C30  B21      Data "xy"
//
// Non-bytes uids in first-appearance order with their weights 1+bits.Len(count):
// A (3 values) 3, B (2) 3, C (1) 2; total 8, so IntN(8) in [0,3) picks A,
// [3,6) B and [6,8) C.
func mutBase() *entropy.Recording {
	return &entropy.Recording{
		Values: []entropy.Value{mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21)},
		Data:   []byte("xy"),
	}
}

// mutOther is the recording mutSplice tests splice from: B100 Z5 B101 B102 A200.
func mutOther() *entropy.Recording {
	return &entropy.Recording{
		Values: []entropy.Value{mtV(mtB, 100), mtV(mtZ, 5), mtV(mtB, 101), mtV(mtB, 102), mtV(mtA, 200)},
	}
}

type mutCase struct {
	name   string
	fn     func(Rand, *entropy.Recording, *entropy.Recording) bool
	rec    *entropy.Recording // nil: mutBase()
	other  *entropy.Recording
	ints   []int
	u64s   []uint64
	wantNs []int // the bounds of the IntN calls
	want   []entropy.Value
	data   string // want Data
	ok     bool
}

func runMutCases(t *testing.T, cases []mutCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := c.rec
			if rec == nil {
				rec = mutBase()
			}
			var otherBefore []byte
			if c.other != nil {
				otherBefore, _ = c.other.MarshalBinary()
			}
			s := &mutScript{t: t, ints: c.ints, u64s: c.u64s}
			if ok := c.fn(s, rec, c.other); ok != c.ok {
				t.Fatalf("applied = %v, want %v", ok, c.ok)
			}
			s.done()
			if !slices.Equal(s.ns, c.wantNs) {
				t.Errorf("IntN bounds %v, want %v", s.ns, c.wantNs)
			}
			if !slices.Equal(rec.Values, c.want) {
				t.Errorf("values\n got %v\nwant %v", rec.Values, c.want)
			}
			if string(rec.Data) != c.data {
				t.Errorf("data %q, want %q", rec.Data, c.data)
			}
			if c.other != nil {
				if after, _ := c.other.MarshalBinary(); !bytes.Equal(after, otherBefore) {
					t.Errorf("other was modified")
				}
			}
		})
	}
}

// mtVals lists a case's expected values.
func mtVals(vs ...entropy.Value) []entropy.Value { return vs }

func TestMutatorValue(t *testing.T) {
	runMutCases(t, []mutCase{
		{name: "big", fn: mutValue, ints: []int{0, 1, 1}, u64s: []uint64{999}, wantNs: []int{8, 3, 2},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 999), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "small", fn: mutValue, ints: []int{6, 0, 0, 3}, wantNs: []int{8, 1, 2, 4},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 3), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "empty", fn: mutValue, rec: &entropy.Recording{}, ok: false},
		{name: "only bytes", fn: mutValue, rec: &entropy.Recording{Values: []entropy.Value{mtV(mtY, 1)}, Data: []byte("q")},
			want: mtVals(mtV(mtY, 1)), data: "q", ok: false},
	})
}

func TestMutatorNudge(t *testing.T) {
	runMutCases(t, []mutCase{
		{name: "down", fn: mutNudge, ints: []int{3, 1, 3, 1}, wantNs: []int{8, 2, 4, 2},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 17)), data: "xy", ok: true},
		{name: "up", fn: mutNudge, ints: []int{2, 0, 0, 0}, wantNs: []int{8, 3, 4, 2},
			want: mtVals(mtV(mtA, 11), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "floor", fn: mutNudge, rec: &entropy.Recording{Values: []entropy.Value{mtV(mtB, 2)}},
			ints: []int{0, 0, 3, 1}, wantNs: []int{2, 1, 4, 2}, want: mtVals(mtV(mtB, 0)), ok: true},
		{name: "empty", fn: mutNudge, rec: &entropy.Recording{}, ok: false},
	})
}

func TestMutatorNudged(t *testing.T) {
	neg := func(x int64) uint64 { return uint64(x) }
	for _, c := range []struct {
		v, d       uint64
		up, signed bool
		want       uint64
	}{
		{5, 2, false, false, 3},
		{5, 2, true, false, 7},
		{1, 3, false, false, 0},
		{math.MaxUint64 - 1, 4, true, false, math.MaxUint64},
		{neg(-1), 2, true, true, 1},
		{1, 3, false, true, neg(-2)},
		{math.MaxInt64 - 1, 4, true, true, math.MaxInt64},
		{neg(math.MinInt64 + 1), 4, false, true, neg(math.MinInt64)},
	} {
		if got := mutNudged(c.v, c.d, c.up, c.signed); got != c.want {
			t.Errorf("mutNudged(%#x, %d, up=%v, signed=%v) = %#x, want %#x", c.v, c.d, c.up, c.signed, got, c.want)
		}
	}
}

func TestMutatorDeleteRun(t *testing.T) {
	runMutCases(t, []mutCase{
		// A's values 1..2 (indices 2 and 4), around the bytes value.
		{name: "two of A", fn: mutDeleteRun, ints: []int{0, 1, 1}, wantNs: []int{8, 3, 2},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtY, 2), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "all of B", fn: mutDeleteRun, ints: []int{4, 1, 0}, wantNs: []int{8, 2, 1},
			want: mtVals(mtV(mtA, 10), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30)), data: "xy", ok: true},
		{name: "empty", fn: mutDeleteRun, rec: &entropy.Recording{}, ok: false},
	})
}

func TestMutatorInsertRun(t *testing.T) {
	runMutCases(t, []mutCase{
		{name: "two after B20", fn: mutInsertRun, ints: []int{3, 0, 1, 0, 2, 1}, u64s: []uint64{77}, wantNs: []int{8, 2, 4, 2, 4, 2},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtB, 2), mtV(mtB, 77), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "one after the last", fn: mutInsertRun, ints: []int{5, 1, 0, 0, 0}, wantNs: []int{8, 2, 4, 2, 4},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21), mtV(mtB, 0)), data: "xy", ok: true},
		{name: "empty", fn: mutInsertRun, rec: &entropy.Recording{}, ok: false},
	})
}

func TestMutatorReplaceRun(t *testing.T) {
	runMutCases(t, []mutCase{
		{name: "all of A", fn: mutReplaceRun, ints: []int{0, 2, 0, 0, 0, 1, 0, 1}, u64s: []uint64{5}, wantNs: []int{8, 3, 1, 2, 4, 2, 2, 4},
			want: mtVals(mtV(mtA, 0), mtV(mtB, 20), mtV(mtA, 5), mtV(mtY, 2), mtV(mtA, 1), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "second B", fn: mutReplaceRun, ints: []int{5, 0, 1, 1}, u64s: []uint64{1 << 40}, wantNs: []int{8, 2, 2, 2},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 1<<40)), data: "xy", ok: true},
		{name: "empty", fn: mutReplaceRun, rec: &entropy.Recording{}, ok: false},
	})
}

func TestMutatorCopyRun(t *testing.T) {
	runMutCases(t, []mutCase{
		// C has one value, so only A and B (weight 3 each) qualify: IntN(6).
		{name: "A2 over A0", fn: mutCopyRun, ints: []int{0, 0, 2, 0}, wantNs: []int{6, 2, 3, 2},
			want: mtVals(mtV(mtA, 12), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "A0 over A1 (dst skips src)", fn: mutCopyRun, ints: []int{1, 0, 0, 0}, wantNs: []int{6, 2, 3, 2},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 10), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "A0..1 over A1..2", fn: mutCopyRun, ints: []int{2, 1, 0, 0}, wantNs: []int{6, 2, 2, 1},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 10), mtV(mtY, 2), mtV(mtA, 11), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "B1 over B0", fn: mutCopyRun, ints: []int{5, 0, 1, 0}, wantNs: []int{6, 1, 2, 1},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 21), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "no uid with two values", fn: mutCopyRun, rec: &entropy.Recording{Values: []entropy.Value{mtV(mtA, 1), mtV(mtB, 2)}},
			want: mtVals(mtV(mtA, 1), mtV(mtB, 2)), ok: false},
	})
}

func TestMutatorSplice(t *testing.T) {
	runMutCases(t, []mutCase{
		// A and B are in both (C is not): IntN(6). Other's B run of 3 lands
		// from rec's B1 on: one overwrite, two appended after rec's last B.
		{name: "B overwrite and append", fn: mutSplice, other: mutOther(), ints: []int{3, 2, 0, 1}, wantNs: []int{6, 3, 1, 3},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 100), mtV(mtB, 101), mtV(mtB, 102)), data: "xy", ok: true},
		{name: "B middle over B0", fn: mutSplice, other: mutOther(), ints: []int{4, 0, 1, 0}, wantNs: []int{6, 3, 3, 3},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 101), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "A appended", fn: mutSplice, other: mutOther(), ints: []int{0, 0, 0, 3}, wantNs: []int{6, 1, 1, 4},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtA, 200), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "nil other", fn: mutSplice,
			want: mutBase().Values, data: "xy", ok: false},
		{name: "no common uid", fn: mutSplice, other: &entropy.Recording{Values: []entropy.Value{mtV(mtZ, 1), mtV(mtY, 0)}},
			want: mutBase().Values, data: "xy", ok: false},
	})
}

func TestMutatorOrderDelete(t *testing.T) {
	// Non-bytes positions, where a run may start: 0 1 2 4 5 6.
	runMutCases(t, []mutCase{
		{name: "stops before bytes", fn: mutOrderDelete, ints: []int{2, 3}, wantNs: []int{6, 5},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "to the end", fn: mutOrderDelete, ints: []int{3, 2}, wantNs: []int{6, 3},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2)), data: "xy", ok: true},
		{name: "one", fn: mutOrderDelete, ints: []int{0, 0}, wantNs: []int{6, 7},
			want: mtVals(mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "only bytes", fn: mutOrderDelete, rec: &entropy.Recording{Values: []entropy.Value{mtV(mtY, 1)}, Data: []byte("q")},
			want: mtVals(mtV(mtY, 1)), data: "q", ok: false},
	})
}

func TestMutatorOrderReplace(t *testing.T) {
	runMutCases(t, []mutCase{
		{name: "stops before bytes", fn: mutOrderReplace, ints: []int{1, 5, 0, 1, 1}, u64s: []uint64{42}, wantNs: []int{6, 6, 2, 4, 2},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 1), mtV(mtA, 42), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 30), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "after bytes", fn: mutOrderReplace, ints: []int{3, 1, 0, 2, 0, 3}, wantNs: []int{6, 3, 2, 4, 2, 4},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 2), mtV(mtC, 3), mtV(mtB, 21)), data: "xy", ok: true},
		{name: "empty", fn: mutOrderReplace, rec: &entropy.Recording{}, ok: false},
	})
}

func TestMutatorTruncate(t *testing.T) {
	runMutCases(t, []mutCase{
		{name: "keeps bytes", fn: mutTruncate, ints: []int{4}, wantNs: []int{7},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2)), data: "xy", ok: true},
		{name: "drops bytes", fn: mutTruncate, ints: []int{3}, wantNs: []int{7},
			want: mtVals(mtV(mtA, 10), mtV(mtB, 20), mtV(mtA, 11)), data: "", ok: true},
		{name: "to empty", fn: mutTruncate, ints: []int{0}, wantNs: []int{7}, want: mtVals(), data: "", ok: true},
		{name: "drops trailing data", fn: mutTruncate,
			rec:  &entropy.Recording{Values: []entropy.Value{mtV(mtY, 2), mtV(mtY, 1), mtV(mtA, 1)}, Data: []byte("abcdef")},
			ints: []int{2}, wantNs: []int{3}, want: mtVals(mtV(mtY, 2), mtV(mtY, 1)), data: "abc", ok: true},
		{name: "only bytes", fn: mutTruncate,
			rec:  &entropy.Recording{Values: []entropy.Value{mtV(mtY, 2), mtV(mtY, 1)}, Data: []byte("abc")},
			ints: []int{1}, wantNs: []int{2}, want: mtVals(mtV(mtY, 2)), data: "ab", ok: true},
		{name: "empty", fn: mutTruncate, rec: &entropy.Recording{}, ok: false},
	})
}

func TestMutatorDataLenClamps(t *testing.T) {
	rec := &entropy.Recording{Values: []entropy.Value{mtV(mtY, 3), mtV(mtA, 9), mtV(mtY, 2), mtV(mtY, 5)}, Data: []byte("abcd")}
	if got := mutDataLen(rec); got != 4 {
		t.Errorf("mutDataLen = %d, want 4 (3, then 1 of 2, then 0 of 5)", got)
	}
}

// TestMutatorTable checks the table's names, which Mutate reports.
func TestMutatorTable(t *testing.T) {
	var names []string
	for _, m := range mutators {
		names = append(names, m.name)
	}
	want := []string{"value", "nudge", "delete-run", "insert-run", "replace-run", "copy-run", "splice", "order-delete", "order-replace", "truncate"}
	if !slices.Equal(names, want) {
		t.Errorf("mutator names %v, want %v", names, want)
	}
}

func TestMutateScripted(t *testing.T) {
	t.Run("one", func(t *testing.T) {
		// k = 0; the shuffle's first pick is index 9, truncate, keeping 2.
		s := &mutScript{t: t, ints: []int{0, 9, 2}}
		out, names := Mutate(s, mutBase(), nil)
		s.done()
		if want := []int{2, 10, 7}; !slices.Equal(s.ns, want) {
			t.Errorf("IntN bounds %v, want %v", s.ns, want)
		}
		if !slices.Equal(names, []string{"truncate"}) {
			t.Errorf("names %v", names)
		}
		if want := mtVals(mtV(mtA, 10), mtV(mtB, 20)); !slices.Equal(out.Values, want) || len(out.Data) != 0 {
			t.Errorf("out %v %q", out.Values, out.Data)
		}
	})
	t.Run("retry", func(t *testing.T) {
		// k = 1. Step 1: splice (6) does not apply with no other; then
		// 1+IntN(9) = 6 swaps in the value mutator (index 0): C = 3.
		// Step 2: the shuffle restarts; IntN(10) = 1 is nudge: A0 up by 1.
		s := &mutScript{t: t, ints: []int{1, 0, 6, 5, 6, 0, 0, 3, 1, 0, 0, 0, 0}}
		out, names := Mutate(s, mutBase(), nil)
		s.done()
		if want := []int{2, 2, 10, 9, 8, 1, 2, 4, 10, 8, 3, 4, 2}; !slices.Equal(s.ns, want) {
			t.Errorf("IntN bounds %v, want %v", s.ns, want)
		}
		if want := []string{"value", "nudge"}; !slices.Equal(names, want) {
			t.Errorf("names %v, want %v", names, want)
		}
		want := mtVals(mtV(mtA, 11), mtV(mtB, 20), mtV(mtA, 11), mtV(mtY, 2), mtV(mtA, 12), mtV(mtC, 3), mtV(mtB, 21))
		if !slices.Equal(out.Values, want) {
			t.Errorf("values\n got %v\nwant %v", out.Values, want)
		}
	})
	t.Run("nothing applies", func(t *testing.T) {
		// Each of the ten mutators is tried once, in shuffle order.
		s := &mutScript{t: t, ints: []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}
		out, names := Mutate(s, &entropy.Recording{}, mutOther())
		s.done()
		if len(names) != 0 || out == nil || out.Len() != 0 {
			t.Errorf("got %v, %v", out, names)
		}
	})
}

// mutRandRecording returns a random valid recording over a few uids from a
// small key space (so two recordings often share uids), with bytes values
// and sometimes unused trailing Data.
func mutRandRecording(r *rand.Rand) *entropy.Recording {
	pool := make([]entropy.UID, 1+r.IntN(6))
	for i := range pool {
		pool[i] = entropy.MakeUID(entropy.Kind(1+r.IntN(7)), entropy.Key(r.IntN(4)))
	}
	rec := &entropy.Recording{}
	for range r.IntN(40) {
		u := pool[r.IntN(len(pool))]
		var v uint64
		switch {
		case u.Kind() == entropy.KindBytes:
			v = uint64(r.IntN(6))
			for range v {
				rec.Data = append(rec.Data, byte(r.Uint64()))
			}
		case r.IntN(2) == 0:
			v = uint64(r.IntN(4))
		default:
			v = r.Uint64()
		}
		rec.Values = append(rec.Values, entropy.Value{UID: u, V: v})
	}
	if r.IntN(4) == 0 {
		rec.Data = append(rec.Data, "tail"...)
	}
	return rec
}

// mutBytesValues returns rec's bytes values, in order.
func mutBytesValues(rec *entropy.Recording) []entropy.Value {
	var out []entropy.Value
	for _, v := range rec.Values {
		if v.UID.Kind() == entropy.KindBytes {
			out = append(out, v)
		}
	}
	return out
}

// TestMutateProperties mutates many random recordings and checks that the
// output always round-trips through MarshalBinary, replays in full without
// fallbacks or panics serving exactly its Data, and keeps the bytes values
// and Data intact (truncate keeps a prefix of them); that the input and the
// other recording are unmodified; and that 1..8 names are returned.
func TestMutateProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	counts := make(map[string]int)
	for iter := range 5000 {
		rec, other := mutRandRecording(r), mutRandRecording(r)
		if r.IntN(8) == 0 {
			other = nil
		}
		before, _ := rec.MarshalBinary()
		var otherBefore []byte
		if other != nil {
			otherBefore, _ = other.MarshalBinary()
		}
		out, names := Mutate(r, rec, other)
		if after, _ := rec.MarshalBinary(); !bytes.Equal(after, before) {
			t.Fatalf("iter %d: input modified", iter)
		}
		if other != nil {
			if after, _ := other.MarshalBinary(); !bytes.Equal(after, otherBefore) {
				t.Fatalf("iter %d: other modified", iter)
			}
		}
		if rec.Len() > 0 && (len(names) < 1 || len(names) > 8) {
			t.Fatalf("iter %d: %d names %v", iter, len(names), names)
		}
		for _, n := range names {
			counts[n]++
		}

		b, err := out.MarshalBinary()
		if err != nil {
			t.Fatalf("iter %d: marshal: %v", iter, err)
		}
		var back entropy.Recording
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatalf("iter %d %v: unmarshal: %v\nin  %v %q\nout %v %q", iter, names, err, rec.Values, rec.Data, out.Values, out.Data)
		}
		if !slices.Equal(back.Values, out.Values) || !bytes.Equal(back.Data, out.Data) {
			t.Fatalf("iter %d: round trip differs", iter)
		}

		inB, outB := mutBytesValues(rec), mutBytesValues(out)
		if slices.Contains(names, "truncate") {
			if !slices.Equal(outB, inB[:len(outB)]) || !bytes.Equal(out.Data, rec.Data[:len(out.Data)]) || len(out.Data) != mutDataLen(out) {
				t.Fatalf("iter %d %v: bytes values or Data not a prefix", iter, names)
			}
		} else if !slices.Equal(outB, inB) || !bytes.Equal(out.Data, rec.Data) {
			t.Fatalf("iter %d %v: bytes values or Data changed", iter, names)
		}

		mutReplayAll(t, out)
	}
	for _, m := range mutators {
		if counts[m.name] == 0 {
			t.Errorf("mutator %s never applied", m.name)
		}
	}
	t.Logf("applied: %v", counts)
}

// mutReplayAll replays rec, drawing each recorded value with its kind's
// method, and checks that no draw fell back and that bytes draws serve Data.
func mutReplayAll(t *testing.T, rec *entropy.Recording) {
	t.Helper()
	s := entropy.Replay(rec)
	off := 0
	for _, v := range rec.Values {
		k := s.At(v.UID.Key())
		switch v.UID.Kind() {
		case entropy.KindUint:
			k.Uint64()
		case entropy.KindInt:
			k.Int64()
		case entropy.KindRange:
			k.IntRange(-3, 3)
		case entropy.KindBool:
			k.Bool(0.5)
		case entropy.KindChoice:
			k.Choice(3)
		case entropy.KindBytes:
			n := int(v.V)
			if got := k.Bytes(n); !bytes.Equal(got, rec.Data[off:off+n]) {
				t.Fatalf("bytes draw served %x, want %x", got, rec.Data[off:off+n])
			}
			off += n
		case entropy.KindStop:
			k.Stop()
		}
	}
	if s.Fallbacks() != 0 {
		t.Fatalf("%d fallbacks replaying a mutated recording", s.Fallbacks())
	}
}

func TestMutateDeterministic(t *testing.T) {
	gen := rand.New(rand.NewPCG(7, 7))
	for range 200 {
		rec, other := mutRandRecording(gen), mutRandRecording(gen)
		seed := gen.Uint64()
		out1, names1 := Mutate(rand.New(rand.NewPCG(seed, 0)), rec, other)
		out2, names2 := Mutate(rand.New(rand.NewPCG(seed, 0)), rec, other)
		b1, _ := out1.MarshalBinary()
		b2, _ := out2.MarshalBinary()
		if !slices.Equal(names1, names2) || !bytes.Equal(b1, b2) {
			t.Fatalf("same seed, different results: %v / %v", names1, names2)
		}
	}
}

func TestMutateUnmodifiedAndNames(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	hist := make([]int, 9)
	for range 4000 {
		rec := mutBase()
		other := mutOther()
		out, names := Mutate(r, rec, other)
		if !slices.Equal(rec.Values, mutBase().Values) || string(rec.Data) != "xy" {
			t.Fatalf("input modified: %v %q", rec.Values, rec.Data)
		}
		if !slices.Equal(other.Values, mutOther().Values) {
			t.Fatalf("other modified: %v", other.Values)
		}
		if len(names) < 1 || len(names) > 8 {
			t.Fatalf("%d names: %v", len(names), names)
		}
		if out == rec || (len(out.Values) > 0 && &out.Values[0] == &rec.Values[0]) {
			t.Fatalf("output shares the input's storage")
		}
		hist[len(names)]++
	}
	// Usually one mutation, occasionally a few.
	if hist[1] < hist[2] || hist[2] < hist[3] || hist[1] < 1500 {
		t.Errorf("number of mutations histogram %v: want about half ones, decreasing", hist)
	}
	t.Logf("names per Mutate: %v", hist)
}

// TestMutatePickUIDBias checks that uids with more values are picked more
// often, but only logarithmically so: weights 1+bits.Len(count) are 8, 5
// and 2 for 100, 10 and 1 values.
func TestMutatePickUIDBias(t *testing.T) {
	rec := &entropy.Recording{}
	for i := range 100 {
		rec.Values = append(rec.Values, mtV(mtA, uint64(i)))
		if i%10 == 0 {
			rec.Values = append(rec.Values, mtV(mtC, uint64(i)))
		}
		if i == 50 {
			rec.Values = append(rec.Values, mtV(mtB, 0), mtV(mtY, 0))
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	const n = 30000
	got := map[entropy.UID]int{}
	for range n {
		u, ok := mutPickUID(r, rec, 1, nil)
		if !ok {
			t.Fatal("no uid picked")
		}
		got[u]++
	}
	if got[mtY] != 0 {
		t.Errorf("picked the bytes uid %d times", got[mtY])
	}
	if !(got[mtA] > got[mtC] && got[mtC] > got[mtB]) {
		t.Errorf("picks A (100 values) %d, C (10) %d, B (1) %d: want A > C > B", got[mtA], got[mtC], got[mtB])
	}
	for _, c := range []struct {
		u    entropy.UID
		want float64
	}{{mtA, 8.0 / 15}, {mtC, 5.0 / 15}, {mtB, 2.0 / 15}} {
		if share := float64(got[c.u]) / n; math.Abs(share-c.want) > 0.02 {
			t.Errorf("uid %v picked %.3f of the time, want %.3f", c.u, share, c.want)
		}
	}
}

// Resample takes out the strategy's values (here A's) and keeps every other
// value, or, on a cut, those drawn before the cut; Data follows the bytes
// values kept.
func TestResample(t *testing.T) {
	isA := func(u entropy.UID) bool { return u == mtA }
	cases := []struct {
		name  string
		ints  []int // the script: keep everything (1) or cut (0), then where
		want  []entropy.Value
		data  string
		strat func(entropy.UID) bool
	}{
		{"keep", []int{1}, []entropy.Value{mtV(mtB, 20), mtV(mtY, 2), mtV(mtC, 30), mtV(mtB, 21)}, "xy", isA},
		// The cut is an index of the whole recording: before index 4
		// (A12), it keeps B20 and Y2.
		{"cut", []int{0, 4}, []entropy.Value{mtV(mtB, 20), mtV(mtY, 2)}, "xy", isA},
		{"cut before the bytes", []int{0, 3}, []entropy.Value{mtV(mtB, 20)}, "", isA},
		{"cut at the start", []int{0, 0}, nil, "", isA},
		// Nothing is the strategy's: it always cuts, else it would replay
		// the same run.
		{"no strategy values", []int{6}, mutBase().Values[:6], "xy", func(entropy.UID) bool { return false }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := mutBase()
			before := in.Clone()
			s := &mutScript{t: t, ints: tc.ints}
			got := Resample(s, in, tc.strat)
			s.done()
			if !slices.Equal(got.Values, tc.want) || string(got.Data) != tc.data {
				t.Errorf("got %v %q, want %v %q", got.Values, got.Data, tc.want, tc.data)
			}
			if !slices.Equal(in.Values, before.Values) || !bytes.Equal(in.Data, before.Data) {
				t.Error("Resample modified its input")
			}
		})
	}
	if got := Resample(rand.New(rand.NewPCG(1, 2)), nil, isA); got == nil || len(got.Values) != 0 {
		t.Errorf("Resample(nil) = %v, want an empty recording", got)
	}
}
