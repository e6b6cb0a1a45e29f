package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dstgo/dst/replay"
	"github.com/dstgo/dst/trace"
)

// synthTrace writes a detailed trace of n events: goroutines taking turns
// on a few mutexes, as a long test's trace looks, with this file as the
// source of every location.
func synthTrace(tb testing.TB, dir string, n int) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	return writeSynth(tb, filepath.Join(dir, fmt.Sprintf("synth-%d.trace", n)), n, file)
}

// synthTraceAt writes a small synthetic trace whose locations are in file.
func synthTraceAt(tb testing.TB, file string) string {
	tb.Helper()
	dir := tb.TempDir()
	return writeSynth(tb, filepath.Join(dir, "synth.trace"), 100, file)
}

func writeSynth(tb testing.TB, path string, n int, file string) string {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	w, err := trace.NewWriter(bw, &trace.Header{Package: "example.com/synth", Test: "TestSynth", Strategy: "random", Detail: true})
	if err != nil {
		tb.Fatal(err)
	}
	const goroutines, objects = 8, 4
	add := func(e trace.Event) {
		if err := w.Add(&e); err != nil {
			tb.Fatal(err)
		}
	}
	add(trace.Event{Kind: trace.KindSpawn, Arg: 1})
	for o := int32(1); o <= objects; o++ {
		add(trace.Event{Kind: trace.KindObject, G: 1, Obj: o, Text: "Mutex"})
	}
	for g := int64(2); g <= goroutines; g++ {
		add(trace.Event{Kind: trace.KindSpawn, G: 1, Arg: g})
	}
	step, cur := int64(0), int32(1)
	for i := 2 + objects + goroutines - 1; i < n; i++ {
		switch i % 4 {
		case 3:
			next := int32(1 + (i/4)%goroutines)
			add(trace.Event{Kind: trace.KindSwitch, Step: step, G: cur, Time: step * 1000, Arg: int64(next), Choice: int64(next - 1), N: goroutines})
			cur = next
		default:
			step++
			loc := trace.Location{Func: "synth.worker", File: file, Line: 20 + i%40}
			add(trace.Event{Kind: trace.KindOp, Step: step, G: cur, Time: step * 1000, Op: 5 + uint8(i%2), Obj: int32(1 + i%objects), Loc: loc})
		}
	}
	if err := w.Close(&trace.Outcome{Kind: "pass", Steps: step}); err != nil {
		tb.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// openAndRender is what dstreplay does before a person sees anything:
// open the trace, place the cursor, render the first screen.
func openAndRender(tb testing.TB, path string) {
	c, err := replay.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	m := newStepper(c, path)
	m.w, m.h = 160, 50
	if len(m.View()) == 0 {
		tb.Fatal("an empty screen")
	}
	c.Close()
}

// BenchmarkOpen opens a trace of a million events and renders the first
// screen (target: under a second), against the same for a thousand events
// measured in the same run: the ratio says how opening grows with size.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	paths := map[int]string{1_000: synthTrace(b, dir, 1_000), 1_000_000: synthTrace(b, dir, 1_000_000)}
	var base float64
	for _, n := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			for b.Loop() {
				openAndRender(b, paths[n])
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if n == 1_000 {
				base = per
			} else if base > 0 {
				b.ReportMetric(per/base, "x-1e3-events")
			}
			b.ReportMetric(per/1e9, "s/open")
		})
	}
}

// BenchmarkStep steps back and forth at the start, the middle and the end
// of a million-event trace: each position's cost per step, and its ratio
// to the start's, measured in the same run (target: the same everywhere).
func BenchmarkStep(b *testing.B) {
	path := synthTrace(b, b.TempDir(), 1_000_000)
	c, err := replay.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	// Visit the end once, as jumping to the failure does.
	if err := c.Goto(c.Len() - 1); err != nil {
		b.Fatal(err)
	}
	const span = 200 // steps each way per iteration: more than a frame boundary's worth of positions
	var base float64
	for _, at := range []struct {
		name string
		pos  int64
	}{{"start", span}, {"middle", c.Len() / 2}, {"end", c.Len() - 1}} {
		b.Run("at="+at.name, func(b *testing.B) {
			if err := c.Goto(at.pos); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				for range span {
					if _, err := c.Prev(); err != nil {
						b.Fatal(err)
					}
				}
				for range span {
					if _, err := c.Next(); err != nil {
						b.Fatal(err)
					}
				}
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / (2 * span)
			if at.name == "start" {
				base = per
			} else if base > 0 {
				b.ReportMetric(per/base, "x-start")
			}
			b.ReportMetric(per, "ns/step")
		})
	}
}

// BenchmarkJumpToEnd opens a million-event trace and jumps to its last
// event, as the first f (jump to the failure) does: the state of every
// goroutine there depends on every event before it, so this one walk is
// linear in the trace; later moves anywhere reuse its checkpoints.
func BenchmarkJumpToEnd(b *testing.B) {
	path := synthTrace(b, b.TempDir(), 1_000_000)
	for b.Loop() {
		c, err := replay.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Goto(c.Len() - 1); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/jump")
}
