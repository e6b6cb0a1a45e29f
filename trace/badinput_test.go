package trace_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dstgo/dst/trace"
)

// tameEvents returns n events shaped like a scheduler's: small ids, steps
// and times that grow slowly. They compress well, so a trace of several
// frames stays small enough to cut at every length.
func tameEvents(seed uint64, n int) []trace.Event {
	r := rand.New(rand.NewPCG(seed, 7))
	evs := make([]trace.Event, n)
	step, now := int64(0), int64(0)
	for i := range evs {
		if r.IntN(3) == 0 {
			step++
		}
		if r.IntN(50) == 0 {
			now += int64(r.IntN(5)) * 1e6
		}
		e := trace.Event{Step: step, Time: now, G: int32(1 + r.IntN(4))}
		switch r.IntN(6) {
		case 0:
			e.Kind, e.Arg, e.Choice, e.N = trace.KindSwitch, int64(1+r.IntN(4)), int64(r.IntN(3)), 3
		case 1:
			e.Kind, e.Op, e.Obj = trace.KindBlock, 20, int32(1+r.IntN(3))
		case 2:
			e.Kind, e.Arg = trace.KindWake, int64(1+r.IntN(4))
		case 3:
			e.Kind, e.Text = trace.KindLog, "tick"
		default:
			e.Kind, e.Op, e.Obj = trace.KindOp, uint8(5+r.IntN(2)), int32(1+r.IntN(3))
		}
		evs[i] = e
	}
	return evs
}

var (
	testHeader  = &trace.Header{Package: "example.com/p", Test: "TestCut", GoVersion: "go1.26.0", GOOS: "linux", GOARCH: "amd64", Strategy: "pct", Depth: 3, Seed: 99, Recording: []byte("entropy")}
	testOutcome = &trace.Outcome{Kind: "deadlock", Message: "all goroutines are blocked", Steps: 10, Switches: 3, Goroutines: 4}
)

// multiFrame is a trace of two full frames and a partial one: the first
// frames of a trace hold 16 events each.
func multiFrame(t *testing.T) ([]byte, []trace.Event, layout) {
	evs := tameEvents(3, 2*16+8)
	data := encode(t, testHeader, evs, testOutcome)
	l := parseLayout(t, data)
	if len(l.frames) != 3 {
		t.Fatalf("%d frames", len(l.frames))
	}
	return data, evs, l
}

// tryOpen opens data, turning a panic into an error.
func tryOpen(data []byte) (r *trace.Reader, err error, panicked any) {
	defer func() { panicked = recover() }()
	r, err = trace.Open(bytes.NewReader(data), int64(len(data)))
	return r, err, nil
}

// safely calls f, returning what it panicked with.
func safely(f func()) (panicked any) {
	defer func() { panicked = recover() }()
	f()
	return nil
}

func checkOpenErr(t *testing.T, name string, data []byte, sentinel error, wantInMsg ...string) {
	t.Helper()
	r, err, p := tryOpen(data)
	if p != nil {
		t.Errorf("%s: Open panicked: %v", name, p)
		return
	}
	if err == nil {
		r.Close()
		t.Errorf("%s: Open succeeded", name)
		return
	}
	if !errors.Is(err, sentinel) {
		t.Errorf("%s: Open: %v; want an error wrapping %v", name, err, sentinel)
	}
	for _, s := range wantInMsg {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%s: Open: %q does not mention %q", name, err, s)
		}
	}
}

func TestOpenEmpty(t *testing.T) {
	// Regression (found in review, fixed): an empty (or shorter than the magic number) file fails with
	// ErrTruncated but its message, "trace: 0 bytes, shorter than the magic
	// number", names no offset, unlike every other error of the package
	// (the package documents that errors name the offset).
	checkOpenErr(t, "empty", nil, trace.ErrTruncated, "offset 0")
	checkOpenErr(t, "DSTT", []byte("DSTT"), trace.ErrTruncated, "offset")
}

func TestOpenBadMagic(t *testing.T) {
	data := encode(t, testHeader, tameEvents(1, 10), nil)
	bad := bytes.Clone(data)
	bad[3] = 'x'
	checkOpenErr(t, "patched magic", bad, trace.ErrBadMagic, "offset 0")
	checkOpenErr(t, "text file", []byte("hello, this is not a trace at all\n"), trace.ErrBadMagic, "offset 0")
	checkOpenErr(t, "one byte", []byte{0}, trace.ErrBadMagic, "offset 0")
}

