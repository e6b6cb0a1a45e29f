package native

// A file written for a Go older than 1.22 has one variable per loop, not one
// per iteration. The rewrite compiles such a file at a newer language
// version (its calls here need generics and range over functions), so a
// loop whose variables a closure captures or whose address is taken gets
// them declared before the loop, as that Go had them:
//
//	for k, v := range m { ... }
//
// becomes
//
//	{ x := m; var k, v = MapVars(x); for k, v = range Map(x) { ... } }
//
// The functions below give those declarations the types the loop gave its
// variables, without naming them (the types may not be nameable in the
// file); each returns zero values.

// SliceVars has the types of a range over a slice (or an array sliced):
// the index and the element.
func SliceVars[S ~[]E, E any](S) (int, E) {
	var e E
	return 0, e
}

// MapVars has the types of a range over a map: the key and the value.
func MapVars[M ~map[K]V, K comparable, V any](M) (K, V) {
	var k K
	var v V
	return k, v
}

// StringVars has the types of a range over a string: the byte index and
// the rune.
func StringVars[S ~string](S) (int, rune) { return 0, 0 }

// ChanVar has the type of a range over a channel: the element.
func ChanVar[E any](<-chan E) E {
	var e E
	return e
}
