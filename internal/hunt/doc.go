// Package hunt is the race hunt, every part of it: the coverage-guided
// fuzz loop over schedules that runs inside a test, the shrinker that makes
// a failing schedule small enough to read, the line protocol between a
// worker and the coordinator, and the coordinator that dstreplay hunt runs
// over many tests in several worker processes.
//
// Users reach it through the harness and the command: schedtest's strategy
// "hunt" (-dst.strategy=hunt) explores a test with a Loop and shrinks each
// failure with Shrink; dstreplay hunt builds the test binaries (Build) and
// runs them as workers under a Hunter, which only gathers what they report:
// internal/cli shows it.
//
// # Files
//
//   - input.go: an Input (a schedule) on disk; mutate.go: resampling and
//     value mutations; loop.go: the Loop, its corpus and coverage;
//     shrink.go: Shrink and Size; crash.go: the input a worker is running,
//     kept where a coordinator finds it when the worker dies (Current,
//     RecoverCrash).
//   - wire.go: the protocol lines a worker prints (StatusLine, FailureLine).
//   - tests.go: the packages and tests to hunt (Build, Test);
//     pick.go: which test a free worker runs next; coordinator.go: the
//     Hunter, which starts, watches and stops the workers; findings.go: the
//     distinct failures, and the crashes of workers.
//
// # Terms
//
//   - Input: a schedule to run: a strategy ("random", "pct" or "pos") and an
//     entropy recording it replays. Draws past the recording are served
//     fresh (entropy.ReplayThen), so a mutated prefix steers the run and the
//     rest is random.
//   - Target: runs an input and fills a coverage map of CoverSize hit
//     counters. The scheduler's coverage is interleaving coverage, computed
//     without compiler instrumentation: an operation on an object (named by
//     where the run first used it), two operations executed back to back by
//     different goroutines, two operations goroutines were blocked in at
//     once, a fault that fired, a mark set with sched.Reach. Hit counts are
//     bucketed as AFL does (1, 2, 3, 4-7, ... 128+), so a loop that runs
//     more often also counts as new.
//   - Corpus: the inputs kept. An input joins when it reaches a feature
//     (a map index and bucket) first, or with fewer values than the input
//     holding it; an input left holding no feature is dropped (passive
//     minimization, as in Zig's smith-based fuzzer). On disk (Config.Dir)
//     each input is a small text file named by its content hash, written
//     atomically; loops sharing a directory pick up each other's inputs
//     with Sync.
//   - Mutation: the loop mutates first, once, each input that reached a
//     feature no input reached before, newest first; else an input chosen
//     uniformly. It resamples it (Resample): the strategy's own draws (a
//     random walk's choices, PCT's and POS's priorities) are taken out, so
//     the run is interleaved afresh, and half the time so is whatever the
//     run drew after a random point. A recorded scheduling choice means
//     "the k-th runnable goroutine", so once anything before it changes it
//     no longer means what it meant; the test's own draws and its faults,
//     each uid a stream of its own (see package entropy), do. Mutate, a
//     table of value mutations (change, nudge, delete, insert, replace,
//     copy or splice runs of one uid's values; delete or replace a run
//     across request order; truncate), is there for tools that drive their
//     own loops: measured on the examples, its mutants found bugs less often
//     than resampled inputs, and than fresh ones.
//   - Fresh inputs come from the portfolio: mostly random walk, with POS and
//     PCT (depth 2) an eighth each.
//   - Shrink: Hypothesis-style passes over a failing input's values (try the
//     schedules with one non-zero choice; cut the tail; zero suffixes;
//     delete runs; zero and lower single values), keeping a candidate only
//     if it fails with the same Signature and its Size is smaller: fewer
//     preemptions, then steps, goroutines, values, and smaller values.
//   - Current: a worker keeps the input it is running in a memory-mapped
//     file, so that when a fatal runtime error kills the process the
//     coordinator can save that input as a failure (RecoverCrash).
package hunt
