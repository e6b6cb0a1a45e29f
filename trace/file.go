package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/dstgo/dst/internal/event"
)

// The file layout (versions 2 to 4):
//
//	magic "DSTTRACE", uvarint version
//	header: uvarint length, then key/value strings and the entropy
//	        recording; a CRC-32 of everything from the magic on
//	frames: 'F', uvarint first event, uvarint events, uvarint first step,
//	        varint first time, uvarint raw length, uvarint compressed
//	        length, the zstd frame; a CRC-32 of the frame from its 'F'
//	footer: 'O', uvarint length, the outcome's key/value strings; a CRC-32
//	        of the footer from its 'O'
//	index:  'I', uvarint frames, per frame: uvarint offset, first event,
//	        first step (each as a delta from the previous frame's), uvarint
//	        events in all; a CRC-32 of the index from its 'I'
//	trailer: the index's offset (8 bytes, little endian), "DSTEND\x00\x01"
//
// Every CRC-32 is IEEE, 4 bytes little endian: a damaged byte anywhere but
// in the trailer (whose offset is checked against the index) is an error
// that names its section, not a run that replays differently. A frame's
// prefix is read when the trace is opened, before its checksum is: the
// index's count of events checks the last frame's, which nothing after it
// does. Version 1 had a CRC-32 of each frame's zstd bytes only and no
// count of events; version 2 had no fail events (KindFail), version 3 no
// I/O events (KindIO, the first kind whose number is past an event
// header's four bits). All are still read; a reader of an earlier version
// refuses a later one with ErrVersion rather than misread its new events.
//
// Frames are independent, so a reader that has the index reaches any event
// by decoding one frame; a trace cut short (a crash while writing) is still
// read frame by frame up to its last complete frame.

const (
	magic        = "DSTTRACE"
	trailerMagic = "DSTEND\x00\x01"
	trailerSize  = 16
	// Version is the format version this package writes; it reads this one
	// and the earlier ones.
	Version = 4
)

// Sentinel errors for bad input; errors from this package wrap them with
// the offset and, where it applies, the event.
var (
	ErrBadMagic  = errors.New("not a trace (bad magic number)")
	ErrVersion   = errors.New("unsupported trace version")
	ErrCorrupt   = event.ErrCorrupt
	ErrTruncated = errors.New("truncated trace")
)

// Header describes the run a trace records: enough to know what it is and
// to replay it.
type Header struct {
	Package   string // import path of the test's package
	Test      string // the test's name, as -run takes it
	GoVersion string
	GOOS      string
	GOARCH    string
	Module    string // the module's version, when known
	Strategy  string
	Depth     int
	PCTSteps  int
	MaxSteps  int
	Seed      uint64
	Detail    bool // events carry source locations
	// Options lists every other option that shaped the run (fault
	// probabilities, clock faults, the clock's start), as name=value.
	Options []string
	// Recording is the run's entropy recording (entropy.Recording's binary
	// form): replaying it replays the run.
	Recording []byte
}

// The header options that say what reproduces the recorded schedule: its
// seed; only its recording (a shrunk schedule, a replayed handle); or its
// recording, then fresh values from its seed (a hunt's input). A trace
// written before them has none.
const (
	EntropySeed              = "entropy=seed"
	EntropyRecording         = "entropy=recording"
	EntropyRecordingThenSeed = "entropy=recording,then-seed"
)

// Outcome is how the run ended.
type Outcome struct {
	Kind       string // "pass", or the failure's kind
	Message    string
	Report     string // the failure's full report: goroutines, stacks
	Steps      int64
	Switches   int64
	Goroutines int64
}

// Writer writes a trace to an io.Writer as events come, keeping one frame in
// memory. It is not safe for concurrent use, and it compresses with zstd
// without background goroutines.
type Writer struct {
	w      io.Writer
	off    int64
	c      *compressor
	cur    *event.Frame
	events int64
	index  []frameInfo
	err    error
}

type frameInfo struct {
	off       int64
	first     int64
	n         int64
	firstStep int64
}

