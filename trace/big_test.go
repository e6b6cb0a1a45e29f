package trace_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"strconv"
	"testing"

	"github.com/dstgo/dst/trace"
)

// repetitiveEvent is event i of a run that does the same few things over
// and over: two goroutines take turns on one mutex. Such a trace compresses
// to a few bytes per thousand events, as a long loop's does.
func repetitiveEvent(i int64) trace.Event {
	step := i / 4
	g := int32(1 + step%2)
	switch i % 4 {
	case 0:
		return trace.Event{Kind: trace.KindOp, Step: step, G: g, Op: 5, Obj: 1}
	case 1:
		return trace.Event{Kind: trace.KindSwitch, Step: step, G: g, Arg: int64(3 - g), Choice: 1, N: 2}
	case 2:
		return trace.Event{Kind: trace.KindWake, Step: step, G: 3 - g, Arg: int64(g)}
	default:
		return trace.Event{Kind: trace.KindOp, Step: step, G: 3 - g, Op: 6, Obj: 1}
	}
}

// writeRepetitive writes a whole trace of n repetitive events to path with
// the package's Writer (one frame in memory).
func writeRepetitive(tb testing.TB, path string, n int64) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	w, err := trace.NewWriter(bw, testHeader)
	if err != nil {
		tb.Fatal(err)
	}
	obj := trace.Event{Kind: trace.KindObject, Obj: 1, Text: "Mutex"}
	if err := w.Add(&obj); err != nil {
		tb.Fatal(err)
	}
	for i := int64(1); i < n; i++ {
		e := repetitiveEvent(i)
		if err := w.Add(&e); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(testOutcome); err != nil {
		tb.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestWriteBigTrace writes the traces the memory figures of BENCHMARKS.md
// are measured on, when asked to:
//
//	DST_BIGTRACE=/tmp/big.trace DST_BIGTRACE_EVENTS=2000000 go test -run TestWriteBigTrace ./trace
//
// writes a trace of that many repetitive events, and
//
//	DST_BOMBTRACE=/tmp/bomb.trace go test -run TestWriteBigTrace ./trace
//
// a trace of one event whose frame claims 4096 bytes and decompresses to
// 250 MB (the zstd bytes are 2,000 RLE blocks of 128 KiB, 8 KB in all).
func TestWriteBigTrace(t *testing.T) {
	if path := os.Getenv("DST_BIGTRACE"); path != "" {
		n, err := strconv.ParseInt(os.Getenv("DST_BIGTRACE_EVENTS"), 10, 64)
		if err != nil || n < 1 {
			t.Fatalf("DST_BIGTRACE_EVENTS=%q: want a count of events", os.Getenv("DST_BIGTRACE_EVENTS"))
		}
		writeRepetitive(t, path, n)
	}
	if path := os.Getenv("DST_BOMBTRACE"); path != "" {
		data := withFrame(t, 1, 4096, zstdRLE(-1, 2000, 128<<10))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv("DST_BIGTRACE") == "" && os.Getenv("DST_BOMBTRACE") == "" {
		t.Skip("set DST_BIGTRACE (and DST_BIGTRACE_EVENTS) or DST_BOMBTRACE to write a trace")
	}
}

// zstdRLE is a zstd frame of blocks RLE blocks of size bytes each: blocks
// times size bytes from 4 bytes a block. fcs is the frame's content size,
// or -1 for a frame that does not say it.
func zstdRLE(fcs int64, blocks, size int) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd}
	if fcs < 0 {
		// No content size, a window descriptor: 8 MiB.
		b = append(b, 0x00, 13<<3)
	} else {
		// An 8-byte content size and a window descriptor.
		b = append(b, 3<<6, 13<<3)
		b = binary.LittleEndian.AppendUint64(b, uint64(fcs))
	}
	for i := range blocks {
		h := uint32(size)<<3 | 1<<1 // RLE
		if i == blocks-1 {
			h |= 1 // last block
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 'x')
	}
	return b
}

// withFrame is a whole trace (the header, the outcome and the index of a
// trace of testHeader and testOutcome) of one frame of n events whose
// frame header claims raw bytes, and whose compressed bytes are comp.
func withFrame(tb testing.TB, n int64, raw uint64, comp []byte) []byte {
	tb.Helper()
	base := encode(tb, testHeader, tameEvents(1, int(n)), testOutcome)
	l := parseLayout(tb, base)
	out := bytes.Clone(base[:l.body])
	frame := []byte{'F'}
	frame = binary.AppendUvarint(frame, 0) // first event
	frame = binary.AppendUvarint(frame, uint64(n))
	frame = binary.AppendUvarint(frame, 0) // first step
	frame = binary.AppendVarint(frame, 0)  // first time
	frame = binary.AppendUvarint(frame, raw)
	frame = binary.AppendUvarint(frame, uint64(len(comp)))
	frame = append(frame, comp...)
	frame = binary.LittleEndian.AppendUint32(frame, crc32.ChecksumIEEE(frame))
	out = append(out, frame...)
	out = append(out, base[l.footer:l.index]...) // the outcome, with its CRC
	index := int64(len(out))
	ib := []byte{'I'}
	ib = binary.AppendUvarint(ib, 1)
	ib = binary.AppendUvarint(ib, uint64(l.body))
	ib = binary.AppendUvarint(ib, 0) // first event
	ib = binary.AppendUvarint(ib, 0) // first step
	ib = binary.AppendUvarint(ib, uint64(n))
	ib = binary.LittleEndian.AppendUint32(ib, crc32.ChecksumIEEE(ib))
	out = append(out, ib...)
	out = binary.LittleEndian.AppendUint64(out, uint64(index))
	return append(out, "DSTEND\x00\x01"...)
}
