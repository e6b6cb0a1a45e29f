package hunt

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
)

// The loop tests run a fake target: a pure function of the input's
// recording, replayed through entropy.ReplayThen so that its draws are real
// and a draw past the recording is fresh from the input's seed.
//
// ltTarget draws, in order:
//
//   - pad: a Choice(4) of uid padN, then pad Uint64s of uid padU. The pad
//     values only cost (values, and steps: the sum of the Uint64s mod
//     1000); a Uint64 equal to ltMagic is coverage index 200. pad == 3
//     fails the run.
//   - up to 8 Choice(4)s of uid A, stopping at the first 0: each nonzero v
//     counts a hit at coverage index v.
var (
	ltPadN = entropy.MakeUID(entropy.KindChoice, entropy.KeyOf("loop-test-pad"))
	ltPadU = entropy.MakeUID(entropy.KindUint, entropy.KeyOf("loop-test-pad"))
	ltA    = entropy.MakeUID(entropy.KindChoice, entropy.KeyOf("loop-test-a"))
)

const ltMagic = 0xfeedface

func ltTarget(in Input, cover []byte) Outcome {
	src := entropy.ReplayThen(in.Recording, in.Seed)
	pad := src.At(ltPadN.Key()).Choice(4)
	steps := 0
	for range pad {
		u := src.At(ltPadU.Key()).Uint64()
		steps += int(u % 1000)
		if u == ltMagic {
			cover[200]++
		}
	}
	a := src.At(ltA.Key())
	for range 8 {
		v := a.Choice(4)
		if v == 0 {
			break
		}
		cover[v]++
	}
	out := Outcome{Rec: src.Recording().Clone(), Size: Size{Steps: steps, Goroutines: 1}}
	if pad == 3 {
		out.Failure = &Failure{Kind: "panic", Signature: "panic at pad", Message: "pad is 3"}
	}
	return out
}

// ltInput is the input whose recording is exactly what ltTarget draws for
// it: pad, the pad Uint64s, then the A values (which must end with a 0, or
// be 8 long, for the recording to be the whole run).
func ltInput(pads []uint64, as ...uint64) Input {
	rec := &entropy.Recording{Values: []entropy.Value{{UID: ltPadN, V: uint64(len(pads))}}}
	for _, u := range pads {
		rec.Values = append(rec.Values, entropy.Value{UID: ltPadU, V: u})
	}
	for _, v := range as {
		rec.Values = append(rec.Values, entropy.Value{UID: ltA, V: v})
	}
	return Input{Strategy: engine.Random, Recording: rec}
}

// ltRun runs in and checks whether it joined the corpus.
func ltRun(t *testing.T, l *Loop, in Input, wantAdded bool) Outcome {
	t.Helper()
	out, added, err := l.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if added != wantAdded {
		t.Fatalf("Run(%v): joined the corpus: %v, want %v", in.Recording.Values, added, wantAdded)
	}
	return out
}

// ltCorpus is the recordings of the corpus, in its order.
func ltCorpus(l *Loop) [][]entropy.Value {
	var recs [][]entropy.Value
	for _, e := range l.corpus {
		recs = append(recs, e.in.Recording.Values)
	}
	return recs
}

func ltInputFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".input") {
			names = append(names, e.Name())
		}
	}
	return names
}

