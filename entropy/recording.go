package entropy

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
)

// Value is one value served, as recorded: the uid of the draw and the
// canonical value V (see the package documentation for each kind's V).
type Value struct {
	UID UID
	V   uint64
}

// Recording is the sequence of values a Source served, in request order.
// For a KindBytes value, V is the number of bytes and the bytes themselves
// are the next V bytes of Data: bytes values appear in Data in the same order
// as in Values.
//
// Each draw records a canonical V, and a replay maps any V, even an
// out-of-range mutated one, deterministically into the draw's range, so
// replay never fails:
//
//	Uint64        V = value               replay: V
//	Int64         V = uint64(value)       replay: int64(V)
//	IntRange      V = value - lo          replay: lo + V mod (hi-lo+1)
//	Bool, Stop    V = 1 or 0              replay: V != 0
//	Choice(n)     V = index               replay: V mod n
//	Weighted(w)   V = index               replay: V mod len(w), then on to the next positive weight
//	Bytes(n)      V = n, bytes to Data    replay: recorded bytes, cut or zero-padded to n
//
// A replay records the mapped value, not the input one, so replaying a
// replay's recording reproduces it exactly, and a replay that served every
// draw from its input records the input byte for byte.
//
// Stop says yes with probability 1/8 when fresh, and in both modes once the
// Source has said no more than its stop limit (default 1024) times it says
// yes from then on, so a loop that runs until Stop says yes always ends.
type Recording struct {
	Values []Value
	Data   []byte
}

// Sentinel errors returned (wrapped with context) by UnmarshalBinary and
// ParseHandle.
var (
	ErrBadMagic = errors.New("bad magic")
	ErrVersion  = errors.New("unsupported version")
	ErrCorrupt  = errors.New("corrupt recording")
	// ErrDamaged says a handle is not as Handle wrote it: its checksum
	// does not match, or it is not base64. A handle is copied by hand, and
	// a damaged one must not replay another recording.
	ErrDamaged = errors.New("the handle is damaged")
	// ErrNoChecksum says a handle is of the older form "e1", which has no
	// checksum: ParseHandle refuses it, since it cannot tell a damaged copy
	// from another recording (ParseStoredHandle reads it).
	ErrNoChecksum = errors.New("a handle of the older form \"e1\", without a checksum")
)

const (
	magic         = "dste"
	formatVersion = 1
	// handlePrefix starts a handle: "e" and the handle's version. Version 2
	// ends the bytes with their CRC-32; version 1 (legacyPrefix) had none.
	handlePrefix = "e2"
	legacyPrefix = "e1"
	checksumLen  = 4
)

// Len returns the number of values recorded.
func (r *Recording) Len() int { return len(r.Values) }

// Clone returns a deep copy of r, so the copy is unaffected by further draws
// on the Source that owns r.
func (r *Recording) Clone() *Recording {
	if r == nil {
		return nil
	}
	c := &Recording{}
	if len(r.Values) > 0 {
		c.Values = append([]Value(nil), r.Values...)
	}
	if len(r.Data) > 0 {
		c.Data = append([]byte(nil), r.Data...)
	}
	return c
}

// MarshalBinary encodes r compactly and canonically (equal recordings give
// equal bytes):
//
//	"dste" version(1)
//	uvarint(#uids) uvarint(uid)...             distinct uids, first-appearance order
//	uvarint(#values) (uvarint(uid index) uvarint(V))...
//	uvarint(len(Data)) Data
//
// Writing each uid once and then small indices keeps a recording of a long
// run to about two or three bytes per value.
func (r *Recording) MarshalBinary() ([]byte, error) {
	index := make(map[UID]uint64)
	var uids []UID
	for _, v := range r.Values {
		if _, ok := index[v.UID]; !ok {
			index[v.UID] = uint64(len(uids))
			uids = append(uids, v.UID)
		}
	}
	b := make([]byte, 0, len(magic)+1+3*binary.MaxVarintLen64+len(uids)*8+len(r.Values)*3+len(r.Data))
	b = append(b, magic...)
	b = append(b, formatVersion)
	b = binary.AppendUvarint(b, uint64(len(uids)))
	for _, u := range uids {
		b = binary.AppendUvarint(b, uint64(u))
	}
	b = binary.AppendUvarint(b, uint64(len(r.Values)))
	for _, v := range r.Values {
		b = binary.AppendUvarint(b, index[v.UID])
		b = binary.AppendUvarint(b, v.V)
	}
	b = binary.AppendUvarint(b, uint64(len(r.Data)))
	b = append(b, r.Data...)
	return b, nil
}

