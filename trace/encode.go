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
	stream *Writer // see StreamTo
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
	if b.stream != nil {
		b.streamOut()
	}
}

// AddOp appends a KindOp or KindBlock event: the common case, encoded
// without building an Event. loc may be nil.
//
//go:norace
func (b *Buffer) AddOp(k Kind, step int64, g int32, t int64, op uint8, obj int32, loc *Location) {
	f := b.frameFor(step, t)
	hasLoc := loc != nil && loc.File != ""
	w := f.room()
	i := f.head(w, k, step, t, g, hasLoc)
	w[i] = op
	i++
	i += binary.PutUvarint(w[i:], uint64(obj))
	if hasLoc {
		i += f.loc(w[i:], loc)
	}
	f.commit(i)
	b.events++
	if b.stream != nil {
		b.streamOut()
	}
}

// AddArg appends an event of a kind whose only field is Arg (KindSpawn,
// KindWake, KindTimerFire), encoded without building an Event.
//
//go:norace
func (b *Buffer) AddArg(k Kind, step int64, g int32, t int64, arg int64) {
	f := b.frameFor(step, t)
	w := f.room()
	i := f.head(w, k, step, t, g, false)
	i += binary.PutVarint(w[i:], arg)
	f.commit(i)
	b.events++
	if b.stream != nil {
		b.streamOut()
	}
}

// AddSwitch appends a KindSwitch event from g to goroutine to, the choice
// choice out of n.
//
//go:norace
func (b *Buffer) AddSwitch(step int64, g int32, t int64, to int32, choice, n int64) {
	f := b.frameFor(step, t)
	w := f.room()
	i := f.head(w, KindSwitch, step, t, g, false)
	i += binary.PutVarint(w[i:], int64(to))
	i += binary.PutVarint(w[i:], choice)
	i += binary.PutVarint(w[i:], n)
	f.commit(i)
	b.events++
	if b.stream != nil {
		b.streamOut()
	}
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
		b.cur = &frame{first: b.events, firstStep: step, firstTime: t, prevStep: step, prevTime: t, buf: make([]byte, 0, max(size, maxEventBytes))}
		b.frames = append(b.frames, b.cur)
	}
	return b.cur
}

// maxEventBytes bounds one event's encoding: the header byte, three
// varints of 64 bits, up to five fields and a location of three more.
const maxEventBytes = 1 + 11*binary.MaxVarintLen64

// room returns the free space after the frame's bytes, at least
// maxEventBytes long, for an event to be written into and then committed.
// Writing into it and committing with a reslice of f.buf updates only the
// length: the slice's pointer is stored only when the buffer grows, so the
// garbage collector's write barrier, which a store of f.buf = append(...)
// pays for every byte while the collector marks, stays out of the path.
//
//go:norace
func (f *frame) room() []byte {
	if cap(f.buf)-len(f.buf) < maxEventBytes {
		grown := make([]byte, len(f.buf), 2*cap(f.buf)+maxEventBytes)
		copy(grown, f.buf)
		f.buf = grown
	}
	return f.buf[len(f.buf):cap(f.buf)]
}

// commit counts an event of n bytes written into room's space.
//
//go:norace
func (f *frame) commit(n int) {
	f.buf = f.buf[:len(f.buf)+n]
	f.n++
}

// head writes an event's header byte into w, then the step, time and
// goroutine that differ from the previous event's, and returns how many
// bytes it wrote.
//
//go:norace
func (f *frame) head(w []byte, k Kind, step, t int64, g int32, loc bool) int {
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
	w[0] = h
	i := 1
	if h&flagStep == 0 {
		i += binary.PutUvarint(w[i:], uint64(step-f.prevStep))
	}
	if h&flagTime == 0 {
		i += binary.PutUvarint(w[i:], uint64(t-f.prevTime))
	}
	if h&flagSameG == 0 {
		i += binary.PutUvarint(w[i:], uint64(g))
	}
	f.prevStep, f.prevTime, f.prevG = step, t, g
	return i
}

//go:norace
func (f *frame) loc(w []byte, l *Location) int {
	i := binary.PutUvarint(w, uint64(f.intern(l.Func)))
	i += binary.PutUvarint(w[i:], uint64(f.intern(l.File)))
	return i + binary.PutUvarint(w[i:], uint64(l.Line))
}

//go:norace
func (f *frame) add(e *Event) {
	w := f.room()
	i := f.head(w, e.Kind, e.Step, e.Time, e.G, e.Loc.File != "")
	for _, fd := range SpecOf(e.Kind).Fields {
		switch fd {
		case FieldOp:
			w[i] = e.Op
			i++
		case FieldObj:
			i += binary.PutUvarint(w[i:], uint64(e.Obj))
		case FieldArg:
			i += binary.PutVarint(w[i:], e.Arg)
		case FieldChoice:
			i += binary.PutVarint(w[i:], e.Choice)
		case FieldN:
			i += binary.PutVarint(w[i:], e.N)
		case FieldDur:
			i += binary.PutVarint(w[i:], e.Dur)
		case FieldText:
			i += binary.PutUvarint(w[i:], uint64(f.intern(e.Text)))
		}
	}
	if e.Loc.File != "" {
		i += f.loc(w[i:], &e.Loc)
	}
	f.commit(i)
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