func ltNew(t *testing.T, cfg Config, target Target) *Loop {
	t.Helper()
	l, err := New(cfg, target)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLoopTargetIsPure(t *testing.T) {
	in := ltInput([]uint64{5, ltMagic}, 3, 1, 3, 0)
	c1, c2 := make([]byte, CoverSize), make([]byte, CoverSize)
	o1, o2 := ltTarget(in, c1), ltTarget(in, c2)
	if !reflect.DeepEqual(o1, o2) || !slices.Equal(c1, c2) {
		t.Fatal("the fake target is not deterministic")
	}
	if !reflect.DeepEqual(o1.Rec.Values, in.Recording.Values) {
		t.Fatalf("it drew %v, want exactly the recording %v", o1.Rec.Values, in.Recording.Values)
	}
	if c1[3] != 2 || c1[1] != 1 || c1[200] != 1 || o1.Size.Steps != 5+ltMagic%1000 {
		t.Fatalf("cover[1,3,200] = %d %d %d, steps %d", c1[1], c1[3], c1[200], o1.Size.Steps)
	}
}

// Passive minimization: an input that reaches a feature with fewer values
// takes it from the entry holding it, and an entry left holding nothing
// leaves the corpus, and its file the corpus directory.
func TestLoopPassiveMinimization(t *testing.T) {
	dir := t.TempDir()
	l := ltNew(t, Config{Seed: 1, Dir: dir}, ltTarget)

	x := ltInput([]uint64{100, 200}, 3, 1, 0) // features 3 and 1, 6 values
	y := ltInput(nil, 1, 0)                   // feature 1, 3 values
	z := ltInput(nil, 3, 0)                   // feature 3, 3 values

	ltRun(t, l, x, true)
	xfile := filepath.Join(dir, inputName(x))
	if _, err := os.Stat(xfile); err != nil {
		t.Fatalf("the first input was not saved: %v", err)
	}
	if st := l.Stats(); st.Corpus != 1 || st.Cover != 2 {
		t.Fatalf("after x: %+v, want 1 input and 2 features", st)
	}

	ltRun(t, l, y, true) // cheaper for feature 1; x still holds 3
	if got, want := ltCorpus(l), [][]entropy.Value{x.Recording.Values, y.Recording.Values}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after y the corpus is %v, want %v", got, want)
	}
	if l.best[1*8] != l.corpus[1] || l.best[3*8] != l.corpus[0] || l.corpus[0].holds != 1 {
		t.Fatal("feature 1 is not held by y, or feature 3 not by x")
	}

	ltRun(t, l, z, true) // cheaper for feature 3: x holds nothing now
	if got, want := ltCorpus(l), [][]entropy.Value{y.Recording.Values, z.Recording.Values}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after z the corpus is %v, want %v", got, want)
	}
	if _, err := os.Stat(xfile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dropped entry's file %s is still there (%v)", xfile, err)
	}
	want := []string{inputName(y), inputName(z)}
	slices.Sort(want)
	if got := ltInputFiles(t, dir); !slices.Equal(got, want) {
		t.Errorf("the corpus directory holds %v, want %v", got, want)
	}
	if st := l.Stats(); st.Corpus != 2 || st.Cover != 2 || st.New != 3 {
		t.Errorf("stats %+v, want corpus 2, cover 2, new 3", st)
	}
}

// With as many values, fewer steps wins.
func TestLoopMinimizationBySteps(t *testing.T) {
	l := ltNew(t, Config{Seed: 1}, ltTarget)
	p := ltInput([]uint64{50}, 2, 0)
	q := ltInput([]uint64{7}, 2, 0)
	r := ltInput([]uint64{9}, 2, 0)
	ltRun(t, l, p, true)
	ltRun(t, l, q, true)
	ltRun(t, l, r, false)
	ltRun(t, l, p, false)
	if got, want := ltCorpus(l), [][]entropy.Value{q.Recording.Values}; !reflect.DeepEqual(got, want) {
		t.Errorf("the corpus is %v, want only the run of fewest steps %v", got, want)
	}
}

