package trace

import "encoding/binary"

// FrameEvents is how many events a frame holds. Frames are compressed
// independently, so a reader decodes one frame to reach any event.
const FrameEvents = 4096

// Event header byte: the kind in the low 4 bits, then flags that let the
// common case (same goroutine, next step, same time) cost one byte.
const (
	kindMask  = 0x0f
	flagStep  = 1 << 4 // the step is the previous event's
	flagTime  = 1 << 5 // the time is the previous event's
	flagSameG = 1 << 6 // the goroutine is the previous event's
	flagLoc   = 1 << 7 // a source location follows
)

// frame is one frame's events in their raw encoding, with the strings they
// refer to.
type frame struct {
	first     int64 // index of the frame's first event in the trace
	firstStep int64
	firstTime int64
	n         int
	strs      []string
	index     []int32 // open addressing over strs: string index + 1
	buf       []byte
	prevStep  int64
	prevTime  int64
	prevG     int32
}

// Buffer collects a run's events in their raw encoding. The engine appends
// to it from whichever managed goroutine is running, so every method is
// norace and uses slices only; compression happens later, in Write, in one
// goroutine.
type Buffer struct {
	frames []*frame
	cur    *frame
	events int64
}

// Len is the number of events in b.
//
//go:norace
func (b *Buffer) Len() int64 {
	if b == nil {
		return 0
	}
	return b.events
}

// Add appends e.
//
//go:norace
func (b *Buffer) Add(e *Event) {
	b.frameFor(e.Step, e.Time).add(e)
	b.events++
}

// AddOp appends a KindOp or KindBlock event: the common case, encoded
// without building an Event. loc may be nil.
//
//go:norace
func (b *Buffer) AddOp(k Kind, step int64, g int32, t int64, op uint8, obj int32, loc *Location) {
	f := b.frameFor(step, t)
	f.head(k, step, t, g, loc != nil && loc.File != "")
	f.buf = append(f.buf, op)
	f.buf = binary.AppendUvarint(f.buf, uint64(obj))
	if loc != nil && loc.File != "" {
		f.loc(loc)
	}
	f.n++
	b.events++
}

// AddArg appends an event of a kind whose only field is Arg (KindSpawn,
// KindWake, KindTimerFire), encoded without building an Event.
//
//go:norace
func (b *Buffer) AddArg(k Kind, step int64, g int32, t int64, arg int64) {
	f := b.frameFor(step, t)
	f.head(k, step, t, g, false)
	f.buf = binary.AppendVarint(f.buf, arg)
	f.n++
	b.events++
}

// AddSwitch appends a KindSwitch event from g to goroutine to, the choice
// choice out of n.
//
//go:norace
func (b *Buffer) AddSwitch(step int64, g int32, t int64, to int32, choice, n int64) {
	f := b.frameFor(step, t)
	f.head(KindSwitch, step, t, g, false)
	f.buf = binary.AppendVarint(f.buf, int64(to))
	f.buf = binary.AppendVarint(f.buf, choice)
	f.buf = binary.AppendVarint(f.buf, n)
	f.n++
	b.events++
}

//go:norace
func (b *Buffer) frameFor(step, t int64) *frame {
	if b.cur == nil || b.cur.n == FrameEvents {
		// Most events take 2 to 4 bytes: one allocation usually holds a
		// whole frame, instead of a dozen as the slice doubles.
		size := 4 * FrameEvents
		if b.cur != nil {
			size = len(b.cur.buf) + len(b.cur.buf)/8
		}
		b.cur = &frame{first: b.events, firstStep: step, firstTime: t, prevStep: step, prevTime: t, buf: make([]byte, 0, size)}
		b.frames = append(b.frames, b.cur)
	}
	return b.cur
}

// head writes an event's header byte and the step, time and goroutine
// that differ from the previous event's.
//
//go:norace
func (f *frame) head(k Kind, step, t int64, g int32, loc bool) {
	h := byte(k) & kindMask
	if step == f.prevStep {
		h |= flagStep
	}
	if t == f.prevTime {
		h |= flagTime
	}
	if g == f.prevG {
		h |= flagSameG
	}
	if loc {
		h |= flagLoc
	}
	f.buf = append(f.buf, h)
	if h&flagStep == 0 {
		f.buf = binary.AppendUvarint(f.buf, uint64(step-f.prevStep))
	}
	if h&flagTime == 0 {
		f.buf = binary.AppendUvarint(f.buf, uint64(t-f.prevTime))
	}
	if h&flagSameG == 0 {
		f.buf = binary.AppendUvarint(f.buf, uint64(g))
	}
	f.prevStep, f.prevTime, f.prevG = step, t, g
}

//go:norace
func (f *frame) loc(l *Location) {
	f.buf = binary.AppendUvarint(f.buf, uint64(f.intern(l.Func)))
	f.buf = binary.AppendUvarint(f.buf, uint64(f.intern(l.File)))
	f.buf = binary.AppendUvarint(f.buf, uint64(l.Line))
}

//go:norace
func (f *frame) add(e *Event) {
	f.head(e.Kind, e.Step, e.Time, e.G, e.Loc.File != "")
	for _, fd := range SpecOf(e.Kind).Fields {
		switch fd {
		case FieldOp:
			f.buf = append(f.buf, e.Op)
		case FieldObj:
			f.buf = binary.AppendUvarint(f.buf, uint64(e.Obj))
		case FieldArg:
			f.buf = binary.AppendVarint(f.buf, e.Arg)
		case FieldChoice:
			f.buf = binary.AppendVarint(f.buf, e.Choice)
		case FieldN:
			f.buf = binary.AppendVarint(f.buf, e.N)
		case FieldDur:
			f.buf = binary.AppendVarint(f.buf, e.Dur)
		case FieldText:
			f.buf = binary.AppendUvarint(f.buf, uint64(f.intern(e.Text)))
		}
	}
	if e.Loc.File != "" {
		f.loc(&e.Loc)
	}
	f.n++
}

// intern returns s's index in the frame's string table, adding it.
//
//go:norace
func (f *frame) intern(s string) int {
	if len(f.index) < 2*(len(f.strs)+1) {
		size := 64
		for size < 4*(len(f.strs)+1) {
			size *= 2 // a power of two: the probe masks with size-1
		}
		f.rehash(size)
	}
	mask := uint64(len(f.index) - 1)
	for j := hash(s) & mask; ; j = (j + 1) & mask {
		k := f.index[j]
		if k == 0 {
			f.strs = append(f.strs, s)
			f.index[j] = int32(len(f.strs))
			return len(f.strs) - 1
		}
		if f.strs[k-1] == s {
			return int(k - 1)
		}
	}
}

//go:norace
func (f *frame) rehash(size int) {
	f.index = make([]int32, size)
	mask := uint64(size - 1)
	for i, s := range f.strs {
		j := hash(s) & mask
		for f.index[j] != 0 {
			j = (j + 1) & mask
		}
		f.index[j] = int32(i + 1)
	}
}

// hash is FNV-1a, inline: this runs for every string field of every event.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// payload is the frame's uncompressed encoding: its string table, then its
// events.
func (f *frame) payload() []byte {
	var p []byte
	p = binary.AppendUvarint(p, uint64(len(f.strs)))
	for _, s := range f.strs {
		p = binary.AppendUvarint(p, uint64(len(s)))
		p = append(p, s...)
	}
	return append(p, f.buf...)
}
