// Package nativetest runs a project's own go tests under the scheduler, for
// dstreplay test -wrap: the rewrite turns each test function (and each fuzz
// target's function) into a call of [Wrap], and every other *testing.T of
// the rewritten code into a [*T], so that a suite explores schedules without
// a line changed.
//
// Inside the run a [T] behaves as a *testing.T does under go test, with
// these differences, all of them about what a run is:
//
//   - t.Run runs the subtest in a goroutine of the run and waits for it;
//     t.Parallel in a subtest lets its parent's function go on and runs
//     the parallel subtests together once it returns, interleaved by the
//     scheduler. go test's -run and -skip select subtests as usual, but go
//     test does not list them: the run is one go test test.
//   - FailNow and Fatal stop the whole run (the schedule has failed), not
//     only the subtest that called them.
//   - Cleanup functions and the cancellation of t.Context() run inside the
//     run, when the function and its parallel subtests have returned.
//   - A top-level test that calls Skip is skipped when its exploration
//     ends; Parallel in a top-level test does nothing.
//   - Skip unwinds the test's goroutine with a panic that the test's own
//     frame recovers: a deferred recover() in the test function sees it.
//
// Code written for the scheduler by hand uses package sched/schedtest.
package nativetest
