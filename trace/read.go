package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"

	"github.com/klauspost/compress/zstd"

	"github.com/dstgo/dst/internal/event"
)

// maxFrameBytes bounds a frame's sizes, so a corrupt length cannot make the
// reader allocate without limit.
const maxFrameBytes = 256 << 20

// maxRatio bounds how many bytes a compressed byte of a frame stands for:
// a zstd block regenerates 128 KiB at most, and takes 4 bytes at least (3
// of block header and the byte an RLE block repeats).
const maxRatio = (128 << 10) / 4

// Reader reads a trace. With the trace's index it reaches any event by
// decoding the one frame that holds it; a trace without an index (cut short
// while being written) is read frame by frame up to its last complete
// frame, and Truncated says so.
type Reader struct {
	Header  Header
	Outcome *Outcome // nil when the trace was cut short before its end
	// Truncated explains why a trace has no end (nil when it is whole);
	// Missing is how many bytes after the last complete frame could not be
	// read.
	Truncated error
	Missing   int64

	ra     io.ReaderAt
	size   int64
	frames []frameInfo
	events int64
	dec    *zstd.Decoder
	closer io.Closer

	// The reader holds one frame's events at a time: cachedEvs, of frame
	// cached. Decompressing a frame takes its claimed raw length (at most
	// maxFrameBytes, and maxRatio times its compressed length) and one zstd
	// block more, in rawBuf, kept for the next frame.
	cached    int // index of the decoded frame, -1 when none
	cachedEvs []Event
	rawBuf    []byte
	version   uint64
}

// sums says whether the trace's sections end with a CRC-32 of themselves
// (version 2), rather than only its frames' compressed bytes (version 1).
func (r *Reader) sums() bool { return r.version >= 2 }

// checkSum checks that the last 4 bytes of b are the CRC-32 of the rest,
// for what b is at off.
func checkSum(b []byte, off int64, what string) error {
	if len(b) < 4 || crc32.ChecksumIEEE(b[:len(b)-4]) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return fmt.Errorf("trace: offset %d: %s: %w", off, what, errSum)
	}
	return nil
}

// errSum is a section whose bytes are all there, and damaged.
var errSum = fmt.Errorf("checksum mismatch: %w", ErrCorrupt)

// Open reads the header, the footer and the index of the trace in ra, whose
// size is size.
func Open(ra io.ReaderAt, size int64) (*Reader, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxFrameBytes),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	r := &Reader{ra: ra, size: size, dec: dec, cached: -1}
	if err := r.open(); err != nil {
		dec.Close()
		return nil, err
	}
	return r, nil
}

// OpenFile opens the trace file at path; Close closes the file.
func OpenFile(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("trace: %w", err)
	}
	r, err := Open(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.closer = f
	return r, nil
}

