package hunt

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/engine"

	"github.com/dstgo/dst/entropy"
)

// The shrink tests run a fake program over a recording replayed with
// entropy.Replay (a value past the recording is the fallback 0): it draws up
// to 12 rounds of a value of uid A and a noise value, and fails as soon as
// an A value is 5 or more. The noise never matters. Steps counts the rounds
// run. shRun's failures have one signature; shRunPositional's say whether
// the big value came first.
var (
	shA     = entropy.MakeUID(entropy.KindUint, entropy.KeyOf("shrink-test-a"))
	shNoise = entropy.MakeUID(entropy.KindChoice, entropy.KeyOf("shrink-test-noise"))
	shBytes = entropy.MakeUID(entropy.KindBytes, entropy.KeyOf("shrink-test-bytes"))
)

const (
	sigBig   = "panic: A is big"
	sigFirst = "panic: A is big (first)"
	sigLater = "panic: A is big (later)"
)

func shRun(in Input) Outcome { return shProgram(entropy.Replay(in.Recording), false) }

func shRunPositional(in Input) Outcome { return shProgram(entropy.Replay(in.Recording), true) }

// shRunThen is shRun as a loop's target runs it: draws past the recording
// are fresh from the input's seed.
func shRunThen(in Input) Outcome { return shProgram(entropy.ReplayThen(in.Recording, in.Seed), false) }

func shProgram(src *entropy.Source, positional bool) Outcome {
	out := Outcome{Size: Size{Goroutines: 1}}
	for i := range 12 {
		a := src.At(shA.Key()).Uint64()
		src.At(shNoise.Key()).Choice(1000)
		out.Size.Steps++
		if a >= 5 {
			sig := sigBig
			switch {
			case positional && i == 0:
				sig = sigFirst
			case positional:
				sig = sigLater
			}
			out.Failure = &Failure{Kind: "panic", Signature: sig, Message: "A is big"}
			break
		}
	}
	out.Rec = src.Recording().Clone()
	return out
}

func shV(u entropy.UID, v uint64) entropy.Value { return entropy.Value{UID: u, V: v} }

// shFailing is a failing input: the big A value (8) is the fourth, and
// another (6) comes later, among noise.
func shFailing() Input {
	return Input{Strategy: engine.Random, Recording: &entropy.Recording{Values: []entropy.Value{
		shV(shA, 1), shV(shNoise, 17), shV(shA, 3), shV(shNoise, 500), shV(shA, 2), shV(shNoise, 9),
		shV(shA, 8), shV(shNoise, 4), shV(shA, 0), shV(shNoise, 200), shV(shA, 6), shV(shNoise, 3),
		shV(shA, 2), shV(shNoise, 999),
	}}}
}

// shCounting wraps a run function, counting the runs and the signatures
// they failed with.
type shCounting struct {
	fn   func(Input) Outcome
	runs int
	sigs map[string]int
}

func (c *shCounting) run(in Input) Outcome {
	c.runs++
	out := c.fn(in)
	if c.sigs == nil {
		c.sigs = map[string]int{}
	}
	if out.Failure != nil {
		c.sigs[out.Failure.Signature]++
	} else {
		c.sigs["pass"]++
	}
	return out
}

