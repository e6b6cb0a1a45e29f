package trace_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dstgo/dst/trace"
)

// roundTripSizes covers the frame boundaries (of the first frames, and of
// the first full ones) and several frames.
var roundTripSizes = func() []int {
	sizes := []int{0, 1, 2, 100, trace.FrameEvents - 1, trace.FrameEvents, trace.FrameEvents + 1,
		2 * trace.FrameEvents, 3*trace.FrameEvents + 17}
	starts := frameStarts(5 * trace.FrameEvents)
	for k, i := range starts {
		if k == 1 || k == 2 || k == len(starts)-2 {
			sizes = append(sizes, i-1, i, i+1)
		}
	}
	return sizes
}()

func TestRoundTrip(t *testing.T) {
	seed := uint64(1)
	cases := slices.Clone(roundTripSizes)
	r0 := rand.New(rand.NewPCG(42, 42))
	for range 6 {
		cases = append(cases, r0.IntN(5*trace.FrameEvents))
	}
	for _, n := range cases {
		seed++
		r := rand.New(rand.NewPCG(seed, uint64(n)))
		evs := genEvents(r, n)
		h := genHeader(r)
		o := genOutcome(r)
		if seed%4 == 0 {
			o = nil // Write records a pass
		}
		checkRoundTrip(t, r, evs, h, o)
	}
}

func checkRoundTrip(t *testing.T, rng *rand.Rand, evs []trace.Event, h *trace.Header, o *trace.Outcome) {
	t.Helper()
	n := len(evs)
	var b trace.Buffer
	for i := range evs {
		b.Add(&evs[i])
	}
	if b.Len() != int64(n) {
		t.Fatalf("n=%d: Buffer.Len = %d", n, b.Len())
	}
	got, err := b.Events()
	if err != nil {
		t.Fatalf("n=%d: Buffer.Events: %v", n, err)
	}
	if !eventsEqual(got, evs) {
		t.Errorf("n=%d: Buffer.Events differs from the input: %v", n, firstDiff(got, evs))
	}
	var out bytes.Buffer
	if err := trace.Write(&out, h, &b, o); err != nil {
		t.Fatalf("n=%d: Write: %v", n, err)
	}
	data := out.Bytes()

	// The Add methods for particular kinds, the engine's, write the same
	// bytes as Add.
	var direct trace.Buffer
	for i := range evs {
		addDirect(&direct, &evs[i])
	}
	var out3 bytes.Buffer
	if err := trace.Write(&out3, h, &direct, o); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out3.Bytes(), data) {
		got, err := direct.Events()
		t.Errorf("n=%d: AddOp, AddArgs and AddSwitch wrote %d bytes, Add %d bytes, not the same (%v): %v",
			n, out3.Len(), len(data), err, firstDiff(got, evs))
	}

	// Buffer.Events still holds after Write, and the streaming Writer
	// writes the same bytes.
	if got, err := b.Events(); err != nil || !eventsEqual(got, evs) {
		t.Errorf("n=%d: Buffer.Events after Write: %v, %v", n, err, firstDiff(got, evs))
	}
	var out2 bytes.Buffer
	w, err := trace.NewWriter(&out2, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := w.Add(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(o); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out2.Bytes(), data) {
		t.Errorf("n=%d: Writer.Add wrote %d bytes, Write %d bytes, not the same", n, out2.Len(), len(data))
	}

	r := open(t, data)
	if r.Truncated != nil || r.Missing != 0 {
		t.Errorf("n=%d: Truncated = %v, Missing = %d on a whole trace", n, r.Truncated, r.Missing)
	}
	if r.Len() != int64(n) {
		t.Fatalf("n=%d: Len = %d", n, r.Len())
	}
	if !headersEqual(&r.Header, h) {
		t.Errorf("n=%d: header\n got %+v\nwant %+v", n, r.Header, *h)
	}
	wantO := o
	if wantO == nil {
		wantO = &trace.Outcome{Kind: "pass"}
	}
	if r.Outcome == nil || *r.Outcome != *wantO {
		t.Errorf("n=%d: outcome %+v, want %+v", n, r.Outcome, *wantO)
	}

	// By index, in order and in random order.
	for i := range evs {
		e, err := r.Event(int64(i))
		if err != nil || e != evs[i] {
			t.Fatalf("n=%d: Event(%d) = %+v, %v; want %+v", n, i, e, err, evs[i])
		}
	}
	for range min(n, 300) {
		i := rng.IntN(n)
		if e, err := r.Event(int64(i)); err != nil || e != evs[i] {
			t.Fatalf("n=%d: Event(%d) (random order) = %+v, %v; want %+v", n, i, e, err, evs[i])
		}
	}
	for _, i := range []int64{-1, int64(n), int64(n) + 1000} {
		if _, err := r.Event(i); err == nil {
			t.Errorf("n=%d: Event(%d) out of range: no error", n, i)
		}
	}
	// Via All.
	k := 0
	r.All(func(i int64, e trace.Event, err error) bool {
		if err != nil || i != int64(k) || k >= n || e != evs[k] {
			t.Fatalf("n=%d: All yielded %d: %+v, %v; want %d: %+v", n, i, e, err, k, evs[min(k, n-1)])
		}
		k++
		return true
	})
	if k != n {
		t.Errorf("n=%d: All yielded %d events", n, k)
	}
	// Via ReadAll.
	all, err := r.ReadAll()
	if err != nil || !eventsEqual(all, evs) {
		t.Errorf("n=%d: ReadAll: %v, %v", n, err, firstDiff(all, evs))
	}
	if d := trace.Compare(evs, all); d != nil {
		t.Errorf("n=%d: Compare: %v", n, d)
	}

	checkSeekStep(t, rng, r, evs)
}