func TestOpenBadVersion(t *testing.T) {
	data := encode(t, testHeader, tameEvents(1, 10), nil)
	for _, v := range []byte{0, trace.Version + 1, 0x7f} {
		bad := bytes.Clone(data)
		bad[8] = v
		checkOpenErr(t, fmt.Sprintf("version %d", v), bad, trace.ErrVersion, "offset 8", fmt.Sprint("version ", v))
	}
}

// withHeaderLength rewrites data's header length field.
func withHeaderLength(data []byte, hlen uint64) []byte {
	_, n := binary.Uvarint(data[9:])
	out := binary.AppendUvarint(bytes.Clone(data[:9]), hlen)
	return append(out, data[9+n:]...)
}

func TestOpenHeaderPastEnd(t *testing.T) {
	data := encode(t, testHeader, tameEvents(1, 10), nil)
	for _, hlen := range []uint64{uint64(len(data)), uint64(len(data)) + 1000, math.MaxUint32, math.MaxUint64} {
		checkOpenErr(t, fmt.Sprintf("header length %d", hlen), withHeaderLength(data, hlen), trace.ErrTruncated, "offset")
	}
	// Regression (found in review, fixed): a header length near math.MaxInt64 overflows the bounds check
	// in Reader.section (off+n wraps negative), so Open calls
	// make([]byte, n) and panics ("makeslice: len out of range") instead of
	// failing with ErrTruncated.
	checkOpenErr(t, "header length MaxInt64-5", withHeaderLength(data, math.MaxInt64-5), trace.ErrTruncated, "offset")
}