// UnmarshalBinary decodes the output of MarshalBinary into r, replacing its
// contents. It accepts only canonical encodings (distinct uids listed in
// first-appearance order, every uid used, minimal varints), so any input it
// accepts marshals back to the same bytes. Errors wrap ErrBadMagic,
// ErrVersion or ErrCorrupt and say where the problem is.
func (r *Recording) UnmarshalBinary(b []byte) error {
	if err := r.decode(b); err != nil {
		return fmt.Errorf("entropy: %w", err)
	}
	return nil
}

// decode is UnmarshalBinary without the package prefix on errors, so that
// ParseHandle can add its own.
func (r *Recording) decode(b []byte) error {
	if len(b) < len(magic) {
		if strings.HasPrefix(magic, string(b)) {
			return fmt.Errorf("input of %d bytes is shorter than the %d-byte magic: %w", len(b), len(magic), ErrCorrupt)
		}
		return fmt.Errorf("magic %q, want %q: %w", b, magic, ErrBadMagic)
	}
	if string(b[:len(magic)]) != magic {
		return fmt.Errorf("magic %q, want %q: %w", b[:len(magic)], magic, ErrBadMagic)
	}
	if len(b) == len(magic) {
		return fmt.Errorf("offset %d: truncated before the version byte: %w", len(b), ErrCorrupt)
	}
	if v := b[len(magic)]; v != formatVersion {
		return fmt.Errorf("offset %d: version %d, only version %d is supported: %w", len(magic), v, formatVersion, ErrVersion)
	}
	d := decoder{b: b, off: len(magic) + 1}

	// Counts are checked against the remaining input before allocating: every
	// uid takes at least one byte and every value at least two.
	nu, err := d.count("uid count", 1)
	if err != nil {
		return err
	}
	uids := make([]UID, nu)
	seen := make(map[UID]struct{}, nu)
	for i := range uids {
		off := d.off
		u, err := d.uvarint("uid", i)
		if err != nil {
			return err
		}
		if _, dup := seen[UID(u)]; dup {
			return fmt.Errorf("uid %d at offset %d: duplicate uid %v: %w", i, off, UID(u), ErrCorrupt)
		}
		seen[UID(u)] = struct{}{}
		uids[i] = UID(u)
	}

	nv, err := d.count("value count", 2)
	if err != nil {
		return err
	}
	var values []Value
	if nv > 0 {
		values = make([]Value, nv)
	}
	used := 0 // uids seen so far; canonical order means the next new one is uids[used]
	var dataNeed uint64
	for i := range values {
		off := d.off
		idx, err := d.uvarint("value uid index", i)
		if err != nil {
			return err
		}
		if idx >= uint64(len(uids)) {
			return fmt.Errorf("value %d at offset %d: uid index %d out of range (%d uids): %w", i, off, idx, len(uids), ErrCorrupt)
		}
		if idx > uint64(used) {
			return fmt.Errorf("value %d at offset %d: uid index %d appears before uid index %d (uids must be listed in first-appearance order): %w", i, off, idx, used, ErrCorrupt)
		}
		if idx == uint64(used) {
			used++
		}
		voff := d.off
		v, err := d.uvarint("value", i)
		if err != nil {
			return err
		}
		u := uids[idx]
		if u.Kind() == KindBytes {
			// Data's length is not known yet, but it cannot exceed what is left.
			if v > uint64(len(b)-d.off) || dataNeed+v > uint64(len(b)-d.off) {
				return fmt.Errorf("value %d at offset %d: bytes value of length %d overruns the input: %w", i, voff, v, ErrCorrupt)
			}
			dataNeed += v
		}
		values[i] = Value{UID: u, V: v}
	}
	if used != len(uids) {
		return fmt.Errorf("offset %d: %d uids listed but only %d used: %w", d.off, len(uids), used, ErrCorrupt)
	}

	off := d.off
	nd, err := d.count("data length", 1)
	if err != nil {
		return err
	}
	if nd != len(b)-d.off {
		return fmt.Errorf("offset %d: data length %d but %d bytes remain (trailing bytes): %w", off, nd, len(b)-d.off, ErrCorrupt)
	}
	if dataNeed > uint64(nd) {
		return fmt.Errorf("offset %d: bytes values need %d bytes of data, only %d present: %w", off, dataNeed, nd, ErrCorrupt)
	}
	var data []byte
	if nd > 0 {
		data = append([]byte(nil), b[d.off:]...)
	}
	r.Values, r.Data = values, data
	return nil
}

// decoder reads uvarints, tracking the offset for error messages.
type decoder struct {
	b   []byte
	off int
}