// An input that reaches no feature first, or more cheaply, does not join;
// hit counts count as features by AFL's buckets.
func TestLoopNoNewFeature(t *testing.T) {
	l := ltNew(t, Config{Seed: 1}, ltTarget)
	ltRun(t, l, ltInput(nil, 1, 0), true)
	ltRun(t, l, ltInput(nil, 1, 0), false)             // the same run
	ltRun(t, l, ltInput([]uint64{5}, 1, 0), false)     // the same feature, dearer
	ltRun(t, l, ltInput(nil, 0), false)                // no feature at all
	ltRun(t, l, ltInput(nil, 1, 1, 0), true)           // feature 1 hit twice: bucket 2
	ltRun(t, l, ltInput(nil, 1, 1, 1, 0), true)        // three times: bucket 3
	ltRun(t, l, ltInput(nil, 1, 1, 1, 1, 0), true)     // 4: bucket 4-7
	ltRun(t, l, ltInput(nil, 1, 1, 1, 1, 1, 0), false) // 5: bucket 4-7 again, dearer
	ltRun(t, l, ltInput([]uint64{1, 2}, 1, 1, 1, 1, 1, 1, 1, 1), true)
	ltRun(t, l, ltInput([]uint64{1}, 1, 1, 1, 1, 1, 1, 1, 1), true) // 8 hits: bucket 8-15, cheaper
	if st := l.Stats(); st.Cover != 5 || st.Corpus != 5 {
		t.Errorf("stats %+v, want 5 features held by 5 inputs", st)
	}
}

// An input that reaches a feature first is mutated next, newest first, once
// each; one that only reaches a feature more cheaply is not pending. Then
// parents are chosen uniformly.
func TestLoopPending(t *testing.T) {
	l := ltNew(t, Config{Seed: 1, Fresh: 1e-9}, ltTarget)
	ltRun(t, l, ltInput([]uint64{7}, 1, 0), true) // feature 1
	ltRun(t, l, ltInput(nil, 2, 0), true)         // feature 2
	ltRun(t, l, ltInput(nil, 1, 0), true)         // feature 1, cheaper: drops the first input
	ltRun(t, l, ltInput(nil, 3, 3, 0), true)      // feature 3 (bucket 2)
	ltRun(t, l, ltInput([]uint64{9}, 3, 3, 0), false)
	var pending [][]entropy.Value
	for _, e := range l.pending {
		pending = append(pending, e.in.Recording.Values)
	}
	want := [][]entropy.Value{ltInput([]uint64{7}, 1, 0).Recording.Values, ltInput(nil, 2, 0).Recording.Values, ltInput(nil, 3, 3, 0).Recording.Values}
	if !reflect.DeepEqual(pending, want) {
		t.Fatalf("pending %v, want %v", pending, want)
	}
	// The first input was dropped from the corpus: it is skipped.
	for i, want := range []*entry{l.pending[2], l.pending[1]} {
		if got := l.parent(); got != want {
			t.Fatalf("parent %d: %v, want %v", i, got.in.Recording.Values, want.in.Recording.Values)
		}
	}
	if len(l.pending) != 1 {
		t.Fatalf("%d pending after two parents, want the dropped one left", len(l.pending))
	}
	l.parent()
	if len(l.pending) != 0 {
		t.Fatalf("%d pending, want none", len(l.pending))
	}
	for range 20 {
		if in := l.Next(); in.Recording == nil {
			t.Fatal("Fresh 1e-9 made a fresh input")
		}
	}
}

// A failing run does not join the corpus, whatever it reached: it is the
// caller's to keep.
func TestLoopFailureDoesNotJoin(t *testing.T) {
	l := ltNew(t, Config{Seed: 1, Dir: t.TempDir()}, ltTarget)
	out := ltRun(t, l, ltInput([]uint64{1, 2, 3}, 3, 2, 1, 0), false)
	if out.Failure == nil || out.Failure.Signature != "panic at pad" {
		t.Fatalf("the failure was not reported: %+v", out.Failure)
	}
	if st := l.Stats(); st != (Stats{Execs: 1, Failures: 1}) {
		t.Errorf("stats %+v, want one exec and one failure, nothing learnt", st)
	}
	if files := ltInputFiles(t, l.cfg.Dir); len(files) != 0 {
		t.Errorf("a failing input was saved: %v", files)
	}
}