func TestShrinkToOneValue(t *testing.T) {
	in := shFailing()
	out := shRun(in)
	if out.Failure == nil || out.Failure.Signature != sigBig || out.Size.Steps != 4 {
		t.Fatalf("the input does not fail as it should: %+v, %v", out.Failure, out.Size)
	}
	c := shCounting{fn: shRun}
	res := Shrink(ShrinkConfig{}, in, out, c.run)

	want := []entropy.Value{shV(shA, 5)}
	if !reflect.DeepEqual(res.Input.Recording.Values, want) || len(res.Input.Recording.Data) != 0 {
		t.Errorf("shrunk to %v (data %q), want %v", res.Input.Recording.Values, res.Input.Recording.Data, want)
	}
	if res.Outcome.Failure == nil || res.Outcome.Failure.Signature != sigBig {
		t.Errorf("the result fails with %+v, want the signature %q", res.Outcome.Failure, sigBig)
	}
	if res.Before != SizeOf(out.Size, in.Recording) {
		t.Errorf("Before = %v, want the input's size %v", res.Before, SizeOf(out.Size, in.Recording))
	}
	if !res.After.Less(res.Before) || res.After != SizeOf(res.Outcome.Size, res.Input.Recording) {
		t.Errorf("After = %v, Before = %v", res.After, res.Before)
	}
	if res.Runs <= 0 || res.Runs != c.runs || res.Runs > 2000 {
		t.Errorf("Runs = %d, the run function was called %d times", res.Runs, c.runs)
	}
	if res.Input.Strategy != in.Strategy {
		t.Errorf("the strategy changed to %q", res.Input.Strategy)
	}
	again := shRun(res.Input)
	if !reflect.DeepEqual(again, res.Outcome) {
		t.Errorf("the result's outcome %+v is not its input's run %+v", res.Outcome, again)
	}
	if in.Recording.Len() != 14 {
		t.Error("Shrink modified its input")
	}

	// Deterministic.
	res2 := Shrink(ShrinkConfig{}, in, out, shRun)
	if !reflect.DeepEqual(res2.Input, res.Input) || res2.Runs != res.Runs {
		t.Errorf("a second Shrink gave %v in %d runs, the first %v in %d", res2.Input.Recording.Values, res2.Runs, res.Input.Recording.Values, res.Runs)
	}
}

// The failure signature is kept: a candidate that fails another way is
// never accepted, however small.
func TestShrinkKeepsSignature(t *testing.T) {
	// The big value is not first: every candidate that makes it first
	// fails with sigFirst, and must be refused.
	in := shFailing()
	out := shRunPositional(in)
	if out.Failure == nil || out.Failure.Signature != sigLater {
		t.Fatalf("the input fails with %+v, want %q", out.Failure, sigLater)
	}
	c := shCounting{fn: shRunPositional}
	res := Shrink(ShrinkConfig{}, in, out, c.run)
	if c.sigs[sigFirst] == 0 {
		t.Fatalf("no candidate failed with the other signature (%v): the test shows nothing", c.sigs)
	}
	if res.Outcome.Failure == nil || res.Outcome.Failure.Signature != sigLater {
		t.Fatalf("the result fails with %+v, want the signature %q", res.Outcome.Failure, sigLater)
	}
	if o := shRunPositional(res.Input); o.Failure == nil || o.Failure.Signature != sigLater {
		t.Fatalf("the result's input fails with %+v, want %q", o.Failure, sigLater)
	}
	want := []entropy.Value{shV(shA, 0), shV(shA, 5)}
	if !reflect.DeepEqual(res.Input.Recording.Values, want) {
		t.Errorf("shrunk to %v, want %v", res.Input.Recording.Values, want)
	}
}

// A candidate that fails the same way but is not smaller is refused: here
// every deleted value costs a step, and steps weigh more than values, so
// only setting values to zero and lowering them shrinks.
func TestShrinkRefusesLarger(t *testing.T) {
	in := shFailing()
	run := func(in Input) Outcome {
		out := shRun(in)
		out.Size.Steps = 100 - in.Recording.Len()
		return out
	}
	out := run(in)
	res := Shrink(ShrinkConfig{}, in, out, run)
	if res.Input.Recording.Len() != in.Recording.Len() {
		t.Errorf("shrunk to %v: a deletion was accepted though it added a step", res.Input.Recording.Values)
	}
	if !res.After.Less(res.Before) || res.After.Steps != res.Before.Steps {
		t.Errorf("After %v, Before %v: want as many steps, and smaller values", res.After, res.Before)
	}
	var big []uint64
	for _, v := range res.Input.Recording.Values {
		if v.V != 0 {
			big = append(big, v.V)
		}
	}
	if !slices.Equal(big, []uint64{5}) {
		t.Errorf("shrunk to %v, want every value 0 but one A of 5", res.Input.Recording.Values)
	}
}

