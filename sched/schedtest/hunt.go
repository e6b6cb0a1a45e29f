package schedtest

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/dstgo/dst/internal/atomicfile"
	"github.com/dstgo/dst/internal/hunt"
	"github.com/dstgo/dst/internal/schedule"
)

// huntExplore explores body with a coverage-guided fuzz loop until a schedule fails
// (or, with -dst.keepgoing, until the budget is spent, saving every distinct
// failure), within o's iterations and time.
func huntExplore(o Options, name string, tb tbase, body func(*T), logf func(string, ...any)) exploration {
	x := exploration{base: o.Seed}
	if x.base == 0 {
		x.base = randomSeed()
	}
	start := time.Now()
	worker := -1
	if o.isWorker {
		worker = o.worker
	}
	pctSteps := max(o.PCTSteps, schedule.MinPCTSteps)
	target := func(in hunt.Input, cover []byte) hunt.Outcome {
		s := huntSchedule(in, o)
		s.cover = cover
		out, rec, _ := s.execute(o, name, tb, body, false)
		return loopOutcome(out, rec)
	}
	loop, err := hunt.New(hunt.Config{Seed: x.base, Dir: o.corpus, PCTSteps: pctSteps}, target)
	if err != nil {
		x.err = err
		x.res = &Result{}
		return x
	}
	var cur *hunt.Current
	if worker >= 0 && o.corpus != "" {
		if cur, err = hunt.OpenCurrent(o.corpus, worker); err != nil {
			x.err = err
			return x
		}
		defer cur.Close()
	}
	status := func(final bool) {
		if worker < 0 {
			return
		}
		st := loop.Stats()
		hunt.Print(os.Stdout, hunt.StatusLine{Test: name, Worker: worker, Execs: int64(st.Execs), Corpus: st.Corpus,
			Failing: int64(st.Failures), Cover: st.Cover, Failures: len(x.found), New: int64(st.New), Final: final})
	}
	seen := map[string]bool{}
	status(false) // the corpus is loaded: say so at once
	lastStatus, lastSync := start, start
	for i := 0; i < o.Iterations; i++ {
		if o.Time > 0 && i > 0 && time.Since(start) >= o.Time {
			break
		}
		if !o.stopBy.IsZero() && i > 0 && time.Now().After(o.stopBy) {
			x.nearDeadline = true // go test's -timeout is near (withinDeadline)
			break
		}
		if now := time.Now(); now.Sub(lastStatus) >= time.Second {
			status(false)
			lastStatus = now
			if now.Sub(lastSync) >= 2*time.Second {
				lastSync = now
				if _, err := loop.Sync(); err != nil {
					x.err = err
					break
				}
			}
		}
		in := loop.Next()
		if cur != nil {
			if err := cur.Set(in); err != nil {
				x.err = err
				break
			}
		}
		out, _, err := loop.Run(in)
		x.n++
		if err != nil {
			x.err = err
			break
		}
		if logf != nil {
			outcome := "pass"
			if out.Failure != nil {
				outcome = out.Failure.Message
			}
			logf("sched: hunt input %d (%s): %s", x.n, in.Strategy, outcome)
		}
		if out.Failure == nil || seen[out.Failure.Signature] {
			continue
		}
		sig := out.Failure.Signature
		seen[sig] = true
		s := huntSchedule(in, o)
		s.index = i
		fx := x
		fx.s = s
		fx.res, fx.note = s.run(o, name, tb, body)
		fx.res.Schedule = x.n
		if fx.res.Failure == nil {
			continue // it did not fail again: not deterministic, nothing to save
		}
		fx = shrinkFailure(o, name, tb, body, fx)
		if tb != nil { // a test saves its failures; Explore only returns them
			fx.saved, fx.saveErr = saveFailure(name, o, fx, body)
		}
		x.found = append(x.found, fx)
		if worker >= 0 {
			hf := hunt.FailureLine{Test: name, Worker: worker, Kind: string(fx.res.Failure.Kind),
				Message: fx.res.Failure.Message, Signature: sig, Trace: abs(fx.saved),
				File: fx.res.Failure.where.File, Line: fx.res.Failure.where.Line}
			hf.Entropy = abs(saveInput(fx))
			if fx.shrunk != nil {
				hf.Before, hf.After = fx.shrunk.Before, fx.shrunk.After
			}
			hunt.Print(os.Stdout, hf)
		}
		if !o.keepGoing {
			break
		}
	}
	status(true)
	if len(x.found) > 0 {
		f := x.found[0]
		f.n, f.found, f.err = x.n, x.found, x.err
		f.elapsed = time.Since(start)
		return f
	}
	x.elapsed = time.Since(start)
	x.hunt = loop.Stats()
	x.res = &Result{Schedule: x.n, Seed: x.base, Strategy: "hunt"}
	return x
}

// huntSchedule is the schedule that runs a fuzz loop's input.
func huntSchedule(in hunt.Input, o Options) plan {
	s := plan{Schedule: in}
	s.Then, s.SeedRecorded = true, false
	if s.Depth == 0 {
		s.Depth = o.Depth
	}
	s.Schedule = s.WithDefaults(o.PCTSteps)
	return s
}

// saveInput writes the failing schedule's input beside its trace, so that a
// hunt's failure can also be mutated or replayed with -dst.input.
func saveInput(x exploration) string {
	if x.saved == "" || x.s.Recording == nil && !x.s.Then {
		return ""
	}
	in := x.s.Schedule
	in.Then, in.SeedRecorded = false, false // the file implies them
	if !x.s.Then {
		in.Seed = 0 // the recording alone; else the recording, then fresh values from the seed, as it ran
	}
	path := x.saved[:len(x.saved)-len(filepath.Ext(x.saved))] + ".input"
	b, _ := in.MarshalText()
	if err := atomicfile.WriteBytes(path, true, b); err != nil {
		return ""
	}
	return path
}

func abs(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// huntIterations is a worker's execution bound: -dst.iters if given, else
// unbounded (the coordinator's -dst.time bounds it), whatever the test's
// own Options say.
func huntIterations(o Options) int {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "dst.iters" })
	if set {
		return o.Iterations
	}
	return math.MaxInt
}
