package entropy_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"

	"github.com/dstgo/dst/entropy"
)

// richRecording returns a recording with every kind, bytes included.
func richRecording(seed uint64) *entropy.Recording {
	s := entropy.New(seed)
	workload(s)
	return s.Recording().Clone()
}

func TestMarshalRoundTrip(t *testing.T) {
	recs := []*entropy.Recording{
		{},
		richRecording(1),
		richRecording(2),
		{Values: []entropy.Value{v(0, 0, 0), v(255, 1<<56-1, 1<<64-1)}, Data: []byte("unused data")},
	}
	for i, r := range recs {
		b := marshal(t, r)
		var got entropy.Recording
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("recording %d: %v", i, err)
		}
		if got.Len() != r.Len() || !reflect.DeepEqual(got.Values, r.Values) && r.Len() > 0 || !bytes.Equal(got.Data, r.Data) {
			t.Errorf("recording %d: round trip changed it", i)
		}
		if again := marshal(t, &got); !bytes.Equal(again, b) {
			t.Errorf("recording %d: re-marshal differs", i)
		}
	}
	if got, want := marshal(t, &entropy.Recording{}), []byte("dste\x01\x00\x00\x00"); !bytes.Equal(got, want) {
		t.Errorf("empty recording = %q, want %q", got, want)
	}
	// Equal recordings built separately give equal bytes.
	if !bytes.Equal(marshal(t, richRecording(3)), marshal(t, richRecording(3))) {
		t.Errorf("equal recordings marshal differently")
	}
	// Unmarshal replaces previous contents.
	r := richRecording(4)
	if err := r.UnmarshalBinary(marshal(t, &entropy.Recording{})); err != nil || r.Len() != 0 || len(r.Data) != 0 {
		t.Errorf("unmarshal into a used recording: err %v, %d values, %d bytes", err, r.Len(), len(r.Data))
	}
}

func TestMarshalLayout(t *testing.T) {
	a := entropy.MakeUID(entropy.KindChoice, 5)
	b := entropy.MakeUID(entropy.KindBytes, 6)
	r := &entropy.Recording{
		Values: []entropy.Value{{a, 3}, {b, 2}, {a, 300}},
		Data:   []byte("hi"),
	}
	want := []byte("dste\x01")
	want = binary.AppendUvarint(want, 2)
	want = binary.AppendUvarint(want, uint64(a))
	want = binary.AppendUvarint(want, uint64(b))
	want = append(want, 3, 0, 3, 1, 2, 0)
	want = binary.AppendUvarint(want, 300)
	want = append(want, 2, 'h', 'i')
	if got := marshal(t, r); !bytes.Equal(got, want) {
		t.Errorf("marshal = %x\n   want %x", got, want)
	}
}

// build assembles an encoding from uvarints, for crafting bad inputs.
func build(head string, nums ...uint64) []byte {
	b := []byte(head)
	for _, n := range nums {
		b = binary.AppendUvarint(b, n)
	}
	return b
}

func TestUnmarshalErrors(t *testing.T) {
	bu := uint64(entropy.MakeUID(entropy.KindBytes, 1))
	cu := uint64(entropy.MakeUID(entropy.KindChoice, 1))
	tests := []struct {
		name string
		in   []byte
		want error
		msg  string
	}{
		{"empty", nil, entropy.ErrCorrupt, "shorter than"},
		{"short magic", []byte("ds"), entropy.ErrCorrupt, "shorter than"},
		{"short wrong magic", []byte("x"), entropy.ErrBadMagic, "magic"},
		{"wrong magic", []byte("dstx\x01\x00\x00\x00"), entropy.ErrBadMagic, `"dstx"`},
		{"no version", []byte("dste"), entropy.ErrCorrupt, "version"},
		{"version 2", []byte("dste\x02\x00\x00\x00"), entropy.ErrVersion, "version 2, only version 1"},
		{"version 0", []byte("dste\x00\x00\x00\x00"), entropy.ErrVersion, "version 0"},
		{"trailing", []byte("dste\x01\x00\x00\x00\x00"), entropy.ErrCorrupt, "trailing"},
		{"huge uid count", build("dste\x01", 1<<62), entropy.ErrCorrupt, "uid count at offset 5"},
		{"max uid count", build("dste\x01", 1<<64-1, 1, 2, 3), entropy.ErrCorrupt, "uid count"},
		{"huge value count", build("dste\x01", 1, cu, 1<<62, 0, 0), entropy.ErrCorrupt, "value count"},
		{"huge data length", build("dste\x01", 0, 0, 1<<62, 1), entropy.ErrCorrupt, "data length"},
		{"short data", build("dste\x01", 0, 0, 3, 1), entropy.ErrCorrupt, "data length"},
		{"uid index", build("dste\x01", 1, cu, 1, 1, 0, 0), entropy.ErrCorrupt, "value 0 at offset 16: uid index 1 out of range (1 uids)"},
		{"duplicate uid", build("dste\x01", 2, cu, cu, 2, 0, 0, 1, 0, 0), entropy.ErrCorrupt, "duplicate"},
		{"unused uid", build("dste\x01", 2, cu, bu, 1, 0, 0, 0), entropy.ErrCorrupt, "used"},
		{"out of order", build("dste\x01", 2, cu, bu, 2, 1, 0, 0, 0, 0), entropy.ErrCorrupt, "first-appearance"},
		{"bytes overrun", build("dste\x01", 1, bu, 1, 0, 5, 2, 'h', 'i'), entropy.ErrCorrupt, "bytes"},
		{"bytes need", build("dste\x01", 1, bu, 2, 0, 2, 0, 2, 3, 'a', 'b', 'c'), entropy.ErrCorrupt, "need 4 bytes"},
		{"non-minimal", []byte("dste\x01\x80\x00\x00\x00"), entropy.ErrCorrupt, "non-minimal"},
		{"overflow", append([]byte("dste\x01"), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0), entropy.ErrCorrupt, "overflows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r entropy.Recording
			err := r.UnmarshalBinary(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "entropy: ") || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q, want an entropy: message containing %q", err, tt.msg)
			}
		})
	}
}

