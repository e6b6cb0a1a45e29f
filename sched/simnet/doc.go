// Package simnet is a simulated TCP network inside a run, and Go's own
// network outside one.
//
// Inside a run (schedtest.Test, or a test dstreplay test -wrap runs), Listen
// on a loopback, unspecified or literal TCP address, or at a unix socket's
// path, gives a listener on the run's network, and Dial to its address a connection to it, in memory:
// bytes arrive in order, Close sends what was written then io.EOF (or an
// RST when data sent to the closing end was never read), CloseWrite
// half-closes, a Write blocks while the peer holds Window unread bytes, and
// deadlines are on the run's virtual clock. Every read, write, accept and
// dial is a scheduling point, so the interleavings of a client and a
// server are explored and replayed with the rest of the run.
//
// The faults FaultDelay, FaultPartition, FaultClog, FaultRefuse, FaultReset,
// FaultShortRead and FaultDNS are drawn from the entropy when the test gives them a
// probability (schedtest.Options.Faults, or -dst.faults on the command
// line), and those that last up to a bound (Options.FaultBounds, or
// -dst.faults=name=p:bound). A partition is between two nodes: a node is a
// listener's address, with the goroutine that accepts from it and every
// goroutine that one starts (a server's connections and handlers, and the
// dials they make); the run's other goroutines are the test's node. So an
// HTTP server's handler that calls another server is cut off from it when
// the two nodes are partitioned, while the test still reaches both; a
// clogged node reaches nobody, and nobody reaches it. A
// connection pooled by one node's client and reused by another's keeps the
// nodes it was dialed between.
//
// In a traced run, each direction of a connection is an object named by its
// addresses and nodes ("tcp 127.0.0.1:32769 → 127.0.0.1:8080 (the test →
// 127.0.0.1:8080)"), and each send, read and FIN on it an I/O event with its
// offset, bytes and arrival: dstreplay's stepper lists them, and its html
// page draws a line from each send to the read that got its bytes.
//
// Outside a run every function is the net function it is named after. A
// dial to an address no simulated listener of the run ever held, and a
// network other than TCP's and unix streams', run natively inside a run
// too, and the run notes it.
//
// Code rewritten by dstreplay test -wrap calls this package in place of
// net.Listen, net.Dial, net.DialTimeout and the Dial methods of
// net.Dialer, in the tested code and in net/http; code written for the
// tool may call it by hand. There the build's package net also has the
// hooks dstreplay test adds, and what Listen, Dial and Accept give is Go's
// own type (a *net.TCPListener, *net.TCPConn, *net.UnixListener or
// *net.UnixConn) standing on a simulated socket, so that code that asserts
// those types, to call AcceptTCP, SetKeepAlive or CloseWrite, runs as on
// Go's network: the socket options are taken and change nothing, a copy
// between sockets or with a file takes the generic path, and what needs a
// file descriptor (File, SyscallConn) fails, saying the socket has none.
// Elsewhere (a test written for the tool, run by go test) they are
// simnet's own types. Simulated tells either kind from Go's network's.
package simnet
