package trace_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/dstgo/dst/trace"
)

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// zstdCompressed is a zstd frame of n bytes that repeat a few, made of
// compressed blocks (not RLE ones), whose header does not say how many: the
// content size is dropped, the window is 8 MiB.
func zstdCompressed(tb testing.TB, n int) []byte {
	tb.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
	if err != nil {
		tb.Fatal(err)
	}
	defer enc.Close()
	z := enc.EncodeAll(bytes.Repeat([]byte("0123456789abcdef"), n/16), nil)
	var h zstd.Header
	if err := h.Decode(z); err != nil {
		tb.Fatal(err)
	}
	return append([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 13 << 3}, z[h.HeaderSize:]...)
}

// A frame whose zstd data decompresses to far more than the frame's header
// claims is refused, naming the frame and both sizes, and reading it
// allocates about what the header claims, not what the data would grow to.
// Regression (issue 26): an 8 KB trace whose frame claimed a few bytes and
// decompressed to 250 MB took 1 GB before its error.
func TestDecompressionBomb(t *testing.T) {
	const claimed = 4096
	for _, c := range []struct {
		name string
		comp []byte
		want string
	}{
		// 64 MiB in 2 KB of RLE blocks, the zstd header saying nothing of
		// the size, or claiming what the frame header claims.
		{"rle", zstdRLE(-1, 512, 128<<10), "4096"},
		{"rle-stated", zstdRLE(claimed, 512, 128<<10), "4096"},
		// A zstd header that states the real size.
		{"rle-honest", zstdRLE(512<<17, 512, 128<<10), "67108864"},
		// 64 MiB in compressed blocks, whose sizes are known only by
		// decoding them.
		{"compressed", zstdCompressed(t, 64<<20), "4096"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := withFrame(t, 1, claimed, c.comp)
			r := open(t, data)
			if r.Truncated != nil {
				t.Fatalf("opened as cut short: %v", r.Truncated)
			}
			var err error
			n := allocated(func() { _, err = r.Event(0) })
			if err == nil || !errors.Is(err, trace.ErrCorrupt) {
				t.Fatalf("Event(0): %v; want an error wrapping ErrCorrupt", err)
			}
			for _, s := range []string{"frame 0", "offset ", c.want} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			// Room for the claimed bytes, one zstd block (128 KiB), and
			// the decoder's own buffers.
			if limit := uint64(4*claimed + 1<<20); n > limit {
				t.Errorf("reading the frame allocated %d bytes, want at most %d (%d claimed)", n, limit, claimed)
			}
			t.Logf("%v; %d bytes allocated", err, n)
		})
	}
}

// A frame header that claims more events than its bytes could hold, or
// more bytes than its compressed bytes could stand for, is refused when the
// trace is opened: such a frame is not read at all.
func TestImplausibleFrame(t *testing.T) {
	for _, c := range []struct {
		name   string
		n      int64
		raw    uint64
		comp   []byte
		reason string
	}{
		{"events", 100, 10, zstdRLE(10, 1, 10), "100 events in 10 bytes"},
		{"ratio", 1, 1 << 20, zstdRLE(-1, 1, 1), "1048576 bytes, 10 compressed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := withFrame(t, c.n, c.raw, c.comp)
			r := open(t, data)
			if r.Truncated == nil || r.Len() != 0 {
				t.Fatalf("opened with %d events, truncated: %v", r.Len(), r.Truncated)
			}
			if !errors.Is(r.Truncated, trace.ErrCorrupt) || !strings.Contains(r.Truncated.Error(), c.reason) {
				t.Errorf("Truncated = %v; want ErrCorrupt saying %q", r.Truncated, c.reason)
			}
		})
	}
}

// A frame that decompresses to fewer bytes than claimed is refused too,
// and so is one with bytes after its zstd frame (a second zstd frame, which
// would decode into the same buffer).
func TestFrameSizeMismatch(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  uint64
		comp []byte
		want string
	}{
		{"short", 4096, zstdRLE(-1, 1, 100), "decompresses to 100 bytes, the frame header says 4096"},
		{"second frame", 100, append(zstdRLE(100, 1, 100), zstdRLE(-1, 512, 128<<10)...), "the zstd frame ends at byte"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := open(t, withFrame(t, 1, c.raw, c.comp))
			_, err := r.Event(0)
			if !errors.Is(err, trace.ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Event(0): %v; want ErrCorrupt saying %q", err, c.want)
			}
		})
	}
}

// ReadAll does not trust the event count the frames' headers claim: a
// file of frames of a few bytes that each claim 4096 events, and whose
// first fails to decode, allocates about nothing. Regression (issue 26):
// it made room for every claimed event first, about 130 bytes each.
func TestReadAllClaimedEvents(t *testing.T) {
	const frames = 500
	data := withFrame(t, 1, 1, zstdRLE(1, 1, 1)) // a template for the header, the outcome
	l := parseLayout(t, data)
	out := bytes.Clone(data[:l.body])
	frame := func(first int64) []byte {
		// 4096 events claimed in 4096 bytes, from a 10-byte zstd frame
		// (4096 repetitions of a byte that is no event's kind).
		comp := zstdRLE(-1, 1, trace.FrameEvents)
		f := []byte{'F'}
		f = binary.AppendUvarint(f, uint64(first))
		f = binary.AppendUvarint(f, trace.FrameEvents)
		f = binary.AppendUvarint(f, 0)
		f = binary.AppendVarint(f, 0)
		f = binary.AppendUvarint(f, trace.FrameEvents)
		f = binary.AppendUvarint(f, uint64(len(comp)))
		f = append(f, comp...)
		return binary.LittleEndian.AppendUint32(f, crc32.ChecksumIEEE(f))
	}
	for i := range int64(frames) {
		out = append(out, frame(i*trace.FrameEvents)...)
	}
	r := open(t, out) // no outcome, no index: read as cut short
	if r.Len() != frames*trace.FrameEvents {
		t.Fatalf("Len %d", r.Len())
	}
	var err error
	n := allocated(func() { _, err = r.ReadAll() })
	if err == nil {
		t.Fatal("ReadAll succeeded")
	}
	claimed := uint64(r.Len()) * uint64(unsafe.Sizeof(trace.Event{}))
	if n > claimed/10 {
		t.Errorf("ReadAll allocated %d bytes for a file of %d bytes claiming %d events (%d bytes of them)", n, len(out), r.Len(), claimed)
	}
	t.Logf("%v: %d bytes allocated", err, n)
}