// checkSeekStep compares SeekStep with a linear scan, for steps before the
// first, after the last, at every frame boundary and at random.
func checkSeekStep(t *testing.T, rng *rand.Rand, r *trace.Reader, evs []trace.Event) {
	t.Helper()
	n := len(evs)
	scan := func(step int64) int64 {
		for i := range evs {
			if evs[i].Step >= step {
				return int64(i)
			}
		}
		return int64(n)
	}
	steps := []int64{0, 1, -1, 1 << 62}
	if n > 0 {
		first, last := evs[0].Step, evs[n-1].Step
		steps = append(steps, first-1, first, first+1, last-1, last, last+1, last+1000)
		for _, i := range frameStarts(n) {
			for _, j := range []int{i - 1, i, i + 1} {
				if j >= 0 && j < n {
					steps = append(steps, evs[j].Step-1, evs[j].Step, evs[j].Step+1)
				}
			}
		}
		for range 150 {
			steps = append(steps, evs[rng.IntN(n)].Step+int64(rng.IntN(3))-1)
			steps = append(steps, first+rng.Int64N(last-first+2)-1)
		}
	}
	slices.Sort(steps)
	steps = slices.Compact(steps)
	bad := 0
	for _, s := range steps {
		got, err := r.SeekStep(s)
		if want := scan(s); err != nil || got != want {
			// Regression: SeekStep used to start its search at the last
			// frame whose first step is <= step, missing the events of
			// that step at the end of the frame before (several events
			// share a step across the boundary). Fixed in the working tree
			// while these tests were written.
			if bad++; bad <= 5 {
				t.Errorf("n=%d: SeekStep(%d) = %d, %v; want %d (the first event at or after step %d)", n, s, got, err, want, s)
			}
		}
	}
	if bad > 5 {
		t.Errorf("n=%d: SeekStep wrong for %d of %d steps", n, bad, len(steps))
	}
}

func eventsEqual(a, b []trace.Event) bool { return slices.Equal(a, b) }

func firstDiff(got, want []trace.Event) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return "event " + itoa(i) + ": got " + got[i].Format(nil) + " / " + locString(got[i]) +
				", want " + want[i].Format(nil) + " / " + locString(want[i])
		}
	}
	if len(got) != len(want) {
		return "got " + itoa(len(got)) + " events, want " + itoa(len(want))
	}
	return "no difference"
}