func TestUnmarshalTruncated(t *testing.T) {
	full := marshal(t, richRecording(5))
	for n := 0; n < len(full); n++ {
		var r entropy.Recording
		if err := r.UnmarshalBinary(full[:n]); !errors.Is(err, entropy.ErrCorrupt) {
			t.Fatalf("prefix of %d/%d bytes: error %v, want ErrCorrupt", n, len(full), err)
		}
	}
	// A corrupt input leaves the recording untouched.
	r := richRecording(6)
	before := marshal(t, r)
	if err := r.UnmarshalBinary(full[:len(full)-1]); err == nil {
		t.Fatal("no error")
	}
	if !bytes.Equal(marshal(t, r), before) {
		t.Errorf("failed unmarshal modified the recording")
	}
}

// handleOf is a handle of the current form of the bytes b, valid or not,
// with a correct checksum.
func handleOf(b []byte) string {
	return "e2" + base64.RawURLEncoding.EncodeToString(binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b)))
}

func TestHandle(t *testing.T) {
	r := richRecording(7)
	h := r.Handle()
	if !strings.HasPrefix(h, "e2") || strings.ContainsAny(h, " \n\t=+/") {
		t.Errorf("handle %q is not one printable URL-safe token", h[:20])
	}
	got, err := entropy.ParseHandle(h)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(marshal(t, got), marshal(t, r)) {
		t.Errorf("handle round trip changed the recording")
	}
	if got, err := entropy.ParseHandle("  " + h + "\n"); err != nil || got.Len() != r.Len() {
		t.Errorf("handle with white space: %v", err)
	}
	if h := (&entropy.Recording{}).Handle(); h != handleOf([]byte("dste\x01\x00\x00\x00")) {
		t.Errorf("empty handle %q", h)
	}

	for _, tt := range []struct {
		in, msg string
		is      error
	}{
		{"", `start with "e2"`, nil},
		{"x1abc", `start with "e2"`, nil},
		{"e3" + h[2:], `start with "e2"`, nil},
		{"e2!!!", "base64", entropy.ErrDamaged},
		{"e2" + base64.StdEncoding.EncodeToString([]byte("dste\x01\x00\x00\x00\x01\x02")), "base64", entropy.ErrDamaged},
		{"e2AAA", "too short", entropy.ErrDamaged},
		{handleOf([]byte("nope\x01\x00\x00\x00")), "magic", entropy.ErrBadMagic},
		{handleOf([]byte("dste\x07")), "version 7", entropy.ErrVersion},
		{handleOf([]byte("dste\x01\x05")), "handle", entropy.ErrCorrupt},
		{h[:len(h)-3], "checksum mismatch", entropy.ErrDamaged},
		{"e1" + base64.RawURLEncoding.EncodeToString(marshal(t, r)), "without a checksum", entropy.ErrNoChecksum},
	} {
		_, err := entropy.ParseHandle(tt.in)
		if err == nil || !strings.HasPrefix(err.Error(), "entropy: handle") || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseHandle(%.12q): error %v, want one about %q", tt.in, err, tt.msg)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("ParseHandle(%.12q): error %v, want %v", tt.in, err, tt.is)
		}
	}
}

