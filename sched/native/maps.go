package native

import (
	"cmp"
	"fmt"
	"iter"
	randv2 "math/rand/v2"
	"reflect"
	"slices"

	"github.com/dstgo/dst/internal/engine"
)

// mapKey is the entropy key of the orders of map ranges.
var mapKey = engine.KeyMapOrder

// Map is a range over m: for k, v := range m becomes
// for k, v := range Map(m). Outside a run it is Go's range. Inside a run the
// order is drawn from the run's entropy, so that a seed decides it and a
// recording replays it, where Go's is random: the keys are put in order (by
// value for keys of a string, integer, float or boolean kind, by their %#v
// form for others) and shuffled with one value drawn. Keys holding pointers
// or channels print as addresses, which differ from run to run: a range over
// such a map is ordered by them. An entry deleted before the range reaches
// it is not produced; one added during the range is not either (Go allows
// both).
func Map[M ~map[K]V, K comparable, V any](m M) iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		g := engine.Current()
		if g == nil {
			for k, v := range m {
				if !yield(k, v) {
					return
				}
			}
			return
		}
		keys := make([]K, 0, len(m))
		vals := make([]V, 0, len(m))
		for k, v := range m {
			keys = append(keys, k)
			vals = append(vals, v)
		}
		order := sortedOrder(keys)
		seed := g.Source().At(mapKey).Uint64()
		randv2.New(randv2.NewPCG(seed, seed>>32|seed<<32)).Shuffle(len(order), func(i, j int) {
			order[i], order[j] = order[j], order[i]
		})
		for _, i := range order {
			k := keys[i]
			v, ok := m[k]
			if !ok {
				if k == k {
					continue // deleted before the range reached it
				}
				v = vals[i] // a NaN key, which no lookup finds
			}
			if !yield(k, v) {
				return
			}
		}
	}
}

// sortedOrder returns the indexes of keys in the keys' canonical order.
func sortedOrder[K comparable](keys []K) []int {
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	if len(keys) < 2 {
		return order
	}
	type sortKey struct {
		n float64 // floats, and integers' order where they fit
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
