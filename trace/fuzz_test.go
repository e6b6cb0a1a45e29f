package trace_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dstgo/dst/trace"
)

// fuzzSeeds are real traces: small, multi-frame, cut short, with a damaged
// index, empty.
func fuzzSeeds(t testing.TB) map[string][]byte {
	small := encode(t, testHeader, goldenEvents(), testOutcome)
	evs := tameEvents(11, trace.FrameEvents+200)
	multi := encode(t, testHeader, evs, testOutcome)
	var empty bytes.Buffer
	if err := trace.Write(&empty, &trace.Header{}, nil, nil); err != nil {
		t.Fatal(err)
	}
	badIndex := bytes.Clone(multi)
	badIndex[len(badIndex)-20] ^= 0xff
	return map[string][]byte{
		"small":           small,
		"multiframe":      multi,
		"truncated-small": small[:len(small)*2/3],
		"truncated-multi": multi[:len(multi)*3/4],
		"bad-index":       badIndex,
		"empty-trace":     empty.Bytes(),
		"magic-only":      []byte("DSTTRACE"),
	}
}

// TestWriteFuzzSeeds writes the seeds to the fuzz corpus with -update.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite testdata/fuzz/FuzzReader/seed-*")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzReader")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range fuzzSeeds(t) {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if err := os.WriteFile(filepath.Join(dir, "seed-"+name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzReader(f *testing.F) {
	for _, data := range fuzzSeeds(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := trace.Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if r != nil {
				t.Fatal("Open returned a Reader and an error")
			}
			return
		}
		defer r.Close()
		n := r.Len()
		var k int64
		r.All(func(i int64, e trace.Event, err error) bool {
			if err == nil && i != k {
				t.Fatalf("All yielded index %d, want %d", i, k)
			}
			k++
			_ = e.Format(nil)
			return true
		})
		if err := r.WriteText(io.Discard); err != nil {
			_ = err // corrupt frames are reported, not fatal
		}
		if n > 0 {
			for _, i := range []int64{0, n / 2, n - 1, n / 3, 2 * n / 3} {
				r.Event(i)
			}
			r.SeekStep(0)
			r.SeekStep(1 << 40)
			if e, err := r.Event(n - 1); err == nil {
				r.SeekStep(e.Step)
			}
		}
		if _, err := r.Event(n); err == nil {
			t.Fatalf("Event(Len()=%d) succeeded", n)
		}
	})
}