// A handle with one character changed, dropped or added, as copying it by
// hand may do, is refused with a clear error: it never replays another
// recording.
func TestDamagedHandleIsRefused(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	small := func(seed uint64) *entropy.Recording {
		s := entropy.New(seed)
		s.At(entropy.KeyOf("n")).IntRange(0, 1000)
		s.At(entropy.KeyOf("b")).Bytes(3)
		s.At(entropy.KeyOf("ok")).Bool(0.5)
		return s.Recording()
	}
	for i, r := range []*entropy.Recording{{}, small(1), small(2), richRecording(3)} {
		h := r.Handle()
		substitutes := alphabet // every character, every substitute
		if len(h) > 100 {
			substitutes = "A_" // a long handle: every character, two substitutes
		}
		n := i
		refused := func(what, damaged string) {
			t.Helper()
			if damaged == h {
				return
			}
			_, err := entropy.ParseHandle(damaged)
			if err == nil {
				t.Fatalf("recording %d: the handle with %s was accepted", n, what)
			}
			if strings.HasPrefix(damaged, "e2") && !errors.Is(err, entropy.ErrDamaged) {
				t.Fatalf("recording %d: the handle with %s: error %v, want it to say the handle is damaged", n, what, err)
			}
			if strings.HasPrefix(damaged, "e2") && !strings.Contains(err.Error(), "copy it again from the report") {
				t.Fatalf("recording %d: the handle with %s: error %v does not say what to do", n, what, err)
			}
		}
		for i := 2; i < len(h); i++ { // every character after the prefix
			for _, c := range substitutes {
				refused(fmt.Sprintf("character %d changed to %c", i, c), h[:i]+string(c)+h[i+1:])
			}
			refused(fmt.Sprintf("character %d dropped", i), h[:i]+h[i+1:])
			refused(fmt.Sprintf("a character added at %d", i), h[:i]+"A"+h[i:])
		}
		for i := range 2 { // the prefix
			refused(fmt.Sprintf("character %d changed", i), h[:i]+"x"+h[i+1:])
		}
	}
}

// An older handle, without a checksum, is refused on the command line
// (ParseHandle) but still read from a file (ParseStoredHandle).
func TestOlderHandle(t *testing.T) {
	r := richRecording(1)
	old := "e1" + base64.RawURLEncoding.EncodeToString(marshal(t, r))
	_, err := entropy.ParseHandle(old)
	if !errors.Is(err, entropy.ErrNoChecksum) || !strings.Contains(err.Error(), "run the test again") {
		t.Fatalf("ParseHandle of an older handle: %v, want a refusal that says what to do", err)
	}
	got, err := entropy.ParseStoredHandle(old)
	if err != nil || !bytes.Equal(marshal(t, got), marshal(t, r)) {
		t.Fatalf("ParseStoredHandle of an older handle: %v", err)
	}
	got, err = entropy.ParseStoredHandle(r.Handle())
	if err != nil || !bytes.Equal(marshal(t, got), marshal(t, r)) {
		t.Fatalf("ParseStoredHandle of a current handle: %v", err)
	}
	h := r.Handle()
	c := "A"
	if h[5] == 'A' {
		c = "B"
	}
	if _, err := entropy.ParseStoredHandle(h[:5] + c + h[6:]); !errors.Is(err, entropy.ErrDamaged) {
		t.Fatalf("ParseStoredHandle of a damaged handle: %v, want ErrDamaged", err)
	}
}

func FuzzUnmarshal(f *testing.F) {
	for seed := uint64(0); seed < 4; seed++ {
		b, _ := richRecording(seed).MarshalBinary()
		f.Add(b)
	}
	b, _ := (&entropy.Recording{}).MarshalBinary()
	f.Add(b)
	f.Add([]byte("dste\x01\x01\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var r entropy.Recording
		if err := r.UnmarshalBinary(in); err != nil {
			if !errors.Is(err, entropy.ErrCorrupt) && !errors.Is(err, entropy.ErrBadMagic) && !errors.Is(err, entropy.ErrVersion) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		out, err := r.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		// Only canonical encodings are accepted, so the round trip is exact.
		if !bytes.Equal(out, in) {
			t.Fatalf("unmarshal+marshal changed the bytes:\n in %x\nout %x", in, out)
		}
		var r2 entropy.Recording
		if err := r2.UnmarshalBinary(out); err != nil {
			t.Fatalf("re-unmarshal: %v", err)
		}
		if !reflect.DeepEqual(r, r2) {
			t.Fatalf("re-unmarshal differs")
		}
		// Whatever decodes also replays without panicking.
		s := entropy.Replay(&r)
		for _, x := range r.Values {
			d := s.At(x.UID.Key())
			switch x.UID.Kind() {
			case entropy.KindBytes:
				d.Bytes(3)
			case entropy.KindRange:
				d.IntRange(-2, 2)
			default:
				d.Choice(3)
			}
		}
	})
}
