package native

import (
	"cmp"
	"fmt"
	"iter"
	"math/bits"
	randv2 "math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
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
// form for others, and for pointers by what they point to) and shuffled
// with one value drawn. Keys that hold pointers (a struct with a pointer
// field) or channels print them as addresses, which differ from run to run:
// a range over such a map is ordered by them; so is one over pointer keys
// whose targets are alike. An entry deleted before the range reaches
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
			order, tied := sortedOrder(unordered)
			if tied {
				noteTied[M](g)
			}
			for _, i := range order {
				keys = append(keys, unordered[i])
				vals = append(vals, unorderedVals[i])
			}
		}
		// Shuffling the keys swaps them as shuffling their indexes did: the
		// same seed gives the same order.
		seed := g.Source().At(mapKey).Uint64()
		shuffle(seed, len(keys), func(i, j int) {
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

// shuffle puts n elements in an order drawn from seed, swapping them with
// swap: from the last down, each with one at or before it, as
// math/rand/v2's Shuffle does with a PCG source on a 64-bit machine (the
// maps tests check that the two agree), so that a seed gives the order it
// gave when Map called Shuffle, without a *rand.Rand and its source on the
// heap at every range.
func shuffle(seed uint64, n int, swap func(i, j int)) {
	pcg := randv2.NewPCG(seed, seed>>32|seed<<32)
	for i := n - 1; i > 0; i-- {
		swap(i, below(pcg, uint64(i)+1))
	}
}

// below returns a value in [0, n) drawn from p, by multiplying a draw by n
// and keeping the high word, drawing again when the low word falls in the
// part that would favour some values (Lemire's method).
func below(p *randv2.PCG, n uint64) int {
	if n&(n-1) == 0 {
		return int(p.Uint64() & (n - 1))
	}
	hi, lo := bits.Mul64(p.Uint64(), n)
	if lo < n {
		for floor := -n % n; lo < floor; {
			hi, lo = bits.Mul64(p.Uint64(), n)
		}
	}
	return int(hi)
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

// pointerForm is, when k is a pointer (or an interface holding one), the
// form that orders it among the map's keys: what it points to, with the
// pointers in there followed in turn (former.form), never an address, which
// differs from process to process, so that a saved trace of a range over
// such a map (net/http's Server.closeIdleConns, over its
// map[*conn]struct{}) replays in another. What is read is copied first
// where the race detector does not see it: the fields may be written by
// other goroutines of the run, with no happens-before edge the detector
// knows of (the scheduler adds none, so that it finds the program's own
// races), and the tool's read would be reported as a race.
func pointerForm(k any) (string, bool) {
	v := reflect.ValueOf(k)
	if !v.IsValid() || v.Kind() != reflect.Pointer {
		return "", false
	}
	// Shallow content first: the form at one pointer deep, then at two,
	// and so on, each bounded. A key's own fields decide its place before
	// what it shares with the others (net/http's conns each point first to
	// their one Server, whose form alone outgrows a bound, and differ by
	// their remoteAddr, further on).
	f := former{}
	f.b.WriteString(v.Type().String())
	for f.limit = 1; f.limit <= formDepth; f.limit++ {
		f.stop = f.b.Len() + formLen
		f.b.WriteByte('|')
		f.form(v, 0)
	}
	return f.b.String(), true
}

// The bounds of a pointer key's form: how many pointers deep it follows,
// how many elements of an array or a slice it writes, and how long the
// form of one depth gets.
const (
	formDepth = 4
	formElems = 16
	formLen   = 1024
)

// former writes the content of a value, to a depth of limit pointers, to
// b, until b is stop bytes long.
type former struct {
	b     strings.Builder
	limit int
	stop  int
}

// form writes v's content: values as they print, pointers followed to the
// limit (their targets copied unseen), and what has no content of its own
// to order by (a func, a channel, an unsafe.Pointer, a map, a pointer past
// the limit) as its kind alone.
func (f *former) form(v reflect.Value, depth int) {
	b := &f.b
	if b.Len() > f.stop {
		return
	}
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("nil")
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Complex64, reflect.Complex128:
		b.WriteString(strconv.FormatComplex(v.Complex(), 'g', -1, 128))
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Pointer:
		if v.IsNil() || depth >= f.limit {
			b.WriteString(cond(v.IsNil(), "nil", "ptr"))
			return
		}
		c := reflect.New(v.Type().Elem())
		copyUnseen(typeWord(v.Type().Elem()), c.UnsafePointer(), v.UnsafePointer())
		b.WriteByte('&')
		f.form(c.Elem(), depth+1)
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		e := v.Elem()
		b.WriteString(e.Type().String())
		b.WriteByte('(')
		f.form(e, depth)
		b.WriteByte(')')
	case reflect.Struct:
		b.WriteByte('{')
		for i := range v.NumField() {
			if i > 0 {
				b.WriteByte(',')
			}
			f.form(v.Field(i), depth)
		}
		b.WriteByte('}')
	case reflect.Array:
		b.WriteByte('[')
		for i := range min(v.Len(), formElems) {
			if i > 0 {
				b.WriteByte(',')
			}
			f.form(v.Index(i), depth)
		}
		b.WriteByte(']')
	case reflect.Slice:
		if v.IsNil() || depth >= f.limit {
			b.WriteString(cond(v.IsNil(), "nil", "slice"))
			return
		}
		// The elements are shared: copy those written first.
		n := min(v.Len(), formElems)
		a := reflect.New(reflect.ArrayOf(n, v.Type().Elem()))
		if n > 0 {
			copyUnseen(typeWord(a.Type().Elem()), a.UnsafePointer(), v.UnsafePointer())
		}
		b.WriteString(strconv.Itoa(v.Len()))
		f.form(a.Elem(), depth+1)
	default: // Chan, Func, Map, UnsafePointer
		b.WriteString(v.Kind().String())
	}
}

func cond(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

// typeWord is the runtime's type descriptor of t.
func typeWord(t reflect.Type) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1]
}

// copyUnseen copies a value of the type typ from src to dst, with the
// garbage collector's write barriers but no race-detector events.
//
//go:norace
func copyUnseen(typ, dst, src unsafe.Pointer) { typedmemmove(typ, dst, src) }

//go:linkname typedmemmove runtime.typedmemmove
//go:noescape
func typedmemmove(typ, dst, src unsafe.Pointer)

// noteTied says in g's run's log, once per run and map type, that a range
// over a map of the type M met keys it could not tell apart, whose order
// is then Go's.
func noteTied[M any](g *engine.G) {
	key := typeWord(reflect.TypeFor[M]())
	if g.Shadow(key) != nil {
		return
	}
	g.SetShadow(key, nil, true)
	g.Log(fmt.Sprintf("sched: note: a range over a %s met keys alike in content: their order is Go's map order, which a replay in another process may not repeat", reflect.TypeFor[M]()))
}

// sortedOrder returns the indexes of keys in the keys' canonical order, for
// keys of the kinds sortKeys does not order: floats by value, pointers by
// pointerForm, others by their %#v form, in a stable sort. tied says that
// two keys had the same form (or were NaNs), so that their order is the one
// given.
func sortedOrder[K comparable](keys []K) (order []int, tied bool) {
	order = make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	if len(keys) < 2 {
		return order, false
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
		default:
			if f, ok := pointerForm(k); ok {
				sk[i].s = f
			} else {
				sk[i].s = fmt.Sprintf("%#v", k)
			}
		}
	}
	compare := func(a, b int) int {
		x, y := sk[a], sk[b]
		return cmp.Or(cmp.Compare(x.n, y.n), cmp.Compare(x.s, y.s))
	}
	slices.SortStableFunc(order, compare)
	for i := 1; i < len(order) && !tied; i++ {
		tied = compare(order[i-1], order[i]) == 0
	}
	return order, tied
}
