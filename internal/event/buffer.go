package event

import (
	"encoding/binary"
	"fmt"
)

// FrameEvents is how many events a frame holds at most (see FrameSize). Frames are compressed
// independently, so a reader decodes one frame to reach any event.
const FrameEvents = 4096

// Event header byte: the kind in the low 4 bits, then flags that let the
// common case (same goroutine, next step, same time) cost one byte. A kind
// past the 4 bits (version 4 on) has 0 there, and its own byte after the
// header.
const (
	kindMask  = 0x0f
	flagStep  = 1 << 4 // the step is the previous event's
	flagTime  = 1 << 5 // the time is the previous event's
	flagSameG = 1 << 6 // the goroutine is the previous event's
	flagLoc   = 1 << 7 // a source location follows
)

// Frame is one frame's events in their raw encoding, with the strings they
// refer to.
type Frame struct {
	First     int64 // index of the frame's first event in the trace
	FirstStep int64
	FirstTime int64
	N         int // events in the frame
	size      int // events it may hold (FrameSize)
	strs      []string
	index     []int32 // open addressing over strs: string index + 1
	buf       []byte
	prevStep  int64
	prevTime  int64
	prevG     int32
}

// Buffer collects a run's events in their raw encoding. The engine appends
// to it from whichever managed goroutine is running, so every method is
// norace and uses slices only; compression happens later, in package
// trace's Writer, in one goroutine.
type Buffer struct {
	frames []*Frame
	cur    *Frame
	events int64
	stream func(*Frame) // see StreamTo
}

// Frames returns the frames collected in b, in order.
func (b *Buffer) Frames() []*Frame {
	if b == nil {
		return nil
	}
	return b.frames
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
	f := b.frameFor(e.Step, e.Time)
	f.Commit(f.Add(e))
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
	if loc == nil && b.put(k, step, g, t, 2, uint64(op), uint64(obj), 0) {
		return
	}
	e := Event{Kind: k, Step: step, G: g, Time: t, Op: op, Obj: obj}
	if loc != nil {
		e.Loc = *loc
	}
	b.Add(&e)
}

// numFields is how many fields each kind has, and argsKind which kinds
// AddArgs takes: those whose fields are all signed numbers.
var numFields, argsKind = func() (n [numKinds]uint8, args [numKinds]bool) {
	for k, s := range specs {
		n[k] = uint8(len(s.Fields))
		args[k] = k != int(KindInvalid) && len(s.Fields) <= 2
		for _, fd := range s.Fields {
			if fd == FieldOp || fd == FieldObj || fd == FieldText {
				args[k] = false
			}
		}
	}
	return n, args
}()

// AddArgs appends an event of a kind whose fields are all numbers other
// than an object (KindSpawn, KindExit, KindWake, KindClock, KindTimerSet,
// KindTimerFire, KindSelect), encoded without building an Event: x and y
// are its first and second field in the order of its spec, and are
// ignored where it has fewer.
//
//go:norace
func (b *Buffer) AddArgs(k Kind, step int64, g int32, t int64, x, y int64) {
	if k >= numKinds || !argsKind[k] {
		panic(fmt.Sprintf("event: AddArgs of a %s event, whose fields are not all numbers", k))
	}
	if b.put(k, step, g, t, int(numFields[k]), zigzag(x), zigzag(y), 0) {
		return
	}
	e := Event{Kind: k, Step: step, G: g, Time: t}
	vals := [2]int64{x, y}
	for i, fd := range specs[k].Fields {
		switch fd {
		case FieldArg:
			e.Arg = vals[i]
		case FieldChoice:
			e.Choice = vals[i]
		case FieldN:
			e.N = vals[i]
		case FieldDur:
			e.Dur = vals[i]
		}
	}
	b.Add(&e)
}

// AddSwitch appends a KindSwitch event from g to goroutine to, the choice
// choice out of n.
//
//go:norace
func (b *Buffer) AddSwitch(step int64, g int32, t int64, to int32, choice, n int64) {
	if !b.put(KindSwitch, step, g, t, 3, zigzag(int64(to)), zigzag(choice), zigzag(n)) {
		b.Add(&Event{Kind: KindSwitch, Step: step, G: g, Time: t, Arg: int64(to), Choice: choice, N: n})
	}
}

// put is the encoding of the common event, without a location, whose
// step, time and goroutine are close to the previous event's and whose
// fields are small: nf fields x, y, z (0 past nf), each already in the
// form its encoding takes (an operation's byte, an object's uvarint, a
// zigzag for signed ones), each below 0x80 and so one byte.
// It writes the event with few branches that depend on the data, which
// mispredict. It returns false, having written nothing, when the event is
// not of that kind, or when the frame is full or short of room, or b
// streams; the caller then adds it as an Event.
//
//go:norace
func (b *Buffer) put(k Kind, step int64, g int32, t int64, nf int, x, y, z uint64) bool {
	f := b.cur
	if f == nil || b.stream != nil || k > kindMask {
		return false
	}
	n := len(f.buf)
	ds := uint64(step - f.prevStep)
	dt := uint64(t - f.prevTime)
	if ds|dt|uint64(g)|x|y|z >= 0x80 || f.N == f.size || cap(f.buf)-n < 8 {
		return false
	}
	w := (*[8]byte)(f.buf[n : n+8])
	// Each of these is 1 where the event differs from the previous one,
	// and the header's flag says where it does not.
	nds, ndt, ndg := nonzero(ds), nonzero(dt), nonzero(uint64(uint32(g^f.prevG)))
	w[0] = byte(k)&kindMask | byte(nds^1)<<4 | byte(ndt^1)<<5 | byte(ndg^1)<<6
	i := 1
	w[i&7] = byte(ds)
	i += nds
	w[i&7] = byte(dt)
	i += ndt
	w[i&7] = byte(g)
	i += ndg
	w[i&7] = byte(x)
	w[(i+1)&7] = byte(y)
	w[(i+2)&7] = byte(z)
	f.buf = f.buf[:n+i+nf]
	f.prevStep, f.prevTime, f.prevG = step, t, g
	f.N++
	b.events++
	return true
}

