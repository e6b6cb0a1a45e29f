// Package cluster runs several nodes of a service in one test, each with
// its own goroutines, data directory and node of the simulated network
// (package simnet), and crashes and restarts them: by the test's hand
// (Node.Crash, Node.Restart), or at the nodes' own crash points when the
// test gives FaultCrash a probability, so that a seed decides where a node
// crashes and for how long it stays down, and shrinking drops the crashes
// a failure does not need.
//
// A node is started by a StartFunc, the service's own start-up on its data
// directory: plain Go that listens, serves and writes files. Inside a run
// (schedtest.Test, or a test that dstreplay test -wrap runs, where net/http
// and os's file writes are the tool's) it runs in a goroutine of the
// node's, and every goroutine it starts belongs to the node. A crash ends
// them where they are, as a power failure ends a machine's processes: no
// deferred call runs, the node's listeners close (a dial is refused), its
// connections close as a dead process's sockets do, and its files lose
// what was not synced, keeping a drawn part of what was appended since
// (simdisk.Crash). A restart runs the StartFunc again on what the disk
// kept.
//
// The crash points are before each write of a node's goroutine to a
// connection or a file (through simnet and simdisk: in code dstreplay test
// rewrote, every direct call of (*os.File).Write and Sync) and before
// each sync: where a crash changes what outlives it, as between
// acknowledging a write and syncing it.
//
// Outside a run, Add starts a node by calling its StartFunc, and nothing
// crashes: the test runs as plain Go.
//
// Limits: the nodes share the process. What a crashed node's goroutines
// held stays held, so state the nodes share (a package variable, a lock of
// http.DefaultTransport's) can block the others: give each node its own
// (an http.Client with its own Transport). Package variables are the
// process's, not a node's, and a restart does not reset them.
package cluster
