package event

import "testing"

// Every operation and every kind has a name: a constant added without one
// would print as "" in every trace.
func TestTablesAreComplete(t *testing.T) {
	for op := OpNone; op < numOps; op++ {
		if opNames[op] == "" {
			t.Errorf("operation %d has no name", op)
		}
	}
	for k := KindInvalid; k < numKinds; k++ {
		if specs[k].Name == "" {
			t.Errorf("kind %d has no spec", k)
		}
	}
}