func TestFrameChecksum(t *testing.T) {
	data, evs, l := multiFrame(t)
	f := l.frames[1]
	bad := bytes.Clone(data)
	bad[f.data+f.comp/2] ^= 0x55
	r := open(t, bad)
	if r.Len() != int64(len(evs)) || r.Truncated != nil {
		t.Fatalf("Len %d, Truncated %v: the index is intact", r.Len(), r.Truncated)
	}
	// Frames 0 and 2 read fine.
	for _, i := range []int64{0, f.first - 1, f.first + f.n, int64(len(evs)) - 1} {
		if e, err := r.Event(i); err != nil || e != evs[i] {
			t.Errorf("Event(%d) = %v, %v", i, e, err)
		}
	}
	_, err := r.Event(f.first + 10)
	if !errors.Is(err, trace.ErrCorrupt) {
		t.Fatalf("Event in the corrupt frame: %v; want ErrCorrupt", err)
	}
	for _, s := range []string{fmt.Sprintf("offset %d", f.off), "frame 1", fmt.Sprintf("events %d to %d", f.first, f.first+f.n-1), "checksum"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	all, err := r.ReadAll()
	if !errors.Is(err, trace.ErrCorrupt) || int64(len(all)) != f.first || !eventsEqual(all, evs[:f.first]) {
		t.Errorf("ReadAll: %d events, %v; want the %d events before the corrupt frame and ErrCorrupt", len(all), err, f.first)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); !errors.Is(err, trace.ErrCorrupt) || !strings.Contains(text.String(), "\n# error: ") {
		t.Errorf("WriteText: %v; text ends %q", err, text.String()[max(0, text.Len()-300):])
	}
	if _, err := r.SeekStep(evs[f.first+5].Step + 1); !errors.Is(err, trace.ErrCorrupt) {
		t.Errorf("SeekStep into the corrupt frame: %v", err)
	}
}

func TestCorruptIndex(t *testing.T) {
	data, evs, l := multiFrame(t)
	trailer := int64(len(data)) - 16
	cases := []struct {
		name     string
		patch    func(b []byte)
		sentinel error
	}{
		{"index marker", func(b []byte) { b[l.index] = 'X' }, trace.ErrCorrupt},
		{"frame offset", func(b []byte) { b[l.index+2] ^= 0x01 }, trace.ErrCorrupt},
		{"index offset past the end", func(b []byte) { binary.LittleEndian.PutUint64(b[trailer:], uint64(len(b))) }, trace.ErrCorrupt},
		{"index offset before the body", func(b []byte) { binary.LittleEndian.PutUint64(b[trailer:], 3) }, trace.ErrCorrupt},
		{"index offset into a frame", func(b []byte) { binary.LittleEndian.PutUint64(b[trailer:], uint64(l.frames[1].off+3)) }, trace.ErrCorrupt},
		{"trailer magic", func(b []byte) { b[len(b)-1] = 'z' }, trace.ErrTruncated},
		{"index frame count", func(b []byte) { b[l.index+1] = 0x7f }, trace.ErrCorrupt},
	}
	for _, c := range cases {
		bad := bytes.Clone(data)
		c.patch(bad)
		r, err, p := tryOpen(bad)
		if p != nil || err != nil {
			t.Errorf("%s: Open: %v, panic %v; want a fall back to scanning", c.name, err, p)
			continue
		}
		if r.Truncated == nil || !errors.Is(r.Truncated, c.sentinel) || !strings.Contains(r.Truncated.Error(), "offset") {
			t.Errorf("%s: Truncated = %v; want an error naming an offset, wrapping %v", c.name, r.Truncated, c.sentinel)
		}
		if r.Len() != int64(len(evs)) {
			t.Errorf("%s: Len %d, want %d", c.name, r.Len(), len(evs))
		}
		if r.Outcome == nil || *r.Outcome != *testOutcome {
			t.Errorf("%s: Outcome %+v", c.name, r.Outcome)
		}
		if all, err := r.ReadAll(); err != nil || !eventsEqual(all, evs) {
			t.Errorf("%s: ReadAll: %v, %s", c.name, err, firstDiff(all, evs))
		}
		if err := r.WriteText(io.Discard); err != nil {
			t.Errorf("%s: WriteText: %v", c.name, err)
		}
		r.Close()
	}
}

// TestIndexFirstEventGap: a frame header and the index that agree on a
// first event that leaves a gap after the frame before.
func TestIndexFirstEventGap(t *testing.T) {
	data, evs, l := multiFrame(t)
	bad := bytes.Clone(data)
	// Frame 1's header: 'F', then its first event, 16.
	f1 := l.frames[1].off
	if bad[f1+1] != 0x10 {
		t.Fatalf("frame 1 header % x", bad[f1:f1+3])
	}
	bad[f1+1] = 0x11 // 17
	// The index: 'I', count, then per frame offset, first and first step
	// deltas.
	pos := int(l.index) + 1
	skip := func() { _, n := binary.Uvarint(bad[pos:]); pos += n }
	skip() // count
	skip()
	skip()
	skip() // frame 0
	skip() // frame 1 offset delta
	if bad[pos] != 0x10 {
		t.Fatalf("index entry % x", bad[pos:pos+2])
	}
	bad[pos] = 0x11
	// Frame 2 keeps its first event, 32: its delta becomes 15.
	skip()
	skip() // frame 1 first step delta
	skip() // frame 2 offset delta
	if bad[pos] != 0x10 {
		t.Fatalf("index entry % x", bad[pos:pos+2])
	}
	bad[pos] = 0x0f
	r, err, p := tryOpen(bad)
	if p != nil {
		t.Fatalf("Open panicked: %v", p)
	}
	if err != nil {
		t.Logf("Open: %v", err)
		return // rejecting it is fine
	}
	defer r.Close()
	t.Logf("Len %d, Truncated %v", r.Len(), r.Truncated)
	for _, i := range []int64{0, 15, 16, 17, r.Len() - 1} {
		// Regression (found in review, fixed): readIndex checks that each frame header agrees with the
		// index on its first event, but not that frames are contiguous
		// (first == previous first + previous count). With a gap, Event(i)
		// for i in the gap picks frame 0 and indexes past the end of its
		// events: it panics instead of returning ErrCorrupt (or Open
		// rejecting the trace, or falling back to scanning).
		if p := safely(func() { r.Event(i) }); p != nil {
			t.Fatalf("Event(%d) panicked: %v", i, p)
		}
	}
	_ = evs
}

// TestTruncateEveryPrefix cuts a trace of three frames at every length.
func TestTruncateEveryPrefix(t *testing.T) {
	data, evs, l := multiFrame(t)
	t.Logf("%d bytes, %d events, body at %d, frames end at %d %d %d, footer at %d, index at %d",
		len(data), len(evs), l.body, l.frames[0].end, l.frames[1].end, l.frames[2].end, l.footer, l.index)
	var headerNotTruncated []string
	for cut := 0; cut <= len(data); cut++ {
		r, err, p := tryOpen(data[:cut])
		if p != nil {
			t.Fatalf("cut at %d: Open panicked: %v", cut, p)
		}
		if cut < int(l.body) {
			if err == nil {
				r.Close()
				t.Errorf("cut at %d, inside the header: Open succeeded", cut)
			} else if !errors.Is(err, trace.ErrTruncated) {
				headerNotTruncated = append(headerNotTruncated, fmt.Sprintf("cut at %d: %v", cut, err))
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d: Open: %v", cut, err)
		}
		// The complete frames before the cut.
		var complete, end int64 = 0, l.body
		for _, f := range l.frames {
			if f.end <= int64(cut) {
				complete, end = f.first+f.n, f.end
			}
		}
		switch {
		case cut == len(data):
			if r.Truncated != nil || r.Len() != int64(len(evs)) || r.Outcome == nil {
				t.Errorf("whole trace: Truncated %v, Len %d, Outcome %v", r.Truncated, r.Len(), r.Outcome)
			}
		case int64(cut) >= l.index:
			// Every frame and the outcome are there, the index is not.
			if r.Truncated == nil || r.Len() != int64(len(evs)) || r.Outcome == nil || *r.Outcome != *testOutcome {
				t.Errorf("cut at %d, in the index: Truncated %v, Len %d, Outcome %+v", cut, r.Truncated, r.Len(), r.Outcome)
			}
		default:
			if r.Len() != complete {
				t.Errorf("cut at %d: Len %d; want %d, the events of the frames ending before", cut, r.Len(), complete)
			}
			if r.Truncated == nil || !errors.Is(r.Truncated, trace.ErrTruncated) {
				t.Errorf("cut at %d: Truncated = %v; want ErrTruncated", cut, r.Truncated)
			}
			if r.Outcome != nil {
				t.Errorf("cut at %d: Outcome %+v", cut, r.Outcome)
			}
			if r.Missing != int64(cut)-end || (int64(cut) > end && r.Missing <= 0) {
				t.Errorf("cut at %d: Missing %d; want %d", cut, r.Missing, int64(cut)-end)
			}
			if cut < int(l.frames[0].end) && r.Len() != 0 {
				t.Errorf("cut at %d, in the first frame: Len %d", cut, r.Len())
			}
		}
		// Reading the events up to Len works: the last one always, all of
		// them now and then and near the frame ends.
		if n := r.Len(); n > 0 {
			if e, err := r.Event(n - 1); err != nil || e != evs[n-1] {
				t.Errorf("cut at %d: Event(%d) = %v, %v", cut, n-1, e, err)
			}
			if _, err := r.Event(n); err == nil {
				t.Errorf("cut at %d: Event(Len) succeeded", cut)
			}
			if cut%101 == 0 || int64(cut)-end < 3 {
				if all, err := r.ReadAll(); err != nil || !eventsEqual(all, evs[:n]) {
					t.Errorf("cut at %d: ReadAll: %v, %s", cut, err, firstDiff(all, evs[:n]))
				}
			}
		}
		r.Close()
	}
	if len(headerNotTruncated) > 0 {
		// Regression (found in review, fixed): a file cut inside its version or header length field (just
		// after the magic number) fails with ErrCorrupt ("bad or missing
		// version" / "header length") instead of ErrTruncated, which shorter
		// cuts (inside the magic) and longer ones (inside the header) get.
		t.Errorf("%d cuts inside the header are not reported as ErrTruncated:\n%s", len(headerNotTruncated), strings.Join(headerNotTruncated, "\n"))
	}
}

// Every byte of a trace is checked: one damaged bit anywhere makes opening
// or reading fail, or says the trace is cut short, and never gives other
// contents quietly. (In version 1 only the frames' compressed bytes were
// checked: a damaged header changed the options a replay ran with.)
func TestEveryByteIsChecked(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	h, o := genHeader(r), genOutcome(r)
	evs := tameEvents(3, 300)
	data := encode(t, h, evs, o)
	for i := range data {
		for _, bit := range []byte{0x01, 0x10, 0x80} {
			bad := bytes.Clone(data)
			bad[i] ^= bit
			rd, err, panicked := tryOpen(bad)
			if panicked != nil {
				t.Fatalf("byte %d: Open panicked: %v", i, panicked)
			}
			if err != nil {
				continue
			}
			// What Open says without reading the events is right, or it
			// says the trace is cut short.
			if rd.Truncated == nil && (rd.Len() != int64(len(evs)) || !headersEqual(&rd.Header, h) || !reflect.DeepEqual(rd.Outcome, o)) {
				t.Errorf("byte %d (of %d), bit %#x: opened as whole, with %d events, header or outcome changed", i, len(data), bit, rd.Len())
			}
			all, readErr := rd.ReadAll()
			detected := readErr != nil || rd.Truncated != nil
			if !detected && (!headersEqual(&rd.Header, h) || !reflect.DeepEqual(rd.Outcome, o) || !eventsEqual(all, evs)) {
				t.Errorf("byte %d (of %d), bit %#x: read back different contents without an error", i, len(data), bit)
			}
			rd.Close()
		}
	}
}

// A version 1 trace (written by this package before the checksums of
// version 2; testdata/v1.trace holds the contents TestEveryByteIsChecked
// writes) reads as it did.
func TestReadsVersion1(t *testing.T) {
	data, err := os.ReadFile("testdata/v1.trace")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := binary.Uvarint(data[8:]); v != 1 {
		t.Fatalf("testdata/v1.trace is version %d", v)
	}
	r := rand.New(rand.NewPCG(7, 7))
	h, o := genHeader(r), genOutcome(r)
	evs := tameEvents(3, 300)
	rd := open(t, data)
	defer rd.Close()
	all, err := rd.ReadAll()
	if err != nil || rd.Truncated != nil {
		t.Fatal(err, rd.Truncated)
	}
	if !headersEqual(&rd.Header, h) || !reflect.DeepEqual(rd.Outcome, o) || !eventsEqual(all, evs) {
		t.Error("version 1 read back different contents")
	}
	// Its frames' checksums still count: damage the first frame's
	// compressed bytes (after its marker and six varints).
	hl, n := binary.Uvarint(data[9:])
	frame := 9 + n + int(hl)
	if data[frame] != 'F' {
		t.Fatalf("no frame at offset %d", frame)
	}
	bad := bytes.Clone(data)
	bad[frame+30] ^= 0x10
	if rd, err, _ := tryOpen(bad); err == nil {
		if _, err := rd.ReadAll(); err == nil && rd.Truncated == nil {
			t.Error("a damaged frame of version 1 read without an error")
		}
	}
}

// A trace cut short keeps most of the events before the cut: frames grow
// with the trace, a quarter of the events before them at most, so the
// frame a cut falls in holds at most a fifth of the events up to its end.
// Regression (found by a user, fixed): every frame held 4096 events, and a
// run of fewer, cut anywhere, kept none.
func TestCutTraceKeepsMostEvents(t *testing.T) {
	for _, n := range []int{100, 1000, 3*trace.FrameEvents + 17} {
		evs := tameEvents(5, n)
		data := encode(t, testHeader, evs, testOutcome)
		l := parseLayout(t, data)
		for _, f := range l.frames[1:] {
			if f.n > max(16, f.first/4) {
				t.Errorf("%d events: the frame at event %d holds %d", n, f.first, f.n)
			}
		}
		for _, frac := range []float64{0.5, 0.75, 0.95} {
			cut := int(l.body) + int(frac*float64(l.footer-l.body))
			r, err := trace.Open(bytes.NewReader(data[:cut]), int64(cut))
			if err != nil {
				t.Fatal(err)
			}
			// The events before the cut: those of the frames that start
			// before it.
			before := int64(0)
			for _, f := range l.frames {
				if f.off < int64(cut) {
					before = f.first + f.n
				}
			}
			if r.Len()*5 < before*4-16*5 {
				t.Errorf("%d events cut at %.0f%%: %d read of the %d before the cut", n, 100*frac, r.Len(), before)
			}
			r.Close()
		}
	}
}

// A divergence report quotes a trace's strings (object labels, the files
// and functions of locations, the outcomes' messages), which a test binary
// prints to the terminal of whoever replays the trace: they come escaped.
// Regression (found in an attack, fixed): dstreplay exec of a crafted
// trace printed its escape sequences raw (clear screen, title, color).
func TestDivergenceEscapesTraceStrings(t *testing.T) {
	const evil = "x\x1b]0;PWNED\a\x1b[2J\r\nforged\x9b\xff"
	ev := trace.Event{Step: 3, G: 1, Kind: trace.KindOp, Op: 1, Obj: 7,
		Loc: trace.Location{File: "/src/" + evil + ".go", Line: 9, Func: "pkg." + evil}}
	other := ev
	other.Step = 4
	for _, d := range []*trace.Divergence{
		{Index: 2, Expected: &ev, Observed: &other, Labels: map[int32]string{7: "Mutex#7" + evil}},
		{Index: 2, ExpectedEnd: "deadlock: " + evil, ObservedEnd: "pass"},
	} {
		msg := d.Error()
		for _, c := range msg {
			if c == '\n' || c == ' ' {
				continue
			}
			if c < 0x20 || c == 0x7f || c >= 0x80 && c <= 0x9f || c == utf8.RuneError {
				t.Fatalf("the report holds %U:\n%q", c, msg)
			}
		}
		if strings.Contains(msg, "\nforged") {
			t.Errorf("a trace's newline forged a line of the report:\n%s", msg)
		}
	}
}
