package native

import "slices"

// UnseenAdvice is unseenAdvice for a channel of an element type of the
// standard library's.
func UnseenAdvice() string { return unseenAdvice(nil) }

// ToolDeps is toolDeps, sorted.
func ToolDeps() []string { return slices.Sorted(slices.Values(toolDeps)) }

// Shuffle is shuffle.
func Shuffle(seed uint64, n int, swap func(i, j int)) { shuffle(seed, n, swap) }
