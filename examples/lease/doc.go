// Package lease is a leader lease over HTTP, written in plain Go (net/http,
// no import of the tool), with a real distributed-systems bug and its fixed
// twin.
//
// A lock server grants a lease for TTL to one node at a time; a node that
// holds one acts as the leader until it believes the lease has run out,
// then asks again. The buggy node counts its lease from when the lock
// server's answer arrived; the server counted it from when it granted it.
// Any delay on the way back makes the node believe it leads for that much
// longer than the server does, and the server grants the lease to the
// other node meanwhile: two leaders at once (split brain). The fixed twin
// counts from when it sent the request, which is never later than the
// grant.
//
// With no delay on the network the bug never shows, however the
// goroutines interleave: under
//
//	DST_DEMO=1 go tool dstreplay test -wrap -dst.faults=net.delay=0.5:20ms ./examples/lease -run TestBuggy
//
// the lock server's and the nodes' HTTP goroutines run on the scheduler
// over the simulated network, whose writes arrive up to 20ms late with
// probability one half, drawn from the entropy. The scheduler finds the
// overlap, names the delays in its report, shrinks them, and saves a trace
// that replays it.
package lease
