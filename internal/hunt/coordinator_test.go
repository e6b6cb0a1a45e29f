package hunt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// fakeRand returns its values in turn, each modulo n.
type fakeRand struct {
	vals []int
	n    []int // the n of each call
}

func (r *fakeRand) IntN(n int) int {
	r.n = append(r.n, n)
	v := r.vals[0] % n
	r.vals = r.vals[1:]
	return v
}

func TestTestWeight(t *testing.T) {
	const mean = 1000
	fresh := testWeight(pickStats{}, mean)
	found := testWeight(pickStats{execs: mean, batches: 3, sinceNew: 0}, mean)
	older := testWeight(pickStats{execs: mean, batches: 3, sinceNew: 2}, mean)
	stale := testWeight(pickStats{execs: mean, batches: 3, sinceNew: neverNew}, mean)
	few := testWeight(pickStats{execs: 10, batches: 3, sinceNew: neverNew}, mean)
	many := testWeight(pickStats{execs: 1000 * mean, batches: 3, sinceNew: neverNew}, mean)
	if !(fresh > found && found > older && older > stale) {
		t.Errorf("fresh %d, found new coverage last batch %d, two batches ago %d, never %d: want decreasing", fresh, found, older, stale)
	}
	if !(few > stale && stale > many) {
		t.Errorf("few execs %d, mean %d, many %d: want decreasing", few, stale, many)
	}
	if many < weightFloor || many < 1 {
		t.Errorf("a test that ran a lot and found nothing has weight %d: it must keep %d", many, weightFloor)
	}
	if w := testWeight(pickStats{batches: 1, sinceNew: neverNew}, 0); w != weightFloor+weightFew {
		t.Errorf("no executions anywhere: weight %d, want %d", w, weightFloor+weightFew)
	}
}

func TestPickTest(t *testing.T) {
	stats := []pickStats{
		{execs: 5000, batches: 4, sinceNew: neverNew}, // stale
		{execs: 5000, batches: 4, sinceNew: 0},        // just found new coverage
		{execs: 100, batches: 1, sinceNew: 1},         // found new coverage a batch ago, few execs
	}
	var mean float64 = 10100.0 / 3
	weights := []int{testWeight(stats[0], mean), testWeight(stats[1], mean), testWeight(stats[2], mean)}
	total := weights[0] + weights[1] + weights[2]
	// Every draw in [0, total) once: each test is picked as often as its
	// weight says.
	r := &fakeRand{}
	for v := range total {
		r.vals = append(r.vals, v)
	}
	got := make([]int, len(stats))
	for range total {
		got[pickTest(stats, r)]++
	}
	if !slices.Equal(got, weights) {
		t.Errorf("picks %v, want the weights %v", got, weights)
	}
	if slices.ContainsFunc(r.n, func(n int) bool { return n != total }) {
		t.Errorf("drew from %v, want %d each time", r.n, total)
	}
	// The boundaries: the first and last draw of each test's share.
	r = &fakeRand{vals: []int{0, weights[0] - 1, weights[0], total - 1}}
	for i, want := range []int{0, 0, 1, 2} {
		if got := pickTest(stats, r); got != want {
			t.Errorf("draw %d: picked %d, want %d", i, got, want)
		}
	}
	if got := pickTest(stats[:1], &fakeRand{vals: []int{7}}); got != 0 {
		t.Errorf("one test: picked %d", got)
	}
	// While some tests have not run, only they are drawn, alike.
	stats = append(stats, pickStats{}, pickStats{})
	r = &fakeRand{vals: []int{0, 2*weightFresh - 1}}
	if a, b := pickTest(stats, r), pickTest(stats, r); a != 3 || b != 4 || r.n[0] != 2*weightFresh {
		t.Errorf("with two tests not run: picked %d and %d from [0, %d)", a, b, r.n[0])
	}
}

func TestCrashMessage(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"ok\nfatal error: concurrent map writes\n\ngoroutine 5 [running]:\n", "fatal error: concurrent map writes"},
		{"panic: boom [recovered]\n", "panic: boom [recovered]"},
		{"--- FAIL: TestX (0.01s)\n\n    x_test.go:12: it broke\nFAIL\n", "x_test.go:12: it broke"},
		{"nothing to see\n", "signal: killed"},
	} {
		if got := crashMessage([]byte(c.out), "signal: killed"); got != c.want {
			t.Errorf("%q: got %q, want %q", c.out, got, c.want)
		}
	}
	if got := lastLines([]byte("a\nb\nc\n"), 2); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("lastLines: %q", got)
	}
	if got := lastLines(nil, 2); got != nil {
		t.Errorf("lastLines of nothing: %q", got)
	}
}