// push appends v to s as append does, but growing it element by element:
// the append and copy builtins report their accesses to the race detector
// even in a norace function, and the goroutines that record into a buffer
// are not ordered for it.
//
//go:norace
func push[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		grown := make([]T, len(s), 2*cap(s)+4)
		for i, x := range s {
			grown[i] = x
		}
		s = grown
	}
	s = s[:len(s)+1]
	s[len(s)-1] = v
	return s
}

// nonzero is 1 if v is not 0, else 0, without a branch.
func nonzero(v uint64) int { return int((v | -v) >> 63) }

// zigzag is v in the form binary.PutVarint writes as an unsigned varint.
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

//go:norace
func (b *Buffer) frameFor(step, t int64) *Frame {
	if b.cur == nil || b.cur.Full() {
		// Most events take 2 to 4 bytes: one allocation usually holds a
		// whole frame, instead of a dozen as the slice doubles.
		size := 4 * FrameEvents
		if b.cur != nil {
			size = len(b.cur.buf) + len(b.cur.buf)/8
		}
		b.cur = NewFrame(b.events, step, t, size)
		b.frames = push(b.frames, b.cur)
	}
	return b.cur
}

// NewFrame returns an empty frame whose first event is the trace's event
// first, at step and virtual time t, with room for size bytes of events.
func NewFrame(first, step, t int64, size int) *Frame {
	return &Frame{First: first, FirstStep: step, FirstTime: t, prevStep: step, prevTime: t,
		size: FrameSize(first), buf: make([]byte, 0, max(size, maxEventBytes))}
}

// Full reports whether the frame holds as many events as it may.
func (f *Frame) Full() bool { return f.N >= f.size }

// FrameSize is how many events the frame that starts at event first may
// hold: a quarter of the events before it, from 16 up to FrameEvents. A
// trace cut short is read up to its last whole frame, so it keeps at least
// four fifths of the events before the cut (all but the first 16), while a
// long trace's frames are FrameEvents long and compress as well as ever.
func FrameSize(first int64) int { return int(min(FrameEvents, max(16, first/4))) }

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
func (f *Frame) room() []byte {
	if cap(f.buf)-len(f.buf) < maxEventBytes {
		grown := make([]byte, len(f.buf), 2*cap(f.buf)+maxEventBytes)
		// Byte by byte: the copy builtin reports its accesses to the race
		// detector even in a norace function, and the goroutines that
		// record into a frame are not ordered for it (see the package doc).
		for i, c := range f.buf {
			grown[i] = c
		}
		f.buf = grown
	}
	return f.buf[len(f.buf):cap(f.buf)]
}

// Commit counts an event of n bytes written into room's space.
//
//go:norace
func (f *Frame) Commit(n int) {
	f.buf = f.buf[:len(f.buf)+n]
	f.N++
}

// head writes an event's header byte into w, then the step, time and
// goroutine that differ from the previous event's, and returns how many
// bytes it wrote.
//
//go:norace
func (f *Frame) head(w []byte, k Kind, step, t int64, g int32, loc bool) int {
	h := byte(k)
	if k > kindMask {
		h = 0 // the kind's byte follows
	}
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
	if k > kindMask {
		w[1] = byte(k)
		i++
	}
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
func (f *Frame) loc(w []byte, l *Location) int {
	i := binary.PutUvarint(w, uint64(f.intern(l.Func)))
	i += binary.PutUvarint(w[i:], uint64(f.intern(l.File)))
	return i + binary.PutUvarint(w[i:], uint64(l.Line))
}

// Add writes e into f.room's space and returns its length.
//
//go:norace
func (f *Frame) Add(e *Event) int {
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
	return i
}

// intern returns s's index in the frame's string table, adding it.
//
//go:norace
func (f *Frame) intern(s string) int {
	if len(s) > MaxString {
		s = Clip(s)
	}
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
			f.strs = push(f.strs, s)
			f.index[j] = int32(len(f.strs))
			return len(f.strs) - 1
		}
		if f.strs[k-1] == s {
			return int(k - 1)
		}
	}
}

//go:norace
func (f *Frame) rehash(size int) {
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

// AppendPayload appends the frame's uncompressed encoding to p: its string
// table, then its events.
func (f *Frame) AppendPayload(p []byte) []byte {
	p = binary.AppendUvarint(p, uint64(len(f.strs)))
	for _, s := range f.strs {
		p = binary.AppendUvarint(p, uint64(len(s)))
		p = append(p, s...)
	}
	return append(p, f.buf...)
}
