package simnet

import (
	"errors"
	"io"
	"net"
)

// Raw reads and writes. A simulated *net.TCPConn's SyscallConn (through
// the overlay's package net) gives a syscall.RawConn whose Read and Write
// hand over here, since code reads a socket through it: grpc-go (1.85 on)
// reads every connection with syscall.Read on the descriptor its RawConn's
// Read hands its function, and was refused on a simulated socket, which
// has none. So the function gets a descriptor of a socket pair of the
// connection's own instead: for a read, what the connection reads (a
// simulated Read: a scheduling point, with its deadline, EOF, reset and
// faults) is written into the pair first, and what the function leaves
// there is read back and read again by the next read; for a write, what
// the function writes into the pair is read back and written to the
// connection. The pair's system calls are bare ones, with no edge for the
// race detector (see simdisk's readQuiet); the function's own, as in Go,
// have theirs.

// rawChunk is the most a raw read reads from the connection at a time:
// what a socket pair holds without blocking.
const rawChunk = 32 << 10

// errNoRawIO is a raw read's or write's error where the system has no
// socket pairs.
var errNoRawIO = errors.New("simnet: raw reads and writes of a simulated socket need socket pairs, which this system lacks")

// RawRead is a raw read of c: f is called with a descriptor to read from
// with syscall.Read, and again, once more is there to read, for as long as
// it returns false.
func (c *Conn) RawRead(f func(fd uintptr) bool) error {
	buf := c.rawBuffer()
	for {
		n, err := c.Read(buf)
		if err != nil && err != io.EOF {
			return err
		}
		p, perr := c.rawPair()
		if perr != nil {
			return perr
		}
		if err == io.EOF {
			p.eof()
		} else if err := p.fill(buf[:n]); err != nil {
			return err
		}
		done := f(uintptr(p.theirs))
		c.unread(p.drain())
		if done || err == io.EOF {
			return nil
		}
	}
}

// RawWrite is a raw write of c: f is called with a descriptor to write to
// with syscall.Write, and again, once what it wrote has been sent, for as
// long as it returns false.
func (c *Conn) RawWrite(f func(fd uintptr) bool) error {
	for {
		p, err := c.rawPair()
		if err != nil {
			return err
		}
		done := f(uintptr(p.theirs))
		if b := p.drainOurs(); len(b) > 0 {
			if _, err := c.Write(b); err != nil {
				return err
			}
		}
		if done {
			return nil
		}
	}
}

// rawPair is c's socket pair, made at its first use.
//
//go:norace
func (c *Conn) rawPair() (*socketPair, error) {
	if c.raw == nil {
		p, err := newSocketPair()
		if err != nil {
			return nil, &net.OpError{Op: "raw", Net: c.network, Source: c.local, Addr: c.remote, Err: err}
		}
		c.raw = p
	}
	return c.raw, nil
}

// rawBuffer is what c's raw reads read into, made at the first: a raw
// read per message (grpc's) would otherwise allocate rawChunk bytes each.
//
//go:norace
func (c *Conn) rawBuffer() []byte {
	if c.rawBuf == nil {
		c.rawBuf = make([]byte, rawChunk)
	}
	return c.rawBuf
}

// unread puts b back before what c has yet to read.
//
//go:norace
func (c *Conn) unread(b []byte) {
	if len(b) > 0 {
		c.n.mu.Lock()
		c.pending = append(b, c.pending...)
		c.n.mu.Unlock()
	}
}
