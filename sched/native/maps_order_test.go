package native

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// referenceOrder is sortedOrder as it was before its fast paths: every key
// turned into a sort key through reflect, then a stable sort. The order of
// a map range follows from it, so the fast paths must agree with it key for
// key, or a seed would range over the same map in another order than it
// did before (and a saved recording would replay another run).
func referenceOrder[K comparable](keys []K) []int {
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	type sortKey struct {
		n float64
		i int64
		u uint64
		s string
	}
	sk := make([]sortKey, len(keys))
	kind := reflect.TypeFor[K]().Kind()
	for i, k := range keys {
		v := reflect.ValueOf(k)
		switch kind {
		case reflect.String:
			sk[i].s = v.String()
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			sk[i].i = v.Int()
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			sk[i].u = v.Uint()
		case reflect.Float32, reflect.Float64:
			sk[i].n = v.Float()
		case reflect.Bool:
			if v.Bool() {
				sk[i].i = 1
			}
		default:
			sk[i].s = fmt.Sprintf("%#v", k)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := sk[a], sk[b]
		return cmp.Or(cmp.Compare(x.n, y.n), cmp.Compare(x.i, y.i), cmp.Compare(x.u, y.u), cmp.Compare(x.s, y.s))
	})
	return order
}

// checkOrder compares sortedOrder with referenceOrder on the distinct keys
// that gen makes, as a map's keys are distinct.
func checkOrder[K comparable](t *testing.T, name string, gen func(r *rand.Rand) K) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 10, 100, 5000} {
		seen := make(map[K]bool)
		var keys []K
		for tries := 0; len(keys) < n && tries < 20*n; tries++ {
			k := gen(r)
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		var want []K
		for _, i := range referenceOrder(keys) {
			want = append(want, keys[i])
		}
		var got []K
		if kind := reflect.TypeFor[K]().Kind(); sortsInPlace(kind) {
			got = slices.Clone(keys)
			sortKeys(got, kind)
		} else {
			order, _ := sortedOrder(keys)
			for _, i := range order {
				got = append(got, keys[i])
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s, %d keys: ordered %v, the reference order is %v", name, len(keys), head(got), head(want))
		}
	}
}

func head[K any](keys []K) []K { return keys[:min(len(keys), 8)] }

type (
	namedInt    int
	namedString string
	namedUint8  uint8
)

// TestSortedOrderUnchanged: the orders of keys of every kind the fast paths
// take, and of those they leave to the reflect path, are those of the
// reference order.
func TestSortedOrderUnchanged(t *testing.T) {
	wide := func(r *rand.Rand) uint64 { return r.Uint64() >> r.IntN(64) }
	checkOrder(t, "int", func(r *rand.Rand) int { return int(wide(r)) })
	checkOrder(t, "int8", func(r *rand.Rand) int8 { return int8(r.Uint64()) })
	checkOrder(t, "int16", func(r *rand.Rand) int16 { return int16(r.Uint64()) })
	checkOrder(t, "int32", func(r *rand.Rand) int32 { return int32(wide(r)) })
	checkOrder(t, "int64", func(r *rand.Rand) int64 { return int64(wide(r)) })
	checkOrder(t, "namedInt", func(r *rand.Rand) namedInt { return namedInt(wide(r)) })
	checkOrder(t, "uint", func(r *rand.Rand) uint { return uint(wide(r)) })
	checkOrder(t, "uint8", func(r *rand.Rand) uint8 { return uint8(r.Uint64()) })
	checkOrder(t, "namedUint8", func(r *rand.Rand) namedUint8 { return namedUint8(r.Uint64()) })
	checkOrder(t, "uint16", func(r *rand.Rand) uint16 { return uint16(r.Uint64()) })
	checkOrder(t, "uint32", func(r *rand.Rand) uint32 { return uint32(wide(r)) })
	checkOrder(t, "uint64", func(r *rand.Rand) uint64 { return wide(r) })
	checkOrder(t, "uintptr", func(r *rand.Rand) uintptr { return uintptr(wide(r)) })
	checkOrder(t, "bool", func(r *rand.Rand) bool { return r.IntN(2) == 1 })
	checkOrder(t, "extremes", func(r *rand.Rand) int64 {
		return []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64}[r.IntN(7)]
	})
	str := func(r *rand.Rand) string {
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = "aAz0\x00\xff é"[r.IntN(9)]
		}
		return string(b)
	}
	checkOrder(t, "string", str)
	checkOrder(t, "namedString", func(r *rand.Rand) namedString { return namedString(str(r)) })
	checkOrder(t, "float64", func(r *rand.Rand) float64 { return float64(int64(wide(r))) / 7 })
	checkOrder(t, "float32", func(r *rand.Rand) float32 { return float32(r.NormFloat64()) })
	type point struct{ x, y int }
	checkOrder(t, "struct", func(r *rand.Rand) point { return point{r.IntN(50) - 25, r.IntN(50)} })
	checkOrder(t, "array", func(r *rand.Rand) [2]uint8 { return [2]uint8{uint8(r.Uint32()), uint8(r.Uint32())} })
	checkOrder(t, "any", func(r *rand.Rand) any {
		if r.IntN(2) == 0 {
			return r.IntN(100)
		}
		return str(r)
	})
}
