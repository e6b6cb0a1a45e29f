package event

import (
	"errors"
	"testing"
)

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

// TestExtendedKind: a kind past the header's four bits (KindIO) is
// written as a header with 0 there and the kind's byte after it, and read
// back; a header with 0 and no kind past the bits after it is corrupt.
func TestExtendedKind(t *testing.T) {
	if KindIO <= kindMask {
		t.Fatalf("KindIO is %d, within the header's bits: this test checks nothing", KindIO)
	}
	var b Buffer
	want := Event{Kind: KindIO, Step: 3, G: 2, Time: 7, Op: uint8(OpSend), Obj: 4, Arg: 100, N: 20, Dur: 5}
	b.Add(&Event{Kind: KindSpawn, Step: 3, G: 1, Arg: 2})
	b.Add(&want)
	got, err := b.Events()
	if err != nil || len(got) != 2 || got[1] != want {
		t.Fatalf("decoded %+v, %v; want the event %+v back", got, err, want)
	}
	payload := b.Frames()[0].AppendPayload(nil)
	// The second event's header: the string count (0) and the first
	// event (its header, goroutine and child) come before it.
	i := 1 + 3
	if payload[i]&kindMask != 0 || payload[i+1] != byte(KindIO) {
		t.Fatalf("the event's first bytes are %x, want a header with kind 0, then %x", payload[i:i+2], byte(KindIO))
	}
	for _, k := range []byte{byte(KindSpawn), 0, byte(numKinds)} {
		bad := append([]byte(nil), payload...)
		bad[i+1] = k
		if _, err := DecodeFrame(&Cursor{B: bad}, 0, 2, 3, 0); !errors.Is(err, ErrCorrupt) {
			t.Errorf("a kind byte %d after a header of kind 0: %v, want ErrCorrupt", k, err)
		}
	}
}