// NewWriter writes the magic, the version and h to w, and returns a Writer
// for the events.
func NewWriter(w io.Writer, h *Header) (*Writer, error) {
	c, err := getCompressor()
	if err != nil {
		return nil, err
	}
	tw := &Writer{w: w, c: c}
	b := binary.AppendUvarint([]byte(magic), Version)
	hb := encodeHeader(h)
	b = binary.AppendUvarint(b, uint64(len(hb)))
	b = append(b, hb...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	tw.write(b)
	return tw, tw.err
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.off += int64(n)
	if err != nil {
		w.err = fmt.Errorf("trace: writing at offset %d: %w", w.off, err)
	}
}

// Add writes e, compressing a frame whenever one is full.
func (w *Writer) Add(e *Event) error {
	if w.cur == nil {
		w.cur = event.NewFrame(w.events, e.Step, e.Time, 0)
	}
	w.cur.Commit(w.cur.Add(e))
	w.events++
	if w.cur.Full() {
		w.flush()
	}
	return w.err
}

// AddBuffer writes the events collected in b.
func (w *Writer) AddBuffer(b *Buffer) error {
	if b == nil {
		return w.err
	}
	w.flush()
	for _, f := range b.Frames() {
		w.addFrame(f)
	}
	return w.err
}

// Stream makes b write every event to w as a frame of its own as soon as
// it is added (see Buffer.StreamTo): a run that kills its process leaves
// its trace up to the crash. Close w after the run if the process survives
// it.
func (w *Writer) Stream(b *Buffer) { b.StreamTo(w.addFrame) }

// addFrame writes f as the trace's next frame.
func (w *Writer) addFrame(f *event.Frame) {
	f.First = w.events
	w.cur = f
	w.events += int64(f.N)
	w.flush()
}

func (w *Writer) flush() {
	f := w.cur
	w.cur = nil
	if f == nil || f.N == 0 {
		return
	}
	c := w.c
	c.raw = f.AppendPayload(c.raw[:0])
	c.comp = c.enc.EncodeAll(c.raw, c.comp[:0])
	b := append(c.out[:0], 'F')
	b = binary.AppendUvarint(b, uint64(f.First))
	b = binary.AppendUvarint(b, uint64(f.N))
	b = binary.AppendUvarint(b, uint64(f.FirstStep))
	b = binary.AppendVarint(b, f.FirstTime)
	b = binary.AppendUvarint(b, uint64(len(c.raw)))
	b = binary.AppendUvarint(b, uint64(len(c.comp)))
	w.index = append(w.index, frameInfo{off: w.off, first: f.First, n: int64(f.N), firstStep: f.FirstStep})
	b = append(b, c.comp...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	c.out = b
	w.write(b)
}

// compressor is a zstd encoder with the scratch space a Writer uses for
// each frame.
type compressor struct {
	enc            *zstd.Encoder
	raw, comp, out []byte
}

// compressors keeps a few compressors for reuse: making an encoder allocates
// about a megabyte (a sync.Pool would drop them at every garbage
// collection). With concurrency 1 an encoder runs no goroutine of its own,
// so an idle one holds nothing but memory.
var compressors struct {
	sync.Mutex
	free []*compressor
}

const maxIdleCompressors = 4

// getCompressor returns a compressor. Its encoder skips zstd's own checksum
// (each frame ends with a CRC-32 of itself) and the Huffman coding
// of literals, which the events, small integers, hardly need: it costs a
// quarter of the compression time for 15% of the size.
func getCompressor() (*compressor, error) {
	compressors.Lock()
	if n := len(compressors.free); n > 0 {
		c := compressors.free[n-1]
		compressors.free = compressors.free[:n-1]
		compressors.Unlock()
		return c, nil
	}
	compressors.Unlock()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderCRC(false), zstd.WithNoEntropyCompression(true))
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return &compressor{enc: enc}, nil
}

func putCompressor(c *compressor) {
	compressors.Lock()
	defer compressors.Unlock()
	if len(compressors.free) < maxIdleCompressors {
		compressors.free = append(compressors.free, c)
		return
	}
	c.enc.Close()
}

// Close writes the last frame, the outcome, the index and the trailer, and
// releases the compressor. It does not close the underlying writer.
func (w *Writer) Close(o *Outcome) error {
	defer putCompressor(w.c)
	w.flush()
	ob := encodeOutcome(o)
	b := []byte{'O'}
	b = binary.AppendUvarint(b, uint64(len(ob)))
	b = append(b, ob...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	w.write(b)
	indexOff := w.off
	b = []byte{'I'}
	b = binary.AppendUvarint(b, uint64(len(w.index)))
	var prev frameInfo
	for _, fi := range w.index {
		b = binary.AppendUvarint(b, uint64(fi.off-prev.off))
		b = binary.AppendUvarint(b, uint64(fi.first-prev.first))
		b = binary.AppendUvarint(b, uint64(fi.firstStep-prev.firstStep))
		prev = fi
	}
	b = binary.AppendUvarint(b, uint64(w.events))
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	b = binary.LittleEndian.AppendUint64(b, uint64(indexOff))
	b = append(b, trailerMagic...)
	w.write(b)
	return w.err
}

// Write writes a whole trace: h, the events collected in b, and o.
func Write(out io.Writer, h *Header, b *Buffer, o *Outcome) error {
	w, err := NewWriter(out, h)
	if err != nil {
		return err
	}
	if err := w.AddBuffer(b); err != nil {
		putCompressor(w.c)
		return err
	}
	return w.Close(o)
}

// Key/value encoding of the header and the footer.

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// pairs is h as the key/value strings the file holds, in headerKeys's
// order, then one "option" pair per option, sorted.
func (h *Header) pairs() [][2]string {
	p := pairsOf(headerKeys, h)
	opts := slices.Clone(h.Options)
	slices.Sort(opts)
	for _, o := range opts {
		p = append(p, [2]string{"option", o})
	}
	return p
}

func encodeHeader(h *Header) []byte {
	p := h.pairs()
	b := binary.AppendUvarint(nil, uint64(len(p)))
	for _, kv := range p {
		b = appendString(appendString(b, kv[0]), kv[1])
	}
	b = binary.AppendUvarint(b, uint64(len(h.Recording)))
	return append(b, h.Recording...)
}

func encodeOutcome(o *Outcome) []byte {
	if o == nil {
		o = &Outcome{Kind: "pass"}
	}
	p := pairsOf(outcomeKeys, o)
	b := binary.AppendUvarint(nil, uint64(len(p)))
	for _, kv := range p {
		b = appendString(appendString(b, kv[0]), kv[1])
	}
	return b
}