func TestLoopStats(t *testing.T) {
	l := ltNew(t, Config{Seed: 1}, ltTarget)
	if st := l.Stats(); st != (Stats{}) {
		t.Fatalf("a new loop's stats: %+v", st)
	}
	for _, c := range []struct {
		in    Input
		added bool
	}{
		{ltInput([]uint64{100, 200}, 3, 1, 0), true}, // features 1, 3
		{ltInput(nil, 1, 0), true},                   // takes 1
		{ltInput(nil, 1, 0), false},
		{ltInput([]uint64{1, 1, 1}, 2, 0), false}, // fails
		{ltInput(nil, 3, 0), true},                // takes 3, the first is dropped
		{ltInput(nil, 0), false},
		{ltInput([]uint64{1, 1, 1}, 0), false}, // fails
		{ltInput(nil, 2, 2, 0), true},          // feature 2 (bucket 2)
	} {
		ltRun(t, l, c.in, c.added)
	}
	want := Stats{Execs: 8, New: 4, Corpus: 3, Cover: 3, Failures: 2}
	if st := l.Stats(); st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
	// Step counts as Run does.
	for range 50 {
		if _, _, _, err := l.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if st := l.Stats(); st.Execs != 58 || st.Corpus != len(l.corpus) || st.New < want.New || st.Failures < want.Failures {
		t.Errorf("after 50 steps: %+v", st)
	}
}

// The corpus keeps what an input drew, not the input: it replays without the
// seed.
func TestLoopKeepsWhatWasDrawn(t *testing.T) {
	l := ltNew(t, Config{Seed: 1}, ltTarget)
	var out Outcome
	for seed := uint64(1); ; seed++ {
		var added bool
		var err error
		out, added, err = l.Run(Input{Strategy: engine.PCT, Depth: 2, PCTSteps: 50, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if added {
			break
		}
	}
	e := l.corpus[0]
	if e.in.Strategy != engine.PCT || e.in.Depth != 2 || e.in.PCTSteps != 50 {
		t.Errorf("the entry's strategy changed: %+v", e.in)
	}
	if !reflect.DeepEqual(e.in.Recording.Values, out.Rec.Values) || e.in.Recording.Len() == 0 {
		t.Fatalf("the entry keeps %v, want what the run drew %v", e.in.Recording.Values, out.Rec.Values)
	}
	in := e.in
	in.Seed = 12345
	c1, c2 := make([]byte, CoverSize), make([]byte, CoverSize)
	ltTarget(e.in, c1)
	ltTarget(in, c2)
	if !slices.Equal(c1, c2) {
		t.Error("the entry does not replay the same under another seed")
	}
}

// Next mutates corpus inputs, and makes fresh ones from the portfolio in
// turn.
func TestLoopNext(t *testing.T) {
	l := ltNew(t, Config{Seed: 3, PCTSteps: 77}, ltTarget)
	for i := range 2 * len(portfolio) { // fewer than two corpus inputs: all fresh
		in := l.Next()
		want := portfolio[i%len(portfolio)]
		if in.Strategy != want.Strategy || in.Depth != want.Depth || in.Recording != nil {
			t.Fatalf("fresh input %d: %+v, want %+v", i, in, want)
		}
		if (in.Strategy == engine.PCT) != (in.PCTSteps == 77) {
			t.Errorf("fresh input %d: %+v: PCTSteps is the config's for pct only", i, in)
		}
	}
	ltRun(t, l, ltInput(nil, 1, 0), true)
	ltRun(t, l, ltInput(nil, 3, 3, 0), true)
	seeds := map[uint64]bool{}
	mutated := 0
	for range 200 {
		in := l.Next()
		seeds[in.Seed] = true
		if in.Recording != nil {
			mutated++
		}
	}
	if mutated < 60 || mutated > 140 {
		t.Errorf("%d of 200 inputs mutated, want about half", mutated)
	}
	if len(seeds) != 200 {
		t.Errorf("%d distinct seeds in 200 inputs", len(seeds))
	}

	fresh := ltNew(t, Config{Seed: 3, Fresh: 1}, ltTarget)
	ltRun(t, fresh, ltInput(nil, 1, 0), true)
	ltRun(t, fresh, ltInput(nil, 3, 3, 0), true)
	for range 100 {
		if in := fresh.Next(); in.Recording != nil {
			t.Fatal("Fresh 1 made a mutation")
		}
	}
}

// A second loop over the same directory loads the corpus and reaches the
// same coverage, without writing anything.
func TestLoopCorpusDir(t *testing.T) {
	dir := t.TempDir()
	l1 := ltNew(t, Config{Seed: 1, Dir: dir}, ltTarget)
	for range 300 {
		if _, _, _, err := l1.Step(); err != nil {
			t.Fatal(err)
		}
	}
	st1 := l1.Stats()
	files := ltInputFiles(t, dir)
	var held []string
	for _, e := range l1.corpus {
		held = append(held, filepath.Base(e.file))
		got, err := ReadInput(e.file)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, e.in) {
			t.Errorf("%s holds %+v, want %+v", e.file, got, e.in)
		}
	}
	slices.Sort(held)
	if !slices.Equal(files, held) || st1.Corpus < 4 {
		t.Fatalf("the directory holds %v, the corpus (%d) %v: want the same", files, st1.Corpus, held)
	}
	if n, err := l1.Sync(); n != 0 || err != nil {
		t.Errorf("Sync of a loop's own files: %d, %v", n, err)
	}

	l2 := ltNew(t, Config{Seed: 2, Dir: dir}, ltTarget)
	st2 := l2.Stats()
	if st2.Cover != st1.Cover || st2.Execs != len(files) || st2.New != 0 || st2.Corpus == 0 || st2.Corpus > st1.Corpus {
		t.Errorf("the second loop: %+v; the first: %+v, %d files", st2, st1, len(files))
	}
	if got := ltInputFiles(t, dir); !slices.Equal(got, files) {
		t.Errorf("loading changed the directory: %v, was %v", got, files)
	}
	if n, err := l2.Sync(); n != 0 || err != nil || l2.Stats().Execs != st2.Execs {
		t.Errorf("a second Sync: %d, %v, %d execs; want nothing loaded or run", n, err, l2.Stats().Execs)
	}
	// Running what it loaded adds nothing.
	for _, e := range l2.corpus {
		ltRun(t, l2, e.in, false)
	}

	// Another worker's input with a new feature: both loops load it.
	m := ltInput([]uint64{ltMagic}, 1, 0)
	if _, err := WriteInput(dir, m); err != nil {
		t.Fatal(err)
	}
	for i, l := range []*Loop{l1, l2} {
		cover := l.Stats().Cover
		if n, err := l.Sync(); n != 1 || err != nil || l.Stats().Cover != cover+1 {
			t.Errorf("loop %d: Sync of a new input: %d, %v, cover %d -> %d", i+1, n, err, cover, l.Stats().Cover)
		}
	}
}

func TestLoopSyncSkipsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"README":                 "not an input",
		".tmp-0123.input-456789": "half writ",
		"x.input.bak":            "old",
		".worker-0.cur":          "\x00\x00",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := ltNew(t, Config{Seed: 1, Dir: dir}, ltTarget)
	if st := l.Stats(); st.Execs != 0 {
		t.Errorf("loading ran %d inputs from a directory holding none", st.Execs)
	}
}

func TestLoopSyncFileRemoved(t *testing.T) {
	dir := t.TempDir()
	a, b := ltInput(nil, 1, 0), ltInput(nil, 2, 0)
	for name, in := range map[string]Input{"a.input": a, "b.input": b} {
		text, _ := in.MarshalText()
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Running a.input (first, in name order) removes b.input, after Sync
	// has listed the directory: as when another worker supersedes it.
	calls := 0
	target := func(in Input, cover []byte) Outcome {
		if calls++; calls == 1 {
			os.Remove(filepath.Join(dir, "b.input"))
		}
		return ltTarget(in, cover)
	}
	l, err := New(Config{Seed: 1, Dir: dir}, target)
	if err != nil {
		t.Fatalf("a file removed while loading: %v", err)
	}
	if st := l.Stats(); st.Execs != 1 || st.Corpus != 1 || l.corpus[0].file != filepath.Join(dir, "a.input") {
		t.Errorf("stats %+v, want a.input alone loaded", st)
	}
}

func TestLoopSyncCorruptFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteInput(dir, ltInput(nil, 1, 0)); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "ffff.input")
	if err := os.WriteFile(bad, []byte("dst-input 1 strategy=random\ne1garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := New(Config{Seed: 1, Dir: dir}, ltTarget)
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), bad) {
		t.Errorf("New over a corrupt input: %v, want an error naming %s", err, bad)
	}

	// And found by a later Sync.
	dir2 := t.TempDir()
	l := ltNew(t, Config{Seed: 1, Dir: dir2}, ltTarget)
	ltRun(t, l, ltInput(nil, 1, 0), true)
	bad2 := filepath.Join(dir2, "0000.input")
	if err := os.WriteFile(bad2, []byte("dst-input 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Sync(); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), bad2) {
		t.Errorf("Sync over a corrupt input: %v, want an error naming %s", err, bad2)
	}
}

func TestLoopBadDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := New(Config{Dir: filepath.Join(file, "corpus")}, ltTarget); err == nil {
		t.Error("New with a corpus directory under a file succeeded")
	}
}

