package quiet

import (
	"slices"
	"testing"
)

// TestTable: a map's semantics, in the order keys were added.
func TestTable(t *testing.T) {
	var tb Table[string, int]
	for i, k := range []string{"b", "a", "c", "a"} {
		tb.Set(k, i)
	}
	if v, ok := tb.Get("a"); !ok || v != 3 || tb.Len() != 3 {
		t.Fatalf("a=%d %v, len %d", v, ok, tb.Len())
	}
	tb.Del("b")
	tb.Del("missing")
	if !slices.Equal(tb.Keys(), []string{"a", "c"}) || !slices.Equal(tb.Values(), []int{3, 2}) || tb.At("b") != 0 {
		t.Fatalf("keys %v values %v", tb.Keys(), tb.Values())
	}
}

// TestAppend: Push and AppendBytes append as append does, growing.
func TestAppend(t *testing.T) {
	var s []int
	var b []byte
	for i := range 100 {
		s = Push(s, i)
		b = AppendBytes(b, []byte{byte(i), byte(i)})
	}
	if len(s) != 100 || s[99] != 99 || len(b) != 200 || b[198] != 99 || b[1] != 0 {
		t.Fatalf("%v %v", s[:3], b[:4])
	}
	if got := AppendBytes(nil, nil); len(got) != 0 {
		t.Fatal(got)
	}
}
