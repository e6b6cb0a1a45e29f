package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/trace"
)

// TestGenerateBigTrace writes the trace that memory is measured on, when
// DST_BIG_TRACE names where (and DST_BIG_TRACE_EVENTS how many events,
// 2,000,000 by default):
//
//	DST_BIG_TRACE=/tmp/big.trace go test -run TestGenerateBigTrace ./internal/cli
//	/usr/bin/time -v dstreplay summary /tmp/big.trace
//	/usr/bin/time -v dstreplay html -o /tmp/big.html /tmp/big.trace
func TestGenerateBigTrace(t *testing.T) {
	path := os.Getenv("DST_BIG_TRACE")
	if path == "" {
		t.Skip("DST_BIG_TRACE is not set")
	}
	n := 2_000_000
	if s := os.Getenv("DST_BIG_TRACE_EVENTS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("DST_BIG_TRACE_EVENTS=%q: %v", s, err)
		}
	}
	_, file, _, _ := runtime.Caller(0) // the locations' source: this file
	writeSynth(t, path, n+1, file)     // writeSynth writes one fewer
	t.Logf("wrote %s: %d events", path, n)
}

// html holds the last -events events of a long trace (100,000 unless
// told), numbered as every command numbers them, and says how many it
// left out; its lanes, wakes and failure point into the events it holds.
// Regression: it held every event, 593 MB for a trace of 2,000,000.
func TestHTMLHoldsTheLastEvents(t *testing.T) {
	dir := t.TempDir()
	path := writeSynth(t, filepath.Join(dir, "long.trace"), 3000, "/nonexistent/worker.go")
	n := eventsIn(t, path)
	all := htmlOf(t, path, "-events", "0")
	if all.first != 0 || all.n != n || all.omitted != "" {
		t.Fatalf("-events 0: events %d to %d, omitted %q; want all %d", all.first, all.first+all.n, all.omitted, n)
	}
	p := htmlOf(t, path, "-events", "1000")
	if p.first != n-1000 || p.n != 1000 || len(p.ev.Step) != 1000 {
		t.Fatalf("-events 1000: events from %d, %d of them (%d steps); want the last 1000 of %d", p.first, p.n, len(p.ev.Step), n)
	}
	if !strings.Contains(p.omitted, fmt.Sprintf("%d before them are omitted", n-1000)) || !strings.Contains(p.omitted, fmt.Sprintf("events %d to %d", n-999, n)) ||
		!strings.Contains(p.text, `id="omitted"`) {
		t.Errorf("the page does not say what it left out: %q", p.omitted)
	}
	if !strings.Contains(p.text, fmt.Sprintf("%d events over", n)) {
		t.Error("the page's statistics are not the trace's")
	}
	// The same events as the whole page's last 1000.
	if !slices.Equal(p.ev.Step, all.ev.Step[n-1000:]) {
		t.Error("the page's events are not the trace's last ones")
	}
	for _, l := range p.lanes {
		for _, span := range [][]int64{l.Runs, l.Blocked} {
			for _, i := range span {
				if i < 0 || i > p.n {
					t.Fatalf("lane g%d has a span at %d, outside the page's %d events", l.G, i, p.n)
				}
			}
		}
	}
	if p.sel < -1 || p.sel >= p.n { // -1: none (a pass)
		t.Errorf("selected %d of %d", p.sel, p.n)
	}
	// The default, on a trace longer than it.
	long := writeSynth(t, filepath.Join(dir, "longer.trace"), defaultPageEvents+500, "/nonexistent/worker.go")
	if p := htmlOf(t, long); p.first != eventsIn(t, long)-defaultPageEvents || p.n != defaultPageEvents || p.omitted == "" {
		t.Errorf("default: events from %d, %d of them; want the last %d", p.first, p.n, defaultPageEvents)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"html", "-events", "-1", path}, &out, &errb); code != ExitUsage {
		t.Errorf("-events -1: exit %d, %s", code, errb.String())
	}
}