func locString(e trace.Event) string {
	return e.Loc.Func + "@" + e.Loc.File + ":" + itoa(e.Loc.Line)
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestSeekStepSharedStepAcrossFrames is the minimal case of the SeekStep
// bug: ten events per step, so a step spans the boundary between frames 0
// and 1 (with frames of 4096 events, step 409 spanned events 4090..4099).
func TestSeekStepSharedStepAcrossFrames(t *testing.T) {
	boundary := frameStarts(1000)[1]
	if boundary%10 == 0 {
		t.Fatalf("frame 1 starts at event %d: no step spans the boundary", boundary)
	}
	evs := make([]trace.Event, boundary+100)
	for i := range evs {
		evs[i] = trace.Event{Kind: trace.KindExit, Step: int64(i / 10), G: 1}
	}
	r := open(t, encode(t, &trace.Header{}, evs, nil))
	step := evs[boundary].Step
	got, err := r.SeekStep(step)
	// Regression: SeekStep(409) returned 4096 (frame 1's first event); the
	// first event at or after step 409 is event 4090, in frame 0.
	if want := int64(step * 10); err != nil || got != want {
		t.Errorf("SeekStep(%d) = %d, %v; want %d", step, got, err, want)
	}
}

// TestWriterNoEvents checks the empty trace and the nil buffer.
func TestWriterNoEvents(t *testing.T) {
	var out bytes.Buffer
	if err := trace.Write(&out, &trace.Header{Test: "TestEmpty"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	r := open(t, out.Bytes())
	if r.Len() != 0 || r.Truncated != nil || r.Outcome == nil || r.Outcome.Kind != "pass" || r.Header.Test != "TestEmpty" {
		t.Errorf("Len %d, Truncated %v, Outcome %+v, Header %+v", r.Len(), r.Truncated, r.Outcome, r.Header)
	}
	if i, err := r.SeekStep(5); i != 0 || err != nil {
		t.Errorf("SeekStep on an empty trace = %d, %v", i, err)
	}
	var nb *trace.Buffer
	if nb.Len() != 0 {
		t.Error("nil Buffer Len != 0")
	}
	if evs, err := nb.Events(); evs != nil || err != nil {
		t.Errorf("nil Buffer Events = %v, %v", evs, err)
	}
}

// addDirect adds e to b with the Add method for its kind, if it has one.
func addDirect(b *trace.Buffer, e *trace.Event) {
	switch e.Kind {
	case trace.KindOp, trace.KindBlock:
		var loc *trace.Location
		if e.Loc.File != "" || e.Loc.Func != "" || e.Loc.Line != 0 {
			loc = &e.Loc
		}
		b.AddOp(e.Kind, e.Step, e.G, e.Time, e.Op, e.Obj, loc)
		return
	case trace.KindSwitch:
		if e.Loc == (trace.Location{}) && int64(int32(e.Arg)) == e.Arg {
			b.AddSwitch(e.Step, e.G, e.Time, int32(e.Arg), e.Choice, e.N)
			return
		}
	case trace.KindSpawn, trace.KindExit, trace.KindWake, trace.KindClock, trace.KindTimerFire:
		if e.Loc == (trace.Location{}) {
			b.AddArgs(e.Kind, e.Step, e.G, e.Time, e.Arg, 0)
			return
		}
	case trace.KindTimerSet:
		if e.Loc == (trace.Location{}) {
			b.AddArgs(e.Kind, e.Step, e.G, e.Time, e.Arg, e.Dur)
			return
		}
	case trace.KindSelect:
		if e.Loc == (trace.Location{}) {
			b.AddArgs(e.Kind, e.Step, e.G, e.Time, e.Arg, e.N)
			return
		}
	}
	b.Add(e)
}

// AddArgs takes the kinds whose fields are all numbers; for any other it
// panics rather than write a field in the wrong form.
func TestAddArgsRefusesOtherKinds(t *testing.T) {
	for _, k := range []trace.Kind{trace.KindOp, trace.KindSwitch, trace.KindFault, trace.KindLog, trace.KindInvalid, 15} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AddArgs(%s) did not panic", k)
				}
			}()
			var b trace.Buffer
			b.AddArgs(k, 1, 1, 0, 1, 1)
		}()
	}
	var b trace.Buffer
	b.AddArgs(trace.KindTimerSet, 1, 1, 0, 3, 1000) // a kind it takes
	if b.Len() != 1 {
		t.Errorf("AddArgs(timer-set): %d events, want 1", b.Len())
	}
}

// Two ends differ when their kinds or messages do, not when a failure was
// reported from a line that moved.
func TestCompareEnds(t *testing.T) {
	same := [][2]string{
		{"pass", "pass"},
		{"test failed: a_test.go:12: boom", "test failed: a_test.go:14: boom"},
		// A race named by the detector's report, and the same race replayed
		// where the detector's report could not be read.
		{"data race: data race: write at proxy.go:172 (m.f) by goroutine 8, and an earlier write at proxy.go:172 (m.f) by goroutine 7",
			"data race: data race: the race detector reported 1 race(s) between this run's goroutines (its report is on stderr)"},
	}
	for _, c := range same {
		if d := trace.CompareEnds(3, c[0], c[1]); d != nil {
			t.Errorf("CompareEnds(%q, %q) = %v, want nil", c[0], c[1], d)
		}
	}
	differ := [][2]string{
		{"test failed: boom", "pass"},
		{"test failed: a_test.go:12: boom", "test failed: a_test.go:12: bang"},
		{"deadlock: 2 blocked", "leak: 2 blocked"},
		{"data race: data race: write at a.go:1", "test failed: data race: write at a.go:1"},
	}
	for _, c := range differ {
		d := trace.CompareEnds(3, c[0], c[1])
		if d == nil || d.Index != 3 || !strings.Contains(d.Error(), "ended differently") {
			t.Errorf("CompareEnds(%q, %q) = %v, want a divergence after 3 events", c[0], c[1], d)
		}
	}
}
