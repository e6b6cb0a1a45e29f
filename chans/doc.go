// Package chans provides Go channels and select for code that runs under the
// scheduler (package sched): make a channel with Make, send and receive with
// its methods, and write a select statement as a call to Select that returns
// which case fired:
//
//	jobs, done := chans.Make[Job](8), chans.Make[struct{}](0)
//	sched.Go(func() {
//		for j := range jobs.All() {
//			run(j)
//		}
//		done.Close()
//	})
//	var j Job
//	switch chans.Select(jobs.CaseSend(next), done.CaseRecv(nil), chans.Default()) {
//	case 0: // sent
//	case 1: // the worker has finished
//	case 2: // neither was ready
//	}
//
// The rules are Go's: an unbuffered send and receive meet; a buffered
// channel is FIFO; Close wakes every blocked receiver, which then drains the
// buffer and receives the zero value with ok false; a nil *Chan blocks
// forever; sending on a closed channel, closing a closed channel and closing
// a nil channel panic with Go's messages. Select picks uniformly among the
// ready cases, returns the Default case's index at once when none is ready,
// and otherwise blocks until another goroutine completes one case, exactly
// one.
//
// Inside a run every operation (Send, Recv, RecvOK, Close, Len, Select) is a
// scheduling point, the choice among ready select cases is drawn from the
// run's entropy, and a goroutine blocked on a channel is reported by
// deadlock and leak checks with the channel's element type ("chan int#3")
// and the line where it blocked. Channels belong to the run that made them:
// make them inside the test body. Outside a run, Make returns a Go channel
// and Select uses reflect.Select: the same code runs in production.
package chans