// A deadlock whose goroutines blocked before the page's events: they are
// blocked on the page from its first event to its end, marked failed, and
// the failure is the last event.
func TestHTMLDeadlockBeforeThePage(t *testing.T) {
	evs := []trace.Event{
		{Kind: trace.KindSpawn, Arg: 1},
		{Kind: trace.KindObject, G: 1, Obj: 1, Text: "Mutex"},
		{Kind: trace.KindSpawn, G: 1, Arg: 2},
		{Kind: trace.KindSwitch, G: 1, Arg: 2, N: 2},
		{Kind: trace.KindBlock, Step: 1, G: 2, Op: opLock, Obj: 1},
		{Kind: trace.KindSwitch, Step: 1, G: 2, Arg: 1, N: 1},
	}
	for s := int64(2); s < 500; s++ {
		evs = append(evs, trace.Event{Kind: trace.KindOp, Step: s, G: 1, Op: opLock, Obj: 1})
	}
	evs = append(evs, trace.Event{Kind: trace.KindBlock, Step: 500, G: 1, Op: opLock, Obj: 1})
	path := writeTrace(t, filepath.Join(t.TempDir(), "dl.trace"), &trace.Header{Test: "TestDL", Strategy: "random"},
		&trace.Outcome{Kind: "deadlock", Message: "deadlock"}, evs...)
	p := htmlOf(t, path, "-events", "100")
	if p.first != int64(len(evs))-100 || p.n != 100 {
		t.Fatalf("events from %d, %d of them", p.first, p.n)
	}
	if !slices.Equal(p.fail, []int64{99}) || p.sel != 99 {
		t.Errorf("fail %v, selected %d: want the last event, g1's block", p.fail, p.sel)
	}
	for _, l := range p.lanes {
		if l.G == 2 && !slices.Equal(l.Blocked, []int64{0, 100}) {
			t.Errorf("g2 blocked %v: want the whole page", l.Blocked)
		}
	}
	if !strings.Contains(p.text, `"g":2,"name":"g2","end":"blocked in Mutex#1.Lock","failed":true`) {
		t.Error("g2, blocked before the page, is not marked as failed")
	}
}

// The summary keeps the longest waits as a stable sort of them all would
// list them.
func TestLongestWaits(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var all []wait
		l := longestWaits{n: maxListedWaits}
		for i := range rnd.IntN(30) {
			from := rnd.Int64N(10)
			w := wait{g: int32(rnd.IntN(4)), what: strconv.Itoa(i), from: from, to: from + rnd.Int64N(5)}
			all = append(all, w)
			l.add(w)
		}
		slices.SortStableFunc(all, func(a, b wait) int {
			switch {
			case a.before(b):
				return -1
			case b.before(a):
				return 1
			}
			return 0
		})
		if want := all[:min(len(all), maxListedWaits)]; !slices.Equal(l.waits, want) {
			t.Fatalf("kept %v, want %v", l.waits, want)
		}
	}
}

// eventsIn is how many events the trace at path has.
func eventsIn(t *testing.T, path string) int64 {
	t.Helper()
	r, err := trace.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Len()
}

// Every command that reads a whole trace before it writes says how far it
// has come, once a second: a trace of a megabyte may hold a hundred
// million events.
// Regression (found in an attack): summary and html read such a trace for
// seconds without a word.
func TestLongReadsShowProgress(t *testing.T) {
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = 0
	dir := t.TempDir()
	path := writeSynth(t, filepath.Join(dir, "long.trace"), 70_000, "/nonexistent/worker.go") // diff's progress: every 65,536
	for _, args := range [][]string{
		{"summary", path}, {"html", "-o", filepath.Join(dir, "long.html"), path},
		{"export", "-o", filepath.Join(dir, "long.json"), path}, {"diff", path, path},
	} {
		var out, errb bytes.Buffer
		Main(args, &out, &errb)
		if !regexp.MustCompile(`dstreplay `+args[0]+`: \d+ of \d+ events \(\d+%\)\n`).MatchString(errb.String()) || !strings.Contains(errb.String(), "dstreplay "+args[0]+": done in ") {
			t.Errorf("%s says no progress:\n%s", args[0], errb.String())
		}
	}
}