// uvarint reads one minimal uvarint. what and i (if >= 0) name the field.
func (d *decoder) uvarint(what string, i int) (uint64, error) {
	v, n := binary.Uvarint(d.b[d.off:])
	var problem string
	switch {
	case n == 0:
		problem = "truncated input"
	case n < 0:
		problem = "varint overflows 64 bits"
	case n > 1 && d.b[d.off+n-1] == 0:
		problem = "non-minimal varint"
	default:
		d.off += n
		return v, nil
	}
	if i >= 0 {
		return 0, fmt.Errorf("%s %d at offset %d: %s: %w", what, i, d.off, problem, ErrCorrupt)
	}
	return 0, fmt.Errorf("%s at offset %d: %s: %w", what, d.off, problem, ErrCorrupt)
}

// count reads a count of items that each take at least min bytes, rejecting
// counts the remaining input cannot hold (so a corrupt count cannot force a
// huge allocation).
func (d *decoder) count(what string, min int) (int, error) {
	off := d.off
	c, err := d.uvarint(what, -1)
	if err != nil {
		return 0, err
	}
	if room := uint64(len(d.b)-d.off) / uint64(min); c > room {
		return 0, fmt.Errorf("%s at offset %d: %d exceeds what the remaining %d bytes can hold: %w", what, off, c, len(d.b)-d.off, ErrCorrupt)
	}
	return int(c), nil
}

// Handle returns a one-line printable form of r, suitable for logs and
// command lines: "e2" followed by the unpadded URL-safe base64 of
// MarshalBinary and of the big-endian CRC-32 (IEEE) of those bytes, so that
// ParseHandle refuses a handle damaged in copying rather than replay another
// recording.
func (r *Recording) Handle() string {
	b, _ := r.MarshalBinary() // cannot fail
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return handlePrefix + base64.RawURLEncoding.EncodeToString(b)
}

// ParseHandle decodes a handle produced by Handle. Surrounding white space is
// ignored, since handles are often pasted from logs. A handle whose checksum
// does not match, which one character changed in copying it makes, is
// refused with an error wrapping ErrDamaged. A handle of the older form
// "e1", which has no checksum, is refused with an error wrapping
// ErrNoChecksum: running the test again prints one of the current form.
func ParseHandle(s string) (*Recording, error) {
	return parseHandle(s, false)
}

// ParseStoredHandle is ParseHandle for a handle that a program wrote in a
// file (a hunt's input file) rather than one a person copied: it also
// accepts the older form "e1" without a checksum, which files written
// before handles had one hold. A handle of the current form has its
// checksum verified as ParseHandle does.
func ParseStoredHandle(s string) (*Recording, error) {
	return parseHandle(s, true)
}

func parseHandle(s string, legacy bool) (*Recording, error) {
	s = strings.TrimSpace(s)
	show := s
	if len(show) > 12 {
		show = show[:12] + "..."
	}
	if rest, ok := strings.CutPrefix(s, legacyPrefix); ok {
		if !legacy {
			return nil, fmt.Errorf("entropy: handle %q is %w, which cannot tell a damaged copy from another recording: "+
				"run the test again for a handle of the current form (%q...)", show, ErrNoChecksum, handlePrefix)
		}
		b, err := base64.RawURLEncoding.DecodeString(rest)
		if err != nil {
			return nil, fmt.Errorf("entropy: handle: bad base64 after %q: %w", legacyPrefix, err)
		}
		return decodeHandle(b)
	}
	rest, ok := strings.CutPrefix(s, handlePrefix)
	if !ok {
		return nil, fmt.Errorf("entropy: handle %q does not start with %q", show, handlePrefix)
	}
	// Strict: a changed last character whose bits fall in the padding is
	// a damaged handle too.
	b, err := base64.RawURLEncoding.Strict().DecodeString(rest)
	if err != nil {
		return nil, fmt.Errorf("entropy: handle: %w: bad base64 after %q (%v); copy it again from the report", ErrDamaged, handlePrefix, err)
	}
	if len(b) < checksumLen {
		return nil, fmt.Errorf("entropy: handle: %w: too short to hold its checksum; copy it again from the report", ErrDamaged)
	}
	b, sum := b[:len(b)-checksumLen], b[len(b)-checksumLen:]
	if binary.BigEndian.Uint32(sum) != crc32.ChecksumIEEE(b) {
		return nil, fmt.Errorf("entropy: handle: %w: checksum mismatch; copy it again from the report", ErrDamaged)
	}
	return decodeHandle(b)
}

// decodeHandle decodes the bytes of a handle, its checksum removed.
func decodeHandle(b []byte) (*Recording, error) {
	r := &Recording{}
	if err := r.decode(b); err != nil {
		return nil, fmt.Errorf("entropy: handle: %w", err)
	}
	return r, nil
}
