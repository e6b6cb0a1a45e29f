package trace_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/trace"
	"github.com/dstgo/dst/vtime"
)

var seekTraces struct {
	sync.Mutex
	m map[int][]byte
}

// seekTrace returns a written trace of n events, built once.
func seekTrace(b *testing.B, n int) []byte {
	seekTraces.Lock()
	defer seekTraces.Unlock()
	if data, ok := seekTraces.m[n]; ok {
		return data
	}
	if seekTraces.m == nil {
		seekTraces.m = map[int][]byte{}
	}
	data := encode(b, testHeader, tameEvents(uint64(n), n), testOutcome)
	seekTraces.m[n] = data
	return data
}

// BenchmarkSeek measures Event(i) for an i in another frame than the
// previous one, so that each op decodes a frame: one op is one seek.
func BenchmarkSeek(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"events=1e4", 1e4}, {"events=1e6", 1e6}} {
		b.Run(c.name, func(b *testing.B) {
			data := seekTrace(b, c.n)
			r, err := trace.Open(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			starts := append(frameStarts(c.n), c.n)
			frames := len(starts) - 1
			rng := rand.New(rand.NewPCG(1, uint64(c.n)))
			idx := make([]int64, 1<<12)
			prev := 0
			for k := range idx {
				f := (prev + 1 + rng.IntN(frames-1)) % frames // never the previous frame
				prev = f
				idx[k] = int64(starts[f] + rng.IntN(starts[f+1]-starts[f]))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for k := 0; b.Loop(); k++ {
				if _, err := r.Event(idx[k%len(idx)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/seek")
		})
	}
}

// recordWorkload is a representative body: producers and consumers over
// unbuffered and buffered channels, a mutex, a wait group, a select with a
// timer, and sleeps. It creates few objects: see TestManyDistinctStrings.
func recordWorkload(t *schedtest.T) {
	var mu sched.Mutex
	var wg sched.WaitGroup
	unbuf := chans.Make[int](0)
	buf := chans.Make[int](4)
	quit := chans.Make[struct{}](0)
	total := 0
	const producers, items = 3, 200
	for p := range producers {
		wg.Go(func() {
			for i := range items {
				mu.Lock()
				total += i
				mu.Unlock()
				if (i+p)%2 == 0 {
					unbuf.Send(i)
				} else {
					buf.Send(i)
				}
				if i%10 == 0 {
					vtime.Sleep(time.Millisecond)
				}
			}
		})
	}
	received := 0
	sched.Go(func() {
		tick := vtime.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		var v int
		var now time.Time
		for received < producers*items {
			switch chans.Select(unbuf.CaseRecv(&v), buf.CaseRecv(&v), tick.C.CaseRecv(&now)) {
			case 0, 1:
				received++
			case 2:
				mu.Lock()
				_ = total
				mu.Unlock()
			}
		}
		quit.Send(struct{}{})
	})
	wg.Wait()
	quit.Recv()
	if received != producers*items {
		t.Fatalf("received %d", received)
	}
}

// BenchmarkRecord runs recordWorkload once per op: "record" with
// Options.Record and trace.Write of the run's events (reporting bytes/event),
// "norecord" without; "record-nowrite" records but does not write, to split
// the cost of collecting events from the cost of compressing them.
func BenchmarkRecord(b *testing.B) {
	// interleaved alternates a run without and a run with recording (and
	// writing) of the same schedule, so drift on the machine affects both
	// alike, and reports the overhead of recording in percent: in all
	// (overhead-%), and of the run alone, collecting events
	// (run-overhead-%), with the time trace.Write takes (write-us).
	b.Run("interleaved", func(b *testing.B) {
		var plain, recorded, written time.Duration
		seed := uint64(0)
		for b.Loop() {
			seed++
			t0 := time.Now()
			if _, err := schedtest.Run(schedtest.Options{Seed: seed}, recordWorkload); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			res, err := schedtest.Run(schedtest.Options{Seed: seed, Record: true}, recordWorkload)
			if err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			if err := trace.Write(io.Discard, &trace.Header{Test: "BenchmarkRecord"}, res.Trace, &trace.Outcome{Kind: "pass"}); err != nil {
				b.Fatal(err)
			}
			plain += t1.Sub(t0)
			recorded += t2.Sub(t1)
			written += time.Since(t2)
		}
		b.ReportMetric(100*(float64(recorded+written)/float64(plain)-1), "overhead-%")
		b.ReportMetric(100*(float64(recorded)/float64(plain)-1), "run-overhead-%")
		b.ReportMetric(float64(written.Microseconds())/float64(b.N), "write-us")
	})
	for _, c := range []struct {
		name          string
		record, write bool
	}{{"record", true, true}, {"norecord", false, false}, {"record-nowrite", true, false}} {
		record := c.record
		b.Run(c.name, func(b *testing.B) {
			var bytesOut, events int64
			seed := uint64(0)
			for b.Loop() {
				seed++
				res, err := schedtest.Run(schedtest.Options{Seed: seed, Record: record}, recordWorkload)
				if err != nil {
					b.Fatal(err)
				}
				if res.Failure != nil {
					b.Fatal(res.Failure)
				}
				if c.write {
					cw := &countWriter{}
					h := &trace.Header{Package: "github.com/dstgo/dst/trace", Test: "BenchmarkRecord", Strategy: res.Strategy, Seed: res.Seed, Depth: res.Depth, PCTSteps: res.PCTSteps}
					o := &trace.Outcome{Kind: "pass", Steps: int64(res.Steps), Switches: int64(res.Switches), Goroutines: int64(res.Goroutines)}
					if err := trace.Write(cw, h, res.Trace, o); err != nil {
						b.Fatal(err)
					}
					bytesOut += cw.n
					events += res.Trace.Len()
				}
			}
			if c.write {
				if events == 0 {
					b.Fatal("no events recorded")
				}
				b.ReportMetric(float64(bytesOut)/float64(events), "bytes/event")
				b.ReportMetric(float64(events)/float64(b.N), "events/op")
			}
		})
	}
}

// countWriter counts the bytes written and discards them.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return io.Discard.Write(p)
}

// TestRecordWorkload runs the benchmark's workload once with recording, so
// that go test checks it works (and the trace it writes reads back).
func TestRecordWorkload(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Record: true}, recordWorkload)
	if err != nil || res.Failure != nil {
		t.Fatal(err, res.Failure)
	}
	want, err := res.Trace.Events()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := trace.Write(&out, &trace.Header{Test: "TestRecordWorkload"}, res.Trace, nil); err != nil {
		t.Fatal(err)
	}
	r := open(t, out.Bytes())
	got, err := r.ReadAll()
	if err != nil || !eventsEqual(got, want) {
		t.Fatalf("ReadAll: %v, %s", err, firstDiff(got, want))
	}
	if len(got) == 0 {
		t.Fatal("no events")
	}
	t.Logf("%d events, %d bytes: %.2f bytes/event", len(got), out.Len(), float64(out.Len())/float64(len(got)))
}