func TestShrinkBudget(t *testing.T) {
	in := shFailing()
	out := shRun(in)
	full := Shrink(ShrinkConfig{}, in, out, shRun)
	for _, budget := range []int{1, 7, 15} {
		c := shCounting{fn: shRun}
		res := Shrink(ShrinkConfig{Runs: budget}, in, out, c.run)
		if c.runs > budget || res.Runs != c.runs {
			t.Errorf("budget %d: %d runs (reported %d)", budget, c.runs, res.Runs)
		}
		if res.Outcome.Failure == nil || res.Outcome.Failure.Signature != out.Failure.Signature {
			t.Errorf("budget %d: the result fails with %+v", budget, res.Outcome.Failure)
		}
		if res.After.Less(full.After) || res.Before.Less(res.After) {
			t.Errorf("budget %d: After %v, the unbounded shrink's %v, Before %v", budget, res.After, full.After, res.Before)
		}
	}
	if full.Runs <= 15 {
		t.Errorf("the unbounded shrink took %d runs: the budgets above bound nothing", full.Runs)
	}

	// The time budget.
	start := time.Now()
	res := Shrink(ShrinkConfig{Time: 30 * time.Millisecond}, in, out, func(in Input) Outcome {
		time.Sleep(10 * time.Millisecond)
		return shRun(in)
	})
	if el := time.Since(start); el > time.Second || res.Runs > 5 || res.Runs == 0 {
		t.Errorf("a 30ms budget over 10ms runs: %d runs in %v", res.Runs, el)
	}
	// It says when time stopped it, and only then: the result then
	// depends on the machine.
	if !res.OutOfTime {
		t.Error("stopped by its time budget, but OutOfTime is false")
	}
	if full.OutOfTime || Shrink(ShrinkConfig{Runs: 7}, in, out, shRun).OutOfTime {
		t.Error("OutOfTime, though no time budget stopped it")
	}
}

// A bytes value at the tail is cut, its data with it.
func TestShrinkCutsBytesAtTheTail(t *testing.T) {
	in := Input{Strategy: engine.Random, Recording: &entropy.Recording{
		Values: []entropy.Value{shV(shA, 9), shV(shNoise, 3), shV(shBytes, 2), shV(shA, 1), shV(shBytes, 3)},
		Data:   []byte("xyabc"),
	}}
	out := shRun(in)
	res := Shrink(ShrinkConfig{}, in, out, shRun)
	want := []entropy.Value{shV(shA, 5)}
	if !reflect.DeepEqual(res.Input.Recording.Values, want) || len(res.Input.Recording.Data) != 0 {
		t.Errorf("shrunk to %v, data %q; want %v and no data", res.Input.Recording.Values, res.Input.Recording.Data, want)
	}
}

// Every candidate the shrinker runs is a well-formed recording: its bytes
// values fit its data.
func TestShrinkCandidatesWellFormed(t *testing.T) {
	in := Input{Strategy: engine.Random, Recording: &entropy.Recording{
		Values: []entropy.Value{shV(shNoise, 3), shV(shBytes, 2), shV(shA, 1), shV(shA, 7), shV(shBytes, 3), shV(shNoise, 1)},
		Data:   []byte("xyabc"),
	}}
	out := shRun(in)
	Shrink(ShrinkConfig{}, in, out, func(in Input) Outcome {
		need := 0
		for _, v := range in.Recording.Values {
			if v.UID.Kind() == entropy.KindBytes {
				need += int(v.V)
			}
		}
		if need != len(in.Recording.Data) {
			t.Errorf("candidate %v with %d bytes of data, its values take %d", in.Recording.Values, len(in.Recording.Data), need)
		}
		b, err := in.Recording.MarshalBinary()
		var back entropy.Recording
		if err == nil {
			err = back.UnmarshalBinary(b)
		}
		if err != nil {
			t.Errorf("candidate %v does not round-trip: %v", in.Recording.Values, err)
		}
		return shRun(in)
	})
}

// A failure that nothing shrinks is returned as it was.
func TestShrinkNothingToDo(t *testing.T) {
	in := Input{Strategy: engine.PCT, Depth: 2, Recording: &entropy.Recording{Values: []entropy.Value{shV(shA, 5)}}}
	out := shRun(in)
	res := Shrink(ShrinkConfig{}, in, out, shRun)
	if !reflect.DeepEqual(res.Input, in) || res.After != res.Before || res.Outcome.Failure.Signature != sigBig {
		t.Errorf("shrinking a minimal input gave %+v (%v), after %v before %v", res.Input, res.Input.Recording.Values, res.After, res.Before)
	}
	if !slices.Equal(in.Recording.Values, []entropy.Value{shV(shA, 5)}) {
		t.Error("the input was modified")
	}
}