// The needle: a run fails only when its first ltNeedleLen draws of one uid
// are the needle's choices, each of four; each correct prefix is a coverage
// feature. Fresh inputs find it with probability 4^-12 per run; the loop
// climbs it a choice at a time. A second uid adds features of its own, as
// unrelated parts of a program do.
var (
	ltN     = entropy.KeyOf("loop-test-needle")
	ltNoise = entropy.KeyOf("loop-test-noise")
	needle  = [...]int{3, 1, 2, 2, 3, 1, 1, 2, 3, 2, 1, 3}
)

func needleTarget(in Input, cover []byte) Outcome {
	src := entropy.ReplayThen(in.Recording, in.Seed)
	for range 3 {
		cover[100+src.At(ltNoise).Choice(4)]++
	}
	n, depth := src.At(ltN), 0
	for i, want := range needle {
		if n.Choice(4) != want || depth < i {
			continue
		}
		depth++
		cover[1+i]++
	}
	out := Outcome{Rec: src.Recording().Clone(), Size: Size{Steps: len(needle)}}
	if depth == len(needle) {
		out.Failure = &Failure{Kind: "panic", Signature: "needle", Message: "found the needle"}
	}
	return out
}

// execsToNeedle runs a loop until it fails, up to budget runs, and returns
// how many it ran (budget+1 when it did not find it).
func execsToNeedle(t *testing.T, cfg Config, budget int) int {
	t.Helper()
	l := ltNew(t, cfg, needleTarget)
	for i := 1; i <= budget; i++ {
		_, out, _, err := l.Step()
		if err != nil {
			t.Fatal(err)
		}
		if out.Failure != nil {
			return i
		}
	}
	return budget + 1
}

func TestLoopFindsNeedle(t *testing.T) {
	const budget = 20000
	seeds := []uint64{1, 2, 3}
	if engine.RaceEnabled {
		// The race detector makes a run about ten times slower; the
		// search is the same.
		seeds = seeds[1:2]
	} else {
		// Fresh inputs: 20000 runs find it with probability 20000 *
		// 4^-12, about 0.1%; with this seed, they do not.
		if n := execsToNeedle(t, Config{Seed: 1, Fresh: 1}, budget); n <= budget {
			t.Errorf("fresh inputs found the needle in %d runs: it is too easy to show anything", n)
		}
	}
	// The loop: about 7500 runs is typical, 16000 the worst of 30 seeds.
	for _, seed := range seeds {
		n := execsToNeedle(t, Config{Seed: seed}, budget)
		if n > budget {
			t.Errorf("seed %d: the loop did not find the needle in %d runs", seed, budget)
		} else {
			t.Logf("seed %d: the loop found the needle in %d runs", seed, n)
		}
	}
}
