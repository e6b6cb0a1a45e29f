package native

import (
	"cmp"
	"fmt"
	"iter"
	randv2 "math/rand/v2"
	"reflect"
	"slices"
	"unsafe"

	"github.com/dstgo/dst/internal/engine"
)

// mapKey is the entropy key of the orders of map ranges.
var mapKey = engine.KeyMapOrder

// Map is a range over m: for k, v := range m becomes
// for k, v := range Map(m). Outside a run it is Go's range. Inside a run the
// order is drawn from the run's entropy, so that a seed decides it and a
// recording replays it, where Go's is random: the keys are put in order (by
// value for keys of a string, integer, float or boolean kind, by their %#v
// form for others) and shuffled with one value drawn. Keys that are or hold
// pointers or channels are ordered by address, which differ from run to
// run: a range over such a map is ordered by them. An entry deleted before the range reaches
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
		var vals []V // the values as the range began, for NaN keys
		if kind := reflect.TypeFor[K]().Kind(); sortsInPlace(kind) {
			// No key of these kinds is a NaN: the lookups below find
			// every key not deleted since.
			for k := range m {
				keys = append(keys, k)
			}
			sortKeys(keys, kind)
		} else {
			unordered := make([]K, 0, len(m))
			unorderedVals := make([]V, 0, len(m))
			for k, v := range m {
				unordered = append(unordered, k)
				unorderedVals = append(unorderedVals, v)
			}
			vals = make([]V, 0, len(m))
			for _, i := range sortedOrder(unordered) {
				keys = append(keys, unordered[i])
				vals = append(vals, unorderedVals[i])
			}
		}
		// Shuffling the keys swaps them as shuffling their indexes did: the
		// same seed gives the same order.
		seed := g.Source().At(mapKey).Uint64()
		randv2.New(randv2.NewPCG(seed, seed>>32|seed<<32)).Shuffle(len(keys), func(i, j int) {
			keys[i], keys[j] = keys[j], keys[i]
			if vals != nil {
				vals[i], vals[j] = vals[j], vals[i]
			}
		})
		for i, k := range keys {
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

// sortsInPlace reports whether sortKeys orders keys of kind: integers,
// strings and booleans, ordered by value, which for distinct keys is the
// only order.
func sortsInPlace(kind reflect.Kind) bool {
	switch kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.String, reflect.Bool:
		return true
	}
	return false
}

// sortKeys puts keys of a kind sortsInPlace reports in order by value. It
// sorts them as their kind's predeclared type, which has their layout,
// whatever their named type: no reflection and no comparison function per
// key (a map of a million keys took 1.5 s to order through reflect).
func sortKeys[K comparable](keys []K, kind reflect.Kind) {
	if len(keys) < 2 {
		return
	}
	p, n := unsafe.Pointer(unsafe.SliceData(keys)), len(keys)
	switch kind {
	case reflect.Int:
		slices.Sort(unsafe.Slice((*int)(p), n))
	case reflect.Int8:
		slices.Sort(unsafe.Slice((*int8)(p), n))
	case reflect.Int16:
		slices.Sort(unsafe.Slice((*int16)(p), n))
	case reflect.Int32:
		slices.Sort(unsafe.Slice((*int32)(p), n))
	case reflect.Int64:
		slices.Sort(unsafe.Slice((*int64)(p), n))
	case reflect.Uint:
		slices.Sort(unsafe.Slice((*uint)(p), n))
	case reflect.Uint8, reflect.Bool: // a bool's byte is 0 or 1
		slices.Sort(unsafe.Slice((*uint8)(p), n))
	case reflect.Uint16:
		slices.Sort(unsafe.Slice((*uint16)(p), n))
	case reflect.Uint32:
		slices.Sort(unsafe.Slice((*uint32)(p), n))
	case reflect.Uint64:
		slices.Sort(unsafe.Slice((*uint64)(p), n))
	case reflect.Uintptr:
		slices.Sort(unsafe.Slice((*uintptr)(p), n))
	case reflect.String:
		slices.Sort(unsafe.Slice((*string)(p), n))
	default:
		panic("native: sortKeys of kind " + kind.String())
	}
}

// sortedOrder returns the indexes of keys in the keys' canonical order, for
// keys of the kinds sortKeys does not order: floats by value, pointers and
// channels (also in an interface, after its type's name) by address, never
// reading what they point to, others by their %#v form, in a stable sort.
func sortedOrder[K comparable](keys []K) []int {
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	if len(keys) < 2 {
		return order
	}
	type sortKey struct {
		n float64
		s string
	}
	sk := make([]sortKey, len(keys))
	kind := reflect.TypeFor[K]().Kind()
	for i, k := range keys {
		switch kind {
		case reflect.Float32, reflect.Float64:
			sk[i].n = reflect.ValueOf(k).Float()
			continue
		case reflect.Pointer, reflect.UnsafePointer, reflect.Chan:
			sk[i].n = float64(reflect.ValueOf(k).Pointer())
			continue
		case reflect.Interface:
			if v := reflect.ValueOf(k); v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.UnsafePointer || v.Kind() == reflect.Chan) {
				sk[i].s, sk[i].n = v.Type().String(), float64(v.Pointer())
				continue
			}
		}
		// %#v would print what a pointer key points to: its fields,
		// read while other goroutines write them (a race the detector
		// reports), and through GoString methods.
		sk[i].s = fmt.Sprintf("%#v", k)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := sk[a], sk[b]
		return cmp.Or(cmp.Compare(x.s, y.s), cmp.Compare(x.n, y.n))
	})
	return order
}