// The failing input a loop's Step returns may be fresh: no recording, its
// values drawn from its seed. What it drew is the outcome's recording, and
// Shrink should start from that rather than fail.
func TestShrinkFreshInput(t *testing.T) {
	in := Input{Strategy: engine.Random, Seed: 42}
	out := shRunThen(in)
	if out.Failure == nil {
		t.Fatal("the fresh input does not fail")
	}
	var res ShrinkResult
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Shrink of an input without a recording panicked: %v", r)
			}
		}()
		res = Shrink(ShrinkConfig{}, in, out, shRun)
	}()
	if o := shRun(res.Input); o.Failure == nil || o.Failure.Signature != out.Failure.Signature {
		t.Errorf("the result %v does not fail when replayed: %+v", res.Input.Recording, o.Failure)
	}
	if res.Input.Recording == nil || !reflect.DeepEqual(res.Input.Recording.Values, []entropy.Value{shV(shA, 5)}) {
		t.Errorf("shrunk to %+v, want the single value A=5", res.Input.Recording)
	}
}

// shRunBytes is shProgram with a bytes draw before each round's A value:
// the bytes never matter.
func shRunBytes(in Input) Outcome {
	src := entropy.Replay(in.Recording)
	out := Outcome{Size: Size{Goroutines: 1}}
	for range 12 {
		src.At(shBytes.Key()).Bytes(2)
		a := src.At(shA.Key()).Uint64()
		out.Size.Steps++
		if a >= 5 {
			out.Failure = &Failure{Kind: "panic", Signature: sigBig, Message: "A is big"}
			break
		}
	}
	out.Rec = src.Recording().Clone()
	return out
}

// Bytes values that do not matter go wherever they are, their data with
// them: the failure needs one A value, and the draws of bytes before it are
// served zeros.
func TestShrinkDeletesBytesAnywhere(t *testing.T) {
	in := Input{Strategy: engine.Random, Recording: &entropy.Recording{
		Values: []entropy.Value{shV(shBytes, 2), shV(shA, 1), shV(shBytes, 2), shV(shA, 9), shV(shBytes, 2), shV(shA, 0)},
		Data:   []byte("xyzwuv"),
	}}
	out := shRunBytes(in)
	if out.Failure == nil {
		t.Fatal("the input does not fail")
	}
	res := Shrink(ShrinkConfig{}, in, out, shRunBytes)
	want := []entropy.Value{shV(shA, 5)}
	if !reflect.DeepEqual(res.Input.Recording.Values, want) || len(res.Input.Recording.Data) != 0 {
		t.Errorf("shrunk to %v, data %q; want %v and no data", res.Input.Recording.Values, res.Input.Recording.Data, want)
	}
}

// A bytes value whose first byte matters is cut to that byte: a replay
// serves zeros past the recorded bytes.
func TestShrinkShortensBytes(t *testing.T) {
	run := func(in Input) Outcome {
		src := entropy.Replay(in.Recording)
		out := Outcome{Size: Size{Goroutines: 1, Steps: 1}}
		b := src.At(shBytes.Key()).Bytes(4)
		if a := src.At(shA.Key()).Uint64(); a >= 5 && b[0] != 0 {
			out.Failure = &Failure{Kind: "panic", Signature: sigBig, Message: "A is big"}
		}
		out.Rec = src.Recording().Clone()
		return out
	}
	in := Input{Strategy: engine.Random, Recording: &entropy.Recording{
		Values: []entropy.Value{shV(shBytes, 4), shV(shA, 7)},
		Data:   []byte("abcd"),
	}}
	res := Shrink(ShrinkConfig{}, in, run(in), run)
	want := []entropy.Value{shV(shBytes, 1), shV(shA, 5)}
	if !reflect.DeepEqual(res.Input.Recording.Values, want) || string(res.Input.Recording.Data) != "a" {
		t.Errorf("shrunk to %v, data %q; want %v and data \"a\"", res.Input.Recording.Values, res.Input.Recording.Data, want)
	}
}