func TestTailAndLines(t *testing.T) {
	var got []string
	w := &lineWriter{fn: func(l []byte) { got = append(got, string(l)) }}
	w.Write([]byte("one\ntw"))
	w.Write([]byte("o\nthree"))
	w.flush()
	if !slices.Equal(got, []string{"one", "two", "three"}) {
		t.Errorf("lines: %q", got)
	}
	got = nil
	w.Write(bytes.Repeat([]byte("x"), maxLine+10))
	w.Write([]byte("\n"))
	if len(got) != 2 || len(got[0]) != maxLine || len(got[1]) != 10 {
		t.Errorf("a long line: %d pieces", len(got))
	}

	var tl tail
	for i := range 20000 {
		tl.add(fmt.Appendf(nil, "line %d", i))
	}
	b := tl.bytes()
	if len(b) > maxTail || !bytes.HasPrefix(b, []byte("line ")) || !bytes.HasSuffix(b, []byte("line 19999\n")) {
		t.Errorf("tail: %d bytes, from %q", len(b), b[:20])
	}
}

func TestFailDir(t *testing.T) {
	t.Setenv("DST_DIR", "")
	if got := failDir("/abs/fail", "/pkg"); got != "/abs/fail" {
		t.Errorf("-dir: %s", got)
	}
	if got := failDir("", "/pkg"); got != filepath.Join("/pkg", "testdata", "dst") {
		t.Errorf("default: %s", got)
	}
	t.Setenv("DST_DIR", "saved")
	if got := failDir("", "/pkg"); got != filepath.Join("/pkg", "saved") {
		t.Errorf("$DST_DIR: %s", got)
	}
}

func TestNextWake(t *testing.T) {
	now := time.Now()
	a := &Test{Name: "TestA", notBefore: now.Add(3 * time.Second)}
	b := &Test{Name: "TestB", notBefore: now.Add(time.Second)}
	c := &Test{Name: "TestC", notBefore: now.Add(-time.Second)} // may start now
	h := &Hunter{Tests: []*Test{a, b, c}}
	if d := h.nextWake(now); d != time.Second {
		t.Errorf("wake in %v, want 1s", d)
	}
	b.Dropped = "given up"
	if d := h.nextWake(now); d != 3*time.Second {
		t.Errorf("with TestB given up: wake in %v, want 3s", d)
	}
	h.deadline = now.Add(2 * time.Second) // TestA's wait outlasts the budget
	if d := h.nextWake(now); d != 0 {
		t.Errorf("past the deadline: wake in %v, want none", d)
	}
}

// The files there before a hunt include its subtests' saved failures.
func TestSavedBefore(t *testing.T) {
	dir := t.TempDir()
	files := []string{
		filepath.Join(dir, "TestX", "deadlock-1.trace"),
		filepath.Join(dir, "TestX", "deadlock-1.input"),
		filepath.Join(dir, "TestX", "sub", "leak-2.trace"),
	}
	other := filepath.Join(dir, "TestY", "leak-3.trace")
	for _, f := range append(files, other, filepath.Join(dir, "TestX", "notes.txt")) {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := savedBefore([]*Test{{Name: "TestX", FailDir: dir}})
	if len(got) != len(files) {
		t.Errorf("savedBefore = %v, want %v", got, files)
	}
	for _, f := range files {
		if !got[f] {
			t.Errorf("savedBefore lacks %s", f)
		}
	}
}

func TestPatternDir(t *testing.T) {
	for p, want := range map[string][2]string{
		".":                  {".", "."},
		"./examples/...":     {"./examples", "./..."},
		"../mine/cache":      {"../mine/cache", "."},
		"/abs/mine/...":      {"/abs/mine", "./..."},
		"example.com/m/...":  {"", "example.com/m/..."},
		"github.com/x/y/pkg": {"", "github.com/x/y/pkg"},
	} {
		if dir, rest := patternDir(p); dir != want[0] || rest != want[1] {
			t.Errorf("patternDir(%q) = %q, %q; want %q", p, dir, rest, want)
		}
	}
}