// Close releases the decompressor (and the file, for OpenFile).
func (r *Reader) Close() error {
	r.dec.Close()
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// Len is the number of events readable.
func (r *Reader) Len() int64 { return r.events }

// section reads n bytes at off, or fails with ErrTruncated.
func (r *Reader) section(off, n int64) ([]byte, error) {
	if n < 0 || off < 0 || off > r.size || n > r.size-off {
		return nil, fmt.Errorf("trace: offset %d: %d bytes wanted, %d left: %w", off, n, max(r.size-off, 0), ErrTruncated)
	}
	b := make([]byte, n)
	if _, err := r.ra.ReadAt(b, off); err != nil && err != io.EOF {
		return nil, fmt.Errorf("trace: reading %d bytes at offset %d: %w", n, off, err)
	}
	return b, nil
}

func (r *Reader) open() error {
	head, err := r.section(0, min(r.size, 64<<10))
	if err != nil {
		return err
	}
	if len(head) < len(magic) || string(head[:len(magic)]) != magic {
		if len(head) < len(magic) && bytes.HasPrefix([]byte(magic), head) {
			return fmt.Errorf("trace: offset %d: the file ends inside the magic number: %w", len(head), ErrTruncated)
		}
		return fmt.Errorf("trace: offset 0: %w", ErrBadMagic)
	}
	c := &event.Cursor{B: head, Pos: len(magic)}
	v := c.Uvarint("version")
	if c.Err == nil && (v < 1 || v > Version) {
		return fmt.Errorf("trace: offset %d: version %d, this reader supports versions 1 to %d: %w", len(magic), v, Version, ErrVersion)
	}
	r.version = v
	hlen := c.Uvarint("header length")
	if c.Err != nil {
		if int64(len(head)) == r.size && c.Pos+binary.MaxVarintLen64 > len(head) {
			// The file ends inside the varints after the magic number.
			return fmt.Errorf("trace: offset %d: the file ends before the header: %w", len(head), ErrTruncated)
		}
		return c.Err
	}
	hstart := int64(c.Pos)
	sum := int64(0)
	if r.sums() {
		sum = 4
	}
	if hlen > uint64(r.size) || hstart+int64(hlen)+sum > r.size {
		return fmt.Errorf("trace: offset %d: the header of %d bytes runs past the end of the file (%d bytes): %w",
			hstart, int64(hlen)+sum, r.size, ErrTruncated)
	}
	hb, err := r.section(hstart, int64(hlen)+sum)
	if err != nil {
		return err
	}
	if r.sums() {
		whole := append(append([]byte{}, head[:hstart]...), hb...)
		if err := checkSum(whole, 0, "the header"); err != nil {
			return err
		}
		hb = hb[:hlen]
	}
	if err := decodeHeader(&event.Cursor{B: hb, Off: hstart}, &r.Header); err != nil {
		return err
	}
	body := hstart + int64(hlen) + sum
	err = r.readIndex(body)
	if err == nil {
		return nil
	}
	r.scan(body, err)
	return nil
}

// readIndex reads the trailer, the index and the footer.
func (r *Reader) readIndex(body int64) error {
	if r.size < body+trailerSize {
		return fmt.Errorf("trace: no trailer at the end: %w", ErrTruncated)
	}
	tb, err := r.section(r.size-trailerSize, trailerSize)
	if err != nil {
		return err
	}
	if string(tb[8:]) != trailerMagic {
		return fmt.Errorf("trace: offset %d: no trailer at the end: %w", r.size-trailerSize, ErrTruncated)
	}
	ioff := int64(binary.LittleEndian.Uint64(tb))
	if ioff < body || ioff >= r.size-trailerSize {
		return fmt.Errorf("trace: offset %d: index offset %d out of range: %w", r.size-trailerSize, ioff, ErrCorrupt)
	}
	ib, err := r.section(ioff, r.size-trailerSize-ioff)
	if err != nil {
		return err
	}
	if ib[0] != 'I' {
		return fmt.Errorf("trace: offset %d: index marker %q: %w", ioff, ib[0], ErrCorrupt)
	}
	if r.sums() {
		if err := checkSum(ib, ioff, "the index"); err != nil {
			return err
		}
		ib = ib[:len(ib)-4]
	}
	c := &event.Cursor{B: ib, Off: ioff}
	c.Pos = 1
	n := c.Uvarint("index length")
	if n > uint64(len(ib)) {
		return fmt.Errorf("trace: offset %d: index of %d frames in %d bytes: %w", ioff, n, len(ib), ErrCorrupt)
	}
	var prev frameInfo
	frames := make([]frameInfo, 0, n)
	for i := uint64(0); i < n; i++ {
		fi := frameInfo{
			off:       prev.off + int64(c.Uvarint("frame offset")),
			first:     prev.first + int64(c.Uvarint("frame first event")),
			firstStep: prev.firstStep + int64(c.Uvarint("frame first step")),
		}
		frames = append(frames, fi)
		prev = fi
	}
	total := int64(-1)
	if r.sums() {
		total = int64(c.Uvarint("event count"))
	}
	if c.Err != nil {
		return c.Err
	}
	// The footer sits between the last frame and the index: read each
	// frame's header to know its size and event count, and where it ends.
	end, events := body, int64(0)
	for i := range frames {
		if frames[i].off != end {
			return fmt.Errorf("trace: offset %d: index says frame %d starts at %d: %w", end, i, frames[i].off, ErrCorrupt)
		}
		h, err := r.frameHeader(end)
		if err != nil {
			return err
		}
		if h.first != frames[i].first || h.first != events {
			return fmt.Errorf("trace: offset %d: frame %d starts at event %d, the index says %d, the frames before end at %d: %w",
				end, i, h.first, frames[i].first, events, ErrCorrupt)
		}
		frames[i].n = h.n
		events += h.n
		end = h.end
	}
	if total >= 0 && events != total {
		return fmt.Errorf("trace: offset %d: the frames hold %d events, the index says %d: %w", ioff, events, total, ErrCorrupt)
	}
	if err := r.readFooter(end, ioff); err != nil {
		return err
	}
	r.frames = frames
	if len(frames) > 0 {
		last := frames[len(frames)-1]
		r.events = last.first + last.n
	}
	return nil
}

type frameHead struct {
	first, n, firstStep, firstTime int64
	raw, comp                      uint64
	data                           int64 // offset of the compressed bytes
	end                            int64 // offset after the CRC
}

func (r *Reader) frameHeader(off int64) (frameHead, error) {
	hb, err := r.section(off, min(64, r.size-off))
	if err != nil {
		return frameHead{}, err
	}
	if len(hb) == 0 || hb[0] != 'F' {
		return frameHead{}, fmt.Errorf("trace: offset %d: frame marker missing: %w", off, ErrCorrupt)
	}
	c := &event.Cursor{B: hb, Off: off, Pos: 1}
	h := frameHead{
		first:     int64(c.Uvarint("frame first event")),
		n:         int64(c.Uvarint("frame event count")),
		firstStep: int64(c.Uvarint("frame first step")),
		firstTime: c.Varint("frame first time"),
		raw:       c.Uvarint("frame raw length"),
		comp:      c.Uvarint("frame compressed length"),
	}
	if c.Err != nil {
		if off+int64(len(hb)) >= r.size {
			return h, fmt.Errorf("trace: offset %d: frame header cut short: %w", off, ErrTruncated)
		}
		return h, c.Err
	}
	if h.raw > maxFrameBytes || h.comp > maxFrameBytes || h.n > FrameEvents || h.n <= 0 {
		return h, fmt.Errorf("trace: offset %d: frame of %d events, %d bytes (%d compressed) exceeds the limits: %w", off, h.n, h.raw, h.comp, ErrCorrupt)
	}
	// Every event takes a byte at least; zstd turns 4 bytes into 128 KiB at
	// most (an RLE block).
	if uint64(h.n) > h.raw || h.raw > maxRatio*h.comp {
		return h, fmt.Errorf("trace: offset %d: frame of %d events in %d bytes, %d compressed: no frame could hold them: %w", off, h.n, h.raw, h.comp, ErrCorrupt)
	}
	h.data = off + int64(c.Pos)
	h.end = h.data + int64(h.comp) + 4
	if h.end > r.size {
		return h, fmt.Errorf("trace: offset %d: frame of %d bytes runs past the end of the file: %w", off, h.end-off, ErrTruncated)
	}
	return h, nil
}

func (r *Reader) readFooter(off, limit int64) error {
	fb, err := r.section(off, limit-off)
	if err != nil {
		return err
	}
	if len(fb) == 0 || fb[0] != 'O' {
		return fmt.Errorf("trace: offset %d: footer marker missing: %w", off, ErrCorrupt)
	}
	c := &event.Cursor{B: fb, Off: off, Pos: 1}
	ob := c.Bytes(c.Uvarint("footer length"), "footer")
	if c.Err != nil {
		return c.Err
	}
	if r.sums() {
		if c.Pos+4 > len(fb) {
			return fmt.Errorf("trace: offset %d: the outcome's checksum is missing: %w", off, ErrCorrupt)
		}
		if err := checkSum(fb[:c.Pos+4], off, "the outcome"); err != nil {
			return err
		}
	}
	o := &Outcome{}
	if err := decodeOutcome(&event.Cursor{B: ob, Off: off + int64(c.Pos) - int64(len(ob))}, o); err != nil {
		return err
	}
	r.Outcome = o
	return nil
}

// scan reads the frames of a trace whose index could not be used (why:
// indexErr), one after the other, until one is incomplete or corrupt, or
// the footer comes.
func (r *Reader) scan(off int64, indexErr error) {
	r.frames, r.events, r.Outcome = nil, 0, nil
	for off < r.size {
		if b, err := r.section(off, 1); err == nil && b[0] == 'O' {
			// Every frame is there; the outcome may be too, but the index
			// is missing or damaged.
			err := r.readFooter(off, r.size)
			if err == nil {
				r.Truncated = fmt.Errorf("trace: all %d events and the outcome are readable, but the index is not: %w", r.events, indexErr)
				return
			}
			if errors.Is(err, errSum) {
				r.Missing = r.size - off
				r.Truncated = fmt.Errorf("trace: all %d events are readable, but the outcome is not: %w", r.events, err)
				return
			}
			break // cut short inside the outcome
		}
		h, err := r.frameHeader(off)
		if err == nil && h.first != r.events {
			err = fmt.Errorf("trace: offset %d: frame starts at event %d, want %d: %w", off, h.first, r.events, ErrCorrupt)
		}
		if err != nil {
			r.Missing = r.size - off
			r.Truncated = fmt.Errorf("trace: cut short after event %d: the %d bytes from offset %d are not a complete frame: %w", r.events, r.Missing, off, err)
			return
		}
		r.frames = append(r.frames, frameInfo{off: off, first: h.first, n: h.n, firstStep: h.firstStep})
		r.events += h.n
		off = h.end
	}
	r.Missing = r.size - off
	r.Truncated = fmt.Errorf("trace: cut short after event %d (frame %d): no outcome and no index: %w", r.events, len(r.frames), ErrTruncated)
}

// frame decodes frame i's events.
func (r *Reader) frame(i int) ([]Event, error) {
	if r.cached == i {
		return r.cachedEvs, nil
	}
	fi := r.frames[i]
	h, err := r.frameHeader(fi.off)
	if err != nil {
		return nil, err
	}
	whole, err := r.section(fi.off, h.end-fi.off)
	if err != nil {
		return nil, err
	}
	comp := whole[h.data-fi.off:]
	summed := comp // version 1: the zstd bytes and their CRC-32
	if r.sums() {
		summed = whole // the frame from its 'F'
	}
	if checkSum(summed, fi.off, "") != nil {
		return nil, fmt.Errorf("trace: offset %d: frame %d (events %d to %d): checksum mismatch: %w", fi.off, i, h.first, h.first+h.n-1, ErrCorrupt)
	}
	raw, err := r.decompress(fi.off, i, comp[:h.comp], h.raw)
	if err != nil {
		return nil, err
	}
	evs, err := event.DecodeFrame(&event.Cursor{B: raw, Off: h.data}, h.first, h.n, h.firstStep, h.firstTime)
	if err != nil {
		return nil, fmt.Errorf("trace: frame %d at offset %d (decompressed): %w", i, fi.off, err)
	}
	r.cached, r.cachedEvs = i, evs
	return evs, nil
}

// Event returns event i (0-based).
func (r *Reader) Event(i int64) (Event, error) {
	if i < 0 || i >= r.events {
		return Event{}, fmt.Errorf("trace: event %d out of range (%d events)", i, r.events)
	}
	f := sort.Search(len(r.frames), func(j int) bool { return r.frames[j].first > i }) - 1
	evs, err := r.frame(f)
	if err != nil {
		return Event{}, err
	}
	return evs[i-r.frames[f].first], nil
}

// SeekStep returns the index of the first event at or after step, or Len()
// if there is none.
func (r *Reader) SeekStep(step int64) (int64, error) {
	// Events of one step can span frames: start in the frame before the
	// first one that begins at or after step.
	f := sort.Search(len(r.frames), func(j int) bool { return r.frames[j].firstStep >= step }) - 1
	f = max(f, 0)
	for ; f < len(r.frames); f++ {
		evs, err := r.frame(f)
		if err != nil {
			return 0, err
		}
		for k, e := range evs {
			if e.Step >= step {
				return r.frames[f].first + int64(k), nil
			}
		}
	}
	return r.events, nil
}

// All iterates over the events in order, stopping at the first error.
func (r *Reader) All(yield func(int64, Event, error) bool) {
	for f := range r.frames {
		evs, err := r.frame(f)
		if err != nil {
			yield(r.frames[f].first, Event{}, err)
			return
		}
		for k, e := range evs {
			if !yield(r.frames[f].first+int64(k), e, nil) {
				return
			}
		}
	}
}

func decodePairs(c *event.Cursor, what string) [][2]string {
	n := c.Uvarint(what + " field count")
	if n > uint64(len(c.B)) {
		c.Fail(fmt.Sprintf("%s of %d fields in %d bytes", what, n, len(c.B)), ErrCorrupt)
		return nil
	}
	var p [][2]string
	for i := uint64(0); i < n && c.Err == nil; i++ {
		k := c.Str(what + " key")
		v := c.Str(what + " value")
		p = append(p, [2]string{k, v})
	}
	return p
}

func decodeHeader(c *event.Cursor, h *Header) error {
	for _, kv := range decodePairs(c, "header") {
		if kv[0] == "option" {
			h.Options = append(h.Options, kv[1])
			continue
		}
		setPair(headerKeys, h, kv[0], kv[1])
	}
	h.Recording = c.Bytes(c.Uvarint("recording length"), "recording")
	if c.Err == nil && c.Pos != len(c.B) {
		c.Fail("bytes after the header", ErrCorrupt)
	}
	return c.Err
}

func decodeOutcome(c *event.Cursor, o *Outcome) error {
	for _, kv := range decodePairs(c, "outcome") {
		setPair(outcomeKeys, o, kv[0], kv[1])
	}
	return c.Err
}

// zstdMaxBlock is the most bytes a zstd block regenerates.
const zstdMaxBlock = 128 << 10

// decompress decompresses comp, frame i's zstd bytes (the frame starts at
// off), into a buffer of the raw bytes the frame's header claims, refusing
// zstd data that would regenerate more or less: a frame that says it holds
// a few bytes and decompresses to a hundred megabytes costs a few bytes and
// one block. The data must be one zstd frame, as the writer writes it, that
// states its content size; before decoding, the sizes its raw and RLE blocks
// state are checked against raw, and while decoding, the decoder stops at the
// first block that goes beyond it.
func (r *Reader) decompress(off int64, i int, comp []byte, raw uint64) ([]byte, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("trace: offset %d: frame %d: %s: %w", off, i, fmt.Sprintf(format, args...), ErrCorrupt)
	}
	var zh zstd.Header
	if err := zh.Decode(comp); err != nil {
		return nil, fail("decompressing: %v", err)
	}
	if zh.Skippable || zh.DictionaryID != 0 {
		return nil, fail("not a zstd frame as the writer writes them (skippable, or with a dictionary)")
	}
	if zh.HasFCS && zh.FrameContentSize != raw {
		return nil, fail("the zstd frame holds %d bytes, the frame header says %d", zh.FrameContentSize, raw)
	}
	// Walk the blocks: the frame must end where comp does, and its raw and
	// RLE blocks, whose sizes are stated, must fit.
	pos, least := zh.HeaderSize, uint64(0)
	for {
		if len(comp)-pos < 3 {
			return nil, fail("the zstd frame ends inside block header at byte %d of %d", pos, len(comp))
		}
		bh := uint32(comp[pos]) | uint32(comp[pos+1])<<8 | uint32(comp[pos+2])<<16
		pos += 3
		size := int(bh >> 3)
		switch (bh >> 1) & 3 {
		case 0: // raw
			least += uint64(size)
		case 1: // RLE: one byte, repeated size times
			least += uint64(size)
			size = 1
		case 3:
			return nil, fail("reserved zstd block type at byte %d", pos-3)
		}
		if least > raw {
			return nil, fail("the zstd frame's blocks hold %d bytes at least, the frame header says %d", least, raw)
		}
		if size > len(comp)-pos {
			return nil, fail("zstd block of %d bytes at byte %d runs past the %d bytes of the frame", size, pos, len(comp))
		}
		pos += size
		if bh&1 != 0 {
			break
		}
	}
	if zh.HasCheckSum {
		pos += 4
	}
	if pos != len(comp) {
		return nil, fail("%d bytes of compressed data, the zstd frame ends at byte %d", len(comp), pos)
	}
	if !zh.HasFCS {
		// zstd leaves the size of a small frame unsaid: give the decoder a
		// copy whose zstd header says it (the frame header's), with the
		// same flags and window. (A frame without a content size has a
		// window descriptor and, without a dictionary, a 6-byte header.)
		if zh.HeaderSize != 6 {
			return nil, fail("zstd frame header of %d bytes", zh.HeaderSize)
		}
		stated := make([]byte, 0, len(comp)+8)
		stated = append(stated, comp[:4]...)
		stated = append(stated, 3<<6|comp[4]&(1<<2), comp[5]) // an 8-byte size; the checksum flag
		stated = binary.LittleEndian.AppendUint64(stated, raw)
		comp = append(stated, comp[6:]...)
	}
	// The decoder stops after the first block that goes beyond the frame's
	// stated size: room for that block more means it never reallocates.
	need := int(raw) + zstdMaxBlock + 64
	buf := r.rawBuf
	if cap(buf) < need {
		buf = make([]byte, 0, need)
	}
	out, err := r.dec.DecodeAll(comp, buf[:0])
	if len(out) > int(raw) {
		return nil, fail("decompresses to more than the %d bytes the frame header says", raw)
	}
	if err != nil && !errors.Is(err, zstd.ErrFrameSizeMismatch) {
		return nil, fail("decompressing: %v", err)
	}
	if len(out) != int(raw) {
		return nil, fail("decompresses to %d bytes, the frame header says %d", len(out), raw)
	}
	// Kept whatever its size: a trace of large frames (the cap is
	// maxFrameBytes) would otherwise allocate one per frame, faster than
	// the collector frees them (8 frames of 250 MB held 800 MB). The
	// events decoded from it hold no part of it.
	r.rawBuf = buf
	return out, nil
}
