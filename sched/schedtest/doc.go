// Package schedtest is the scheduler's test harness: it runs a body under
// the deterministic scheduler, explores many schedules, reports and shrinks
// the failures it finds, saves their traces, and replays them.
//
//	func TestTransfer(t *testing.T) {
//		schedtest.Test(t, func(t *schedtest.T) {
//			// goroutines started with sched.Go, synchronized with the
//			// shims of sched, chans, vtime and sched/context
//		})
//	}
//
// [Test] and [TestWith] explore a body in a go test test, [Fuzz] makes it a
// native fuzz target, [Run] runs one schedule and [Explore] many, without
// testing; [Replay] re-executes a saved trace and [Check] proves a body
// deterministic. The shims themselves are in package sched: code under test
// imports sched, and only its tests import schedtest.
//
// # Schedules
//
// A schedule is the sequence of decisions of one run. Test explores many
// schedules, each a fresh run of the body, with a strategy drawn per
// schedule: "random" (uniform among runnable goroutines at every point),
// "pct" (random priorities with d-1 priority change points, Burckhardt et
// al., which finds a bug of depth d with probability at least 1/(n·k^(d-1))),
// "pos" (partial order sampling, Yuan et al.) or "portfolio", which
// alternates random and PCT.
//
// # Hunting
//
// Strategy "hunt" is a coverage-guided search (a fuzz loop over schedules): the
// scheduler reports interleaving coverage (which operations ran back to
// back in different goroutines, which were blocked together, which faults
// fired, and the marks the body sets with Reach), and schedules that reach
// something new are kept and mutated. dstreplay hunt runs it in several
// worker processes across many tests, with a corpus kept on disk; Fuzz
// turns a body into a native fuzz target for go test -fuzz and fuzzing
// farms.
//
// Every failure is shrunk before it is reported: the failing schedule is
// rewritten as a random walk, in which a choice of 0 lets the running
// goroutine continue, and its recorded choices are cut, zeroed and lowered
// while it still fails the same way (same kind, same place), so the report
// shows the fewest preemptions, steps and goroutines found. The report says
// how big the failure was before and after.
//
// # What counts as a failure
//
//   - Deadlock: every goroutine is blocked, the body included.
//   - Leak: the body returned and the remaining goroutines ran until all are
//     blocked; those left can never proceed. Most blocking bugs in real Go
//     code show this way.
//   - Livelock: the run reached Options.MaxSteps scheduling points.
//   - Panic in any managed goroutine, with its stack; and Go's fatal errors
//     for misused primitives ("sync: unlock of unlocked mutex"), which end
//     the run as they would end the program.
//   - Test failure: T.Error, T.Fatal and friends, from any managed goroutine.
//   - Escape: a goroutine started with a plain go statement during the run is
//     still running when it ends; it ran outside the scheduler.
//   - Watchdog: a managed goroutine ran for Options.Watchdog without reaching
//     a scheduling point: it blocked outside the scheduler (a native channel,
//     sync.Mutex, time.Sleep, I/O) or spins. Shorter than that, from 200ms,
//     it is not a failure but a note (Result.Stall), which schedtest.Test logs.
//   - Misuse: an object of one run touched from another run, or from a
//     goroutine the run does not manage (which is ended, as by
//     runtime.Goexit); a run started from inside a run; a misuse of a
//     primitive that Go does not detect but that corrupts it.
//   - Data races, when the test runs with -race: the handoff between managed
//     goroutines creates no happens-before edge, so the race detector sees
//     every race between them; the shims report the edges Go's own
//     primitives create, so correctly synchronized code stays quiet.
//
// Fail a body through the *T it receives: a body that fails the enclosing
// *testing.T instead stops the exploration at that schedule, but gets no
// report of its goroutines, no shrinking and no saved trace.
//
// Each failure is reported with what every goroutine left was doing and
// where (the failing schedule is re-executed with source locations on), and
// with one go test command that reproduces it. Test saves the failing run's
// trace (package trace) under testdata/dst/<TestName>/ and replays the
// traces saved for a test before exploring it again.
//
// # Flags
//
// A test binary that imports schedtest accepts:
//
//	-dst.seed=N        the first schedule's seed (alone: run that schedule only)
//	-dst.iters=N       schedules per test (default 1000)
//	-dst.time=D        time budget per test (without -dst.iters, the only bound)
//	-dst.strategy=S    random, pct, pos, portfolio or hunt
//	-dst.depth=N       PCT depth (default 3)
//	-dst.pctsteps=N    PCT change-point range
//	-dst.maxsteps=N    livelock bound (default 100000)
//	-dst.watchdog=D    watchdog limit (default 5s)
//	-dst.replay=H      replay a recording given by its handle
//	-dst.trace=F       replay the trace file F and report any divergence
//	-dst.break=N       with -dst.trace: stop a debugger at step N (dstreplay debug)
//	-dst.dir=D         save failing traces under D (default testdata/dst; off)
//	-dst.shrink=false  report failures as found, without shrinking
//	-dst.input=F       run the input file F a hunt saved (a crash, a corpus entry)
//	-dst.crashtrace=F  with -dst.input: write the trace to F event by event (it survives a crash)
//	-dst.corpus=D      hunt: keep the corpus in D
//	-dst.keepgoing     hunt: save every distinct failure and keep hunting
//	-dst.worker=N      hunt: report progress as worker N of dstreplay hunt
//	-dst.v             log every schedule
package schedtest
