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
// A schedule is the sequence of decisions of one run. Test explores many,
// each a fresh run of the body, with a strategy per schedule (random walk,
// PCT, POS, SURW, a coverage-guided hunt, or a bounded systematic search
// that can prove no schedule within a number of preemptions fails; see
// Options.Strategy), and shrinks
// every failure before it reports it: the failing schedule is rewritten as
// a random walk and cut down while it fails the same way, so the report
// shows the fewest preemptions, steps and goroutines found, and how big the
// failure was before. dstreplay hunt runs hunts in several worker processes
// across many tests; Fuzz makes a body a target for go test -fuzz.
//
// # Failures
//
// A run fails by deadlock, leak, livelock, panic, fatal error, a failed
// check of its *T, Goexit, escape, watchdog or misuse (see FailureKind),
// and, under -race, by a data race between managed goroutines. Fail a body
// through the *T it receives: a body that fails the enclosing *testing.T
// stops the exploration at that schedule but gets no report, no shrinking
// and no saved trace.
//
// Each failure is reported with what every goroutine left was doing and
// where, and with one go test command that reproduces it. Test saves the
// failing run's trace (package trace) under testdata/dst/<TestName>/ and
// replays the traces saved for a test before exploring it again. A subtest
// is a directory inside its parent's; a name's element that is not a safe
// file name as it is ("..", a leading dot, a backslash or a comma, say) is
// percent-escaped, never interpreted, so a trace is saved inside the test's
// directory whatever its subtests are called. The -dst.* flags a test
// binary accepts are listed with Options, and checked before anything runs.
package schedtest
