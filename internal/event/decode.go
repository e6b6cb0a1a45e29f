package event

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrCorrupt is bad input in a frame: package trace's ErrCorrupt.
var ErrCorrupt = errors.New("corrupt trace")

// Cursor decodes varints from a byte slice, remembering its offset in the
// file, so that an error says where: the first error sticks, and every
// later read returns zero values.
type Cursor struct {
	B   []byte
	Off int64 // file offset of B[0]
	Pos int
	Err error
}

// Fail records what went wrong at the current position, unless an error
// already did.
func (c *Cursor) Fail(what string, sentinel error) {
	if c.Err == nil {
		c.Err = fmt.Errorf("trace: offset %d: %s: %w", c.Off+int64(c.Pos), what, sentinel)
	}
}

// Uvarint reads an unsigned varint, what being its name for errors.
func (c *Cursor) Uvarint(what string) uint64 {
	if c.Err != nil {
		return 0
	}
	v, n := binary.Uvarint(c.B[c.Pos:])
	if n <= 0 {
		c.Fail("bad or missing "+what, ErrCorrupt)
		return 0
	}
	c.Pos += n
	return v
}

// Varint reads a signed varint.
func (c *Cursor) Varint(what string) int64 {
	if c.Err != nil {
		return 0
	}
	v, n := binary.Varint(c.B[c.Pos:])
	if n <= 0 {
		c.Fail("bad or missing "+what, ErrCorrupt)
		return 0
	}
	c.Pos += n
	return v
}

// Bytes reads n bytes.
func (c *Cursor) Bytes(n uint64, what string) []byte {
	if c.Err != nil {
		return nil
	}
	if n > uint64(len(c.B)-c.Pos) {
		c.Fail(fmt.Sprintf("%s of %d bytes runs past the end (%d left)", what, n, len(c.B)-c.Pos), ErrCorrupt)
		return nil
	}
	b := c.B[c.Pos : c.Pos+int(n)]
	c.Pos += int(n)
	return b
}

// Str reads a string: its uvarint length, then its bytes.
func (c *Cursor) Str(what string) string { return string(c.Bytes(c.Uvarint(what+" length"), what)) }

// DecodeFrame decodes the events of a frame's uncompressed encoding, read
// by c: n events, the first being the trace's event first, at firstStep and
// firstTime. Errors wrap ErrCorrupt and say which event and where.
func DecodeFrame(c *Cursor, first, n, firstStep, firstTime int64) ([]Event, error) {
	nstr := c.Uvarint("string count")
	if nstr > uint64(len(c.B)) {
		c.Fail(fmt.Sprintf("string count %d exceeds the frame", nstr), ErrCorrupt)
	}
	strs := make([]string, 0, min(nstr, uint64(len(c.B))))
	for i := uint64(0); i < nstr && c.Err == nil; i++ {
		// Clipped as the writer clips (MaxString): a trace not written
		// by it may hold longer ones.
		strs = append(strs, clipBytes(c.Bytes(c.Uvarint("string length"), "string")))
	}
	str := func(what string) string {
		i := c.Uvarint(what)
		if c.Err == nil && i >= uint64(len(strs)) {
			c.Fail(fmt.Sprintf("%s refers to string %d of %d", what, i, len(strs)), ErrCorrupt)
			return ""
		}
		if c.Err != nil {
			return ""
		}
		return strs[i]
	}
	evs := make([]Event, 0, n)
	step, t, g := firstStep, firstTime, int32(0)
	for k := int64(0); k < n && c.Err == nil; k++ {
		if c.Pos >= len(c.B) {
			return nil, fmt.Errorf("event %d: %d events expected, the frame ends after %d: %w", first+k, n, k, ErrCorrupt)
		}
		hb := c.B[c.Pos]
		c.Pos++
		e := Event{Kind: Kind(hb & kindMask)}
		if e.Kind == KindInvalid && c.Pos < len(c.B) && c.B[c.Pos] > kindMask {
			e.Kind = Kind(c.B[c.Pos]) // a kind past the header's bits
			c.Pos++
		}
		if e.Kind == KindInvalid || e.Kind >= numKinds {
			return nil, fmt.Errorf("event %d at offset %d: unknown kind %d: %w", first+k, c.Off+int64(c.Pos-1), e.Kind, ErrCorrupt)
		}
		if hb&flagStep == 0 {
			step += int64(c.Uvarint("step"))
		}
		if hb&flagTime == 0 {
			t += int64(c.Uvarint("time"))
		}
		if hb&flagSameG == 0 {
			g = int32(c.Uvarint("goroutine"))
		}
		e.Step, e.Time, e.G = step, t, g
		for _, fd := range SpecOf(e.Kind).Fields {
			switch fd {
			case FieldOp:
				if c.Pos >= len(c.B) {
					c.Fail("operation", ErrCorrupt)
					break
				}
				e.Op = c.B[c.Pos]
				c.Pos++
			case FieldObj:
				e.Obj = int32(c.Uvarint("object"))
			case FieldArg:
				e.Arg = c.Varint("argument")
			case FieldChoice:
				e.Choice = c.Varint("choice")
			case FieldN:
				e.N = c.Varint("count")
			case FieldDur:
				e.Dur = c.Varint("duration")
			case FieldText:
				e.Text = str("text")
			}
		}
		if hb&flagLoc != 0 {
			e.Loc.Func = str("function")
			e.Loc.File = str("file")
			e.Loc.Line = int(c.Uvarint("line"))
		}
		if c.Err != nil {
			return nil, fmt.Errorf("event %d: %w", first+k, c.Err)
		}
		evs = append(evs, e)
	}
	if c.Err != nil {
		return nil, c.Err
	}
	if c.Pos != len(c.B) {
		return nil, fmt.Errorf("offset %d: %d bytes after the last event: %w", c.Off+int64(c.Pos), len(c.B)-c.Pos, ErrCorrupt)
	}
	return evs, nil
}

// Events decodes the events collected in b, in order.
func (b *Buffer) Events() ([]Event, error) {
	var out []Event
	if b == nil {
		return nil, nil
	}
	for _, f := range b.frames {
		evs, err := DecodeFrame(&Cursor{B: f.AppendPayload(nil)}, f.First, int64(f.N), f.FirstStep, f.FirstTime)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	return out, nil
}
