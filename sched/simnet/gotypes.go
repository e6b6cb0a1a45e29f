package simnet

import "net"

// Go's own types. Where dstreplay test simulates the network, it also
// adds hooks to the build's package net (internal/rewrite/netsim.go): a
// *net.TCPConn, *net.UnixConn, *net.TCPListener or *net.UnixListener can
// then stand on a simulated socket, and Listen, Dial and Accept give those,
// so that code asserting Go's types (to call AcceptTCP, CloseWrite or
// SetKeepAlive) runs as it does on Go's network. Elsewhere they give
// simnet's own (*Conn, and an unexported listener).

// goSim is the method the hooks add to the four types.
type goSim interface {
	DstreplaySim(network string, laddr, raddr net.Addr, sim any)
}

// goTypes reports whether the build's package net has the hooks.
var goTypes = func() bool {
	_, ok := any((*net.TCPConn)(nil)).(goSim)
	return ok
}()

// goConn is c as the net.Conn Dial gives: Go's own type around it, where
// it can be.
func goConn(c *Conn) net.Conn {
	if !goTypes {
		return c
	}
	var v net.Conn = new(net.TCPConn)
	if c.network == "unix" {
		v = new(net.UnixConn)
	}
	v.(goSim).DstreplaySim(c.network, c.local, c.remote, c)
	return v
}

// goListener is l as the net.Listener Listen gives: Go's own type around
// it, where it can be. Its Accept gives Go's connections too: the hooks
// make them around what l's Accept gives.
func goListener(l *listener) net.Listener {
	if !goTypes {
		return l
	}
	var v net.Listener = new(net.TCPListener)
	if l.network == "unix" {
		v = new(net.UnixListener)
	}
	v.(goSim).DstreplaySim(l.network, l.addr, nil, l)
	return v
}

// Simulated reports whether v, a listener or a connection, is one of a
// run's simulated network: Go's own type or simnet's.
func Simulated(v any) bool {
	switch v := v.(type) {
	case *Conn, *listener:
		return true
	case interface{ DstreplaySimulated() bool }:
		return v.DstreplaySimulated()
	}
	return false
}