// shPick is the uid of the long tests' choices, as a random walk's.
var shPick = entropy.MakeUID(entropy.KindChoice, entropy.KeyOf("shrink-test-pick"))

// shSched runs a model of a scheduler's long run: k goroutines of steps
// steps each, all runnable until done, and at every step a choice among
// the runnable ones as a random walk draws it (0: the current one goes on;
// else the others in ID order; Preemptions counts the switches away from
// one that could go on). The run fails when goroutine victim is preempted
// after its step at and another runs before it goes on: a lost update.
// Every choice shifts where the goroutines are at the choices after it,
// as in the scheduler.
func shSched(k, steps, victim, at int) func(Input) Outcome {
	return func(in Input) Outcome {
		src := entropy.Replay(in.Recording)
		out := Outcome{Size: Size{Goroutines: k}}
		done := make([]int, k)
		runnable := make([]int, k)
		for i := range runnable {
			runnable[i] = i
		}
		cur, window, othersRan := 0, false, false
		for {
			done[cur]++
			out.Size.Steps++
			switch {
			case cur == victim && done[cur] == at:
				window = true
			case cur == victim && window:
				if othersRan && out.Failure == nil {
					out.Failure = &Failure{Kind: "test failed", Signature: "test failed at model.go:1", Message: "lost update"}
				}
				window = false
			case window:
				othersRan = true
			}
			i := slices.Index(runnable, cur)
			goesOn := done[cur] < steps
			if !goesOn {
				runnable = slices.Delete(runnable, i, i+1)
			}
			if len(runnable) == 0 {
				break
			}
			next := runnable[0]
			if len(runnable) > 1 {
				c := src.At(shPick.Key()).Choice(len(runnable))
				switch {
				case !goesOn:
					next = runnable[c]
				case c == 0:
					next = cur
				case c <= i:
					next = runnable[c-1]
				default:
					next = runnable[c]
				}
			} else if goesOn {
				next = cur
			}
			if goesOn && next != cur {
				out.Size.Preemptions++
			}
			cur = next
		}
		out.Rec = src.Recording().Clone()
		return out
	}
}

// A failure found deep in a long random schedule (thousands of choices,
// most of them preemptions) shrinks to the one preemption it needs, within
// the default budget.
// Regression (found by a user, fixed): failures of real suites, of
// thousands of preemptions, did not shrink at all in 2,000 runs: the
// passes tried one value at a time from the start, and spent the budget
// on the first few hundred.
func TestShrinkLongRecording(t *testing.T) {
	run := shSched(50, 200, 30, 150)
	for seed := range uint64(3) {
		// A random walk that fails: the first seed from here whose draws do.
		var in Input
		var out Outcome
		for s := seed * 1000; ; s++ {
			in = Input{Strategy: engine.Random, Seed: s}
			src := entropy.New(s)
			vs := make([]entropy.Value, 10000)
			for i := range vs {
				vs[i] = entropy.Value{UID: shPick, V: src.Uint64()}
			}
			in.Recording = &entropy.Recording{Values: vs}
			if out = run(in); out.Failure != nil {
				break
			}
		}
		c := shCounting{fn: run}
		res := Shrink(ShrinkConfig{Time: time.Hour}, in, out, c.run)
		t.Logf("seed %d: %v -> %v in %d runs", in.Seed, res.Before, res.After, res.Runs)
		if res.After.Preemptions != 1 || res.Outcome.Failure == nil {
			t.Errorf("seed %d: shrunk from %v to %v (%+v), want 1 preemption", in.Seed, res.Before, res.After, res.Outcome.Failure)
		}
		if res.Runs > 2000 || res.Runs != c.runs {
			t.Errorf("seed %d: %d runs (reported %d), budget 2000", in.Seed, c.runs, res.Runs)
		}
		if again := run(res.Input); !reflect.DeepEqual(again, res.Outcome) {
			t.Errorf("seed %d: the result does not run as its outcome says", in.Seed)
		}
	}
}
