package trace_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/dstgo/dst/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files and the fuzz seed corpus in testdata")

// goldenEvents has an event of every kind, some with a source location, and
// objects with and without a label.
func goldenEvents() []trace.Event {
	loc := trace.Location{Func: "github.com/dstgo/dst/example.worker.func1", File: "/home/dev/src/example/worker.go", Line: 42}
	loc2 := trace.Location{Func: "main.main", File: "/src/main.go", Line: 7}
	return []trace.Event{
		{Kind: trace.KindSpawn, Step: 0, G: 1, Arg: 2},
		{Kind: trace.KindObject, Step: 0, G: 1, Obj: 1, Text: "Mutex"},
		{Kind: trace.KindObject, Step: 0, G: 1, Obj: 2, Text: "chan int"},
		{Kind: trace.KindOp, Step: 1, G: 1, Op: 5, Obj: 1, Loc: loc},
		{Kind: trace.KindOp, Step: 2, G: 2, Op: 5, Obj: 1},
		{Kind: trace.KindBlock, Step: 2, G: 2, Op: 5, Obj: 1, Loc: loc2},
		{Kind: trace.KindSwitch, Step: 2, G: 2, Arg: 1, Choice: 0, N: 1},
		{Kind: trace.KindOp, Step: 3, G: 1, Op: 6, Obj: 1, Loc: loc},
		{Kind: trace.KindWake, Step: 3, G: 1, Arg: 2},
		{Kind: trace.KindOp, Step: 4, G: 1, Op: 20, Obj: 3}, // unlabeled object
		{Kind: trace.KindSelect, Step: 5, G: 2, Arg: 1, N: 2},
		{Kind: trace.KindTimerSet, Step: 6, G: 1, Arg: 1, Dur: 1500000},
		{Kind: trace.KindClock, Step: 7, Time: 1500000},
		{Kind: trace.KindTimerFire, Step: 7, Time: 1500000, Arg: 1},
		{Kind: trace.KindFault, Step: 8, G: 2, Time: 1500000, Text: "disk.write", Arg: 1},
		{Kind: trace.KindFault, Step: 9, G: 2, Time: 1500000, Text: "net.drop", Arg: 0, Loc: loc2},
		{Kind: trace.KindLog, Step: 10, G: 1, Time: 2 * 3600e9, Text: "hello \"world\"\n"},
		{Kind: trace.KindOp, Step: 11, G: 1, Time: 2 * 3600e9, Op: 200, Obj: 2},                              // unknown operation
		{Kind: trace.KindIO, Step: 11, G: 2, Time: 2 * 3600e9, Op: 20, Obj: 2, Arg: 4096, N: 300, Dur: 10e6}, // a kind past the header's bits
		{Kind: trace.KindIO, Step: 11, G: 1, Time: 2 * 3600e9, Op: 21, Obj: 2, Arg: 4096, N: 100},            // at once: no after=
		{Kind: trace.KindPanic, Step: 12, G: 2, Time: 2 * 3600e9, Text: "index out of range [3] with length 3", Loc: loc},
		{Kind: trace.KindExit, Step: 13, G: 1, Time: 2 * 3600e9},
	}
}

func goldenTrace(t *testing.T) []byte {
	h := &trace.Header{
		Package: "github.com/dstgo/dst/example", Test: "TestWorker/two", GoVersion: "go1.26.0",
		GOOS: "linux", GOARCH: "amd64", Strategy: "pct", Depth: 3, PCTSteps: 100, MaxSteps: 100000,
		Seed: 0xdeadbeef, Detail: true, Options: []string{"faults=0.1", "clock.start=2000-01-01T00:00:00Z"},
		Recording: []byte{1, 2, 3},
	}
	o := &trace.Outcome{Kind: "panic", Message: "index out of range [3] with length 3\ngoroutine 2 [running]:",
		Report: "full report", Steps: 13, Switches: 1, Goroutines: 2}
	return encode(t, h, goldenEvents(), o)
}

func TestTextGolden(t *testing.T) {
	r := open(t, goldenTrace(t))
	var got bytes.Buffer
	if err := r.WriteText(&got); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "text.golden")
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("WriteText differs from %s (run with -update to accept):\n--- got\n%s\n--- want\n%s", path, got.Bytes(), want)
	}
}

// TestTextTruncated checks that the text form of a cut trace says so.
func TestTextTruncated(t *testing.T) {
	data := goldenTrace(t)
	l := parseLayout(t, data)
	r := open(t, data[:l.frames[0].end])
	var got bytes.Buffer
	if err := r.WriteText(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got.Bytes(), []byte("\n# truncated: ")) || bytes.Contains(got.Bytes(), []byte("# outcome:")) {
		t.Errorf("text of a truncated trace:\n%s", got.Bytes())
	}
	if n := bytes.Count(got.Bytes(), []byte("\n")); n < len(goldenEvents()) {
		t.Errorf("text of a truncated trace has %d lines:\n%s", n, got.Bytes())
	}
}
