// Package replica is a key-value store with a primary that copies every
// write to a follower over HTTP, written in plain Go (net/http, no import
// of the tool), with a real distributed-systems bug and its fixed twin.
//
// The buggy primary acknowledges a write before the follower has it: it
// copies in a goroutine of its own. A client that writes through the
// primary and then reads from the follower (read-your-writes across
// replicas, which the store promises) reads nothing when the copy is
// still on its way. Natively the test fails now and then; under
//
//	DST_DEMO=1 go tool dstreplay test -wrap ./examples/replica -run TestBuggy
//
// the HTTP servers' and clients' goroutines (net/http's own) are the run's,
// over a simulated network, and the scheduler finds the order in a few
// schedules, saves the trace, and replays it. The fixed twin copies before
// it acknowledges, and passes every schedule.
package replica
