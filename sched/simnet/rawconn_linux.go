package simnet

import (
	"syscall"
	"unsafe"
)

// socketPair is a connection's pair of sockets for raw reads and writes
// (rawconn.go): ours is the tool's end, theirs the one a RawConn's
// function is given; both are non-blocking.
type socketPair struct {
	ours, theirs int
	shut         bool // ours is shut for writing: theirs reads EOF
}

func newSocketPair() (*socketPair, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &socketPair{ours: fds[0], theirs: fds[1]}, nil
}

// fill writes b to our end, for theirs to read.
func (p *socketPair) fill(b []byte) error {
	for len(b) > 0 {
		n, _, e := syscall.Syscall(syscall.SYS_WRITE, uintptr(p.ours), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return e
		}
		b = b[n:]
	}
	return nil
}

// eof makes their end read EOF once what is in the pair is read.
func (p *socketPair) eof() {
	if !p.shut {
		p.shut = true
		syscall.Shutdown(p.ours, syscall.SHUT_WR)
	}
}

// drain is what is left to read at their end, taken out.
func (p *socketPair) drain() []byte { return readAll(p.theirs) }

// drainOurs is what their end wrote, taken out.
func (p *socketPair) drainOurs() []byte { return readAll(p.ours) }

func (p *socketPair) close() {
	syscall.Close(p.ours)
	syscall.Close(p.theirs)
}

// readAll reads the non-blocking fd until it would block or ends.
func readAll(fd int) []byte {
	var out []byte
	var buf [4096]byte
	for {
		n, _, e := syscall.Syscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 || n == 0 {
			return out
		}
		out = append(out, buf[:n]...)
	}
}
