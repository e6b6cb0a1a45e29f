package event

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Clip bounds a string at MaxString bytes, whole characters, saying how
// long it was; it leaves shorter ones alone and is the same applied twice.
func TestClip(t *testing.T) {
	for _, s := range []string{"", "short", strings.Repeat("a", MaxString), strings.Repeat("a", MaxString+1),
		strings.Repeat("é", MaxString), strings.Repeat("€", 3*MaxString+1), strings.Repeat("x", 1<<20)} {
		c := Clip(s)
		if len(s) <= MaxString {
			if c != s {
				t.Errorf("Clip of %d bytes changed it", len(s))
			}
			continue
		}
		if len(c) > MaxString || !utf8.ValidString(c) || !strings.HasSuffix(c, " bytes in all]") || Clip(c) != c {
			t.Errorf("Clip of %d bytes: %d bytes, valid UTF-8 %v, ends %q", len(s), len(c), utf8.ValidString(c), c[max(0, len(c)-40):])
		}
		if want := s[:len(c)-len(c[strings.LastIndex(c, "…"):])]; !strings.HasPrefix(c, want) {
			t.Errorf("Clip of %d bytes is not its beginning", len(s))
		}
	}
}

// decodeOne decodes the frame f's events.
func decodeOne(t *testing.T, f *Frame) []Event {
	t.Helper()
	evs, err := DecodeFrame(&Cursor{B: f.AppendPayload(nil)}, f.First, int64(f.N), f.FirstStep, f.FirstTime)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// The strings of events are clipped when recorded and when read: a frame's
// string may be named by each of its events, and a trace read by
// dstreplay is untrusted, so a string of 250 MB named 4096 times was a
// terabyte to print or hash.
// Regression (found in an attack, fixed): show wrote 1 GB from a trace of
// 2.5 KB.
func TestStringsAreClipped(t *testing.T) {
	long := strings.Repeat("z", 1<<20)
	f := NewFrame(0, 0, 0, 0)
	f.Commit(f.Add(&Event{Kind: KindLog, G: 1, Text: long, Loc: Location{File: "/" + long + ".go", Func: "p." + long, Line: 1}}))
	evs := decodeOne(t, f)
	if len(evs) != 1 {
		t.Fatalf("decoded %d events, want 1", len(evs))
	}
	for _, ev := range evs {
		for _, s := range []string{ev.Text, ev.Loc.File, ev.Loc.Func} {
			if len(s) > MaxString || !strings.Contains(s, "[cut: ") {
				t.Errorf("recorded: a string of %d bytes, want it clipped", len(s))
			}
		}
	}
	// A frame not written by this package's writer: its table holds the
	// long string itself.
	g := NewFrame(0, 0, 0, 0)
	g.Commit(g.Add(&Event{Kind: KindLog, G: 1, Text: "placeholder"}))
	g.Commit(g.Add(&Event{Kind: KindLog, G: 1, Text: "placeholder"}))
	g.strs[0] = long
	if evs := decodeOne(t, g); len(evs) != 2 {
		t.Fatalf("decoded %d events, want 2", len(evs))
	}
	for _, ev := range decodeOne(t, g) {
		if len(ev.Text) > MaxString || ev.Text != Clip(long) {
			t.Errorf("read: a string of %d bytes, want it clipped as the writer clips", len(ev.Text))
		}
	}
}
