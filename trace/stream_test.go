package trace_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/dstgo/dst/trace"
)

// TestStream: a streaming Buffer puts every event on the writer as it is
// added. Cut off at any event (a process that dies), the bytes read as a
// trace cut short holding every event so far; closed, they read as the
// same trace as one written from a buffer in memory.
func TestStream(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	h, o := genHeader(r), genOutcome(r)
	evs := genEvents(r, 300)

	var out bytes.Buffer
	w, err := trace.NewWriter(&out, h)
	if err != nil {
		t.Fatal(err)
	}
	var b trace.Buffer
	w.Stream(&b)
	for i := range evs {
		b.Add(&evs[i])
		if i%37 != 0 && i != len(evs)-1 {
			continue
		}
		// What a process that died here leaves.
		cut := open(t, bytes.Clone(out.Bytes()))
		if cut.Len() != int64(i+1) || !errors.Is(cut.Truncated, trace.ErrTruncated) {
			t.Fatalf("after event %d: %d events readable, truncated: %v", i, cut.Len(), cut.Truncated)
		}
		last, err := cut.Event(int64(i))
		if err != nil || !last.Equal(&evs[i]) || last.Loc != evs[i].Loc {
			t.Fatalf("after event %d: the last one reads %+v, %v; want %+v", i, last, err, evs[i])
		}
	}
	if b.Len() != int64(len(evs)) {
		t.Fatalf("Len %d, want %d", b.Len(), len(evs))
	}
	if err := w.Close(o); err != nil {
		t.Fatal(err)
	}
	got := open(t, out.Bytes())
	if got.Truncated != nil {
		t.Fatal(got.Truncated)
	}
	all, err := got.ReadAll()
	if err != nil || len(all) != len(evs) {
		t.Fatalf("%d events, %v", len(all), err)
	}
	for i := range evs {
		if !all[i].Equal(&evs[i]) || all[i].Loc != evs[i].Loc {
			t.Fatalf("event %d: %+v, want %+v", i, all[i], evs[i])
		}
	}
	if got.Outcome == nil || got.Outcome.Kind != o.Kind {
		t.Fatalf("outcome %+v, want %+v", got.Outcome, o)
	}
}
