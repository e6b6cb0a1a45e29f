package rewrite

// Go's own types for simulated sockets.
//
// sched/simnet's listeners and connections were its own types, so code
// that asserts a listener to be a *net.TCPListener (to call AcceptTCP, set
// keep-alives or take its File) panicked on them: a false red on suites
// as plain as labstack/echo's. Where the network is simulated
// (Config.SimNet), the overlay now also changes package net itself, in
// three ways, each checked against the build's own files:
//
//   - netFD, the socket under every TCPConn, UnixConn, TCPListener and
//     UnixListener, gets a field dstSim: the simulated socket, when it is
//     one (the field is added on the line of the struct's brace, so that
//     every line of net keeps its number).
//   - The functions that reach the system through a netFD (netHooks: its
//     reads, writes, closes, deadlines and accept, the socket options,
//     the zero-copy paths, SyscallConn, whose raw connection takes socket
//     options on a socket of its own) first hand a simulated socket to
//     netSimFile's helpers, on the line of their opening brace.
//   - netSimFile adds the helpers, and a DstreplaySim method on the four
//     types, through which simnet makes Go's own values around its
//     sockets (simnet's gotypes.go), found by an interface assertion, so
//     that a build without the overlay links as before.
//   - The Resolver's lookups first ask simnet whether net.dns fails them
//     (DstreplayLookupHook), so that a lookup of a name by any code in a
//     run, net's own dials included, meets the fault.
//
// Everything else of net is Go's: a simulated TCPConn's errors are made by
// net's own code (simnet's are unwrapped first), its LocalAddr is read
// from the netFD, and so on. A simulated socket's poll.FD holds no file
// descriptor (-1): a path netHooks does not know fails with EBADF, never
// on another file. When the build's net is not as netHooks says (another
// Go release, another system), net is left as it is, and a note says that
// simulated sockets are simnet's own types there.

// netSim is the overlay of package net.
var netSim = &stdHooks{
	pkg:   "net",
	need:  "fd_unix.go",
	field: [2]string{"netFD", "dstSim any;"},
	hooks: netHooks,
	added: netSimFile,
	what:  "simulated listeners and connections are not Go's own *net.TCPListener and *net.TCPConn",
}

// netHooks are the functions of net that reach a netFD's poll.FD, go1.26.
var netHooks = []hook{
	{"netFD", "Read", "func (fd *netFD) Read(p []byte) (n int, err error)",
		"if n, err, ok := fd.dstRead(p); ok { return n, err };"},
	{"netFD", "Write", "func (fd *netFD) Write(p []byte) (nn int, err error)",
		"if n, err, ok := fd.dstWrite(p); ok { return n, err };"},
	{"netFD", "Close", "func (fd *netFD) Close() error",
		"if fd.dstSim != nil { return dstErr(fd.dstSim.(interface{ Close() error }).Close()) };"},
	{"netFD", "closeRead", "func (fd *netFD) closeRead() error",
		"if fd.dstSim != nil { return dstErr(fd.dstSim.(interface{ CloseRead() error }).CloseRead()) };"},
	{"netFD", "closeWrite", "func (fd *netFD) closeWrite() error",
		"if fd.dstSim != nil { return dstErr(fd.dstSim.(interface{ CloseWrite() error }).CloseWrite()) };"},
	{"netFD", "SetDeadline", "func (fd *netFD) SetDeadline(t time.Time) error",
		"if fd.dstSim != nil { return dstErr(fd.dstSim.(interface{ SetDeadline(time.Time) error }).SetDeadline(t)) };"},
	{"netFD", "SetReadDeadline", "func (fd *netFD) SetReadDeadline(t time.Time) error",
		"if fd.dstSim != nil { return dstErr(fd.dstSim.(interface{ SetReadDeadline(time.Time) error }).SetReadDeadline(t)) };"},
	{"netFD", "SetWriteDeadline", "func (fd *netFD) SetWriteDeadline(t time.Time) error",
		"if fd.dstSim != nil { return dstErr(fd.dstSim.(interface{ SetWriteDeadline(time.Time) error }).SetWriteDeadline(t)) };"},
	{"netFD", "accept", "func (fd *netFD) accept() (netfd *netFD, err error)",
		"if fd.dstSim != nil { return fd.dstAccept() };"},
	{"netFD", "dup", "func (fd *netFD) dup() (f *os.File, err error)",
		"if fd.dstSim != nil { return nil, errDstNoFD };"},
	{"netFD", "writeBuffers", "func (fd *netFD) writeBuffers(v *Buffers) (n int64, err error)",
		"if fd.dstSim != nil { return fd.dstWriteBuffers(v) };"},
	// Socket options: a simulated socket takes them all, and they change
	// nothing.
	{"", "setReadBuffer", "func setReadBuffer(fd *netFD, bytes int) error", "if fd.dstSim != nil { return nil };"},
	{"", "setWriteBuffer", "func setWriteBuffer(fd *netFD, bytes int) error", "if fd.dstSim != nil { return nil };"},
	{"", "setKeepAlive", "func setKeepAlive(fd *netFD, keepalive bool) error", "if fd.dstSim != nil { return nil };"},
	{"", "setLinger", "func setLinger(fd *netFD, sec int) error", "if fd.dstSim != nil { return nil };"},
	{"", "setNoDelay", "func setNoDelay(fd *netFD, noDelay bool) error", "if fd.dstSim != nil { return nil };"},
	{"", "setKeepAliveIdle", "func setKeepAliveIdle(fd *netFD, d time.Duration) error", "if fd.dstSim != nil { return nil };"},
	{"", "setKeepAliveInterval", "func setKeepAliveInterval(fd *netFD, d time.Duration) error", "if fd.dstSim != nil { return nil };"},
	{"", "setKeepAliveCount", "func setKeepAliveCount(fd *netFD, n int) error", "if fd.dstSim != nil { return nil };"},
	// The zero-copy paths between sockets and files: not for a
	// simulated socket, at either end, which then takes the generic copy.
	{"", "spliceFrom", "func spliceFrom(c *netFD, r io.Reader) (written int64, err error, handled bool)",
		"if dstSimulated(c, r) { return 0, nil, false };"},
	{"", "spliceTo", "func spliceTo(w io.Writer, c *netFD) (written int64, err error, handled bool)",
		"if dstSimulated(c, w) { return 0, nil, false };"},
	{"", "sendFile", "func sendFile(c *netFD, r io.Reader) (written int64, err error, handled bool)",
		"if c.dstSim != nil { return 0, nil, false };"},
	// A raw connection of Go's would hand out the -1, and os's zero-copy
	// paths find a socket's poll.FD through it: a simulated socket's is
	// dstRawConn, whose Control takes socket options on a socket of its
	// own (grpc sets TCP_USER_TIMEOUT through it on every connection).
	{"TCPConn", "SyscallConn", "func (c *TCPConn) SyscallConn() (syscall.RawConn, error)",
		"if c.ok() && c.fd.dstSim != nil { return dstRawConn{c.fd}, nil };"},
	{"UnixConn", "SyscallConn", "func (c *UnixConn) SyscallConn() (syscall.RawConn, error)",
		"if c.ok() && c.fd.dstSim != nil { return dstRawConn{c.fd}, nil };"},
	{"TCPListener", "SyscallConn", "func (l *TCPListener) SyscallConn() (syscall.RawConn, error)",
		"if l.ok() && l.fd.dstSim != nil { return dstRawConn{l.fd}, nil };"},
	{"UnixListener", "SyscallConn", "func (l *UnixListener) SyscallConn() (syscall.RawConn, error)",
		"if l.ok() && l.fd.dstSim != nil { return dstRawConn{l.fd}, nil };"},
	// Name lookups, where net.dns fails them inside a run (simnet's
	// lookupFault): the one every dial and LookupIP goes through, and
	// each of the others but the reverse lookup's.
	{"Resolver", "lookupIPAddr", "func (r *Resolver) lookupIPAddr(ctx context.Context, network, host string) ([]IPAddr, error)",
		"if err := dstLookup(host); err != nil { return nil, err };"},
	{"Resolver", "lookupHost", "func (r *Resolver) lookupHost(ctx context.Context, host string) (addrs []string, err error)",
		"if err := dstLookup(host); err != nil { return nil, err };"},
	{"Resolver", "LookupCNAME", "func (r *Resolver) LookupCNAME(ctx context.Context, host string) (string, error)",
		`if err := dstLookup(host); err != nil { return "", err };`},
	{"Resolver", "LookupSRV", "func (r *Resolver) LookupSRV(ctx context.Context, service, proto, name string) (string, []*SRV, error)",
		`if err := dstLookup(name); err != nil { return "", nil, err };`},
	{"Resolver", "LookupMX", "func (r *Resolver) LookupMX(ctx context.Context, name string) ([]*MX, error)",
		"if err := dstLookup(name); err != nil { return nil, err };"},
	{"Resolver", "LookupNS", "func (r *Resolver) LookupNS(ctx context.Context, name string) ([]*NS, error)",
		"if err := dstLookup(name); err != nil { return nil, err };"},
	{"Resolver", "LookupTXT", "func (r *Resolver) LookupTXT(ctx context.Context, name string) ([]string, error)",
		"if err := dstLookup(name); err != nil { return nil, err };"},
}

// netSimFile is the file the overlay adds to net: the helpers of
// netHooks' prologues, and the methods simnet makes Go's own values with.
const netSimFile = `package net

// Added by dstreplay test (internal/rewrite/netsim.go): Go's own
// listener and connection types around the sockets of the run's simulated
// network (sched/simnet).

import (
	"errors"
	"io"
	"syscall"
)

// errDstNoFD is what asks a simulated socket for its file descriptor.
var errDstNoFD = errors.New("a socket of dstreplay's simulated network has no file descriptor")

// dstRawConn is a simulated socket's syscall.RawConn. Control runs its
// function on a stream socket of the same family that is no connection's,
// made once per process: socket options set there change
// nothing, as the socket options of a simulated socket do not, and read
// back as a fresh socket's. A connection's Read and Write are simnet's
// RawRead and RawWrite, which hand the function a descriptor that reads
// what the connection reads, and writes to it; a listener's fail. It has
// no PollFD: os's zero-copy paths take the generic copy.
type dstRawConn struct{ fd *netFD }

func (c dstRawConn) Control(f func(uintptr)) error {
	f(dstOptionsFD(c.fd.family))
	return nil
}

func (c dstRawConn) Read(f func(uintptr) bool) error { return c.raw("raw-read", f) }

func (c dstRawConn) Write(f func(uintptr) bool) error { return c.raw("raw-write", f) }

// raw is Read (op "raw-read") or Write ("raw-write") with f.
func (c dstRawConn) raw(op string, f func(uintptr) bool) error {
	err := error(errDstNoFD)
	if rw, ok := c.fd.dstSim.(interface {
		RawRead(func(uintptr) bool) error
		RawWrite(func(uintptr) bool) error
	}); ok {
		if op == "raw-read" {
			err = dstErr(rw.RawRead(f))
		} else {
			err = dstErr(rw.RawWrite(f))
		}
	}
	if err != nil {
		err = &OpError{Op: op, Net: c.fd.net, Source: c.fd.laddr, Addr: c.fd.raddr, Err: err}
	}
	return err
}

// dstOptionSockets are dstRawConn's sockets, by family (every simulated
// socket is a stream), made when the package starts: made on demand,
// under a lock, they would order for the race detector the goroutines of
// every connection that sets an option after one another.
var dstOptionSockets = func() map[int]int {
	fds := map[int]int{}
	for _, family := range []int{syscall.AF_INET, syscall.AF_INET6, syscall.AF_UNIX} {
		fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			fd = -1
		}
		fds[family] = fd
	}
	return fds
}()

// dstOptionsFD is the socket of family that dstRawConn's Control hands
// out; -1 if the system gives none.
func dstOptionsFD(family int) uintptr {
	fd, ok := dstOptionSockets[family]
	if !ok {
		fd = -1
	}
	return uintptr(fd)
}

// dstLookupFault is sched/simnet's: inside a run it may fail a lookup of
// a name (the net.dns fault); it is set when simnet starts.
var dstLookupFault func(name string) error

// dstLookup is the error a lookup of name fails with before it starts,
// or nil.
func dstLookup(name string) error {
	if dstLookupFault == nil {
		return nil
	}
	return dstLookupFault(name)
}

// DstreplayLookupHook sets dstLookupFault (any *Resolver will do as the
// receiver, a nil one too).
func (r *Resolver) DstreplayLookupHook(f func(name string) error) { dstLookupFault = f }

// DstreplaySim makes c a connection of the simulated network over sim.
func (c *TCPConn) DstreplaySim(network string, laddr, raddr Addr, sim any) {
	c.fd = dstNewFD(network, laddr, raddr, sim)
}

// DstreplaySim makes c a connection of the simulated network over sim.
func (c *UnixConn) DstreplaySim(network string, laddr, raddr Addr, sim any) {
	c.fd = dstNewFD(network, laddr, raddr, sim)
}

// DstreplaySim makes l a listener of the simulated network over sim.
func (l *TCPListener) DstreplaySim(network string, laddr, raddr Addr, sim any) {
	l.fd = dstNewFD(network, laddr, nil, sim)
}

// DstreplaySim makes l a listener of the simulated network over sim; its
// Close removes no file (the simulated network makes none).
func (l *UnixListener) DstreplaySim(network string, laddr, raddr Addr, sim any) {
	l.fd = dstNewFD(network, laddr, nil, sim)
	l.path = laddr.String()
}

// DstreplaySimulated reports whether c is a connection of the simulated
// network.
func (c *conn) DstreplaySimulated() bool { return c.ok() && c.fd.dstSim != nil }

// DstreplaySimulated reports whether l is a listener of the simulated
// network.
func (l *TCPListener) DstreplaySimulated() bool { return l.ok() && l.fd.dstSim != nil }

// DstreplaySimulated reports whether l is a listener of the simulated
// network.
func (l *UnixListener) DstreplaySimulated() bool { return l.ok() && l.fd.dstSim != nil }

// dstNewFD is a socket of the simulated network: a poll.FD of no file
// descriptor, and sim.
func dstNewFD(network string, laddr, raddr Addr, sim any) *netFD {
	family := syscall.AF_INET
	switch a := laddr.(type) {
	case *UnixAddr:
		family = syscall.AF_UNIX
	case *TCPAddr:
		if a.IP.To4() == nil && len(a.IP) == IPv6len {
			family = syscall.AF_INET6
		}
	}
	fd := &netFD{family: family, sotype: syscall.SOCK_STREAM, net: network, laddr: laddr, raddr: raddr, isConnected: raddr != nil, dstSim: sim}
	fd.pfd.Sysfd = -1
	fd.pfd.IsStream = true
	fd.pfd.ZeroReadIsEOF = true
	return fd
}

// dstErr is the error under a simulated socket's *OpError: net's callers
// make their own around it, as around the system's.
func dstErr(err error) error {
	if e, ok := err.(*OpError); ok {
		return e.Err
	}
	return err
}

func (fd *netFD) dstRead(p []byte) (int, error, bool) {
	if fd.dstSim == nil {
		return 0, nil, false
	}
	n, err := fd.dstSim.(io.Reader).Read(p)
	return n, dstErr(err), true
}

func (fd *netFD) dstWrite(p []byte) (int, error, bool) {
	if fd.dstSim == nil {
		return 0, nil, false
	}
	n, err := fd.dstSim.(io.Writer).Write(p)
	return n, dstErr(err), true
}

func (fd *netFD) dstAccept() (*netFD, error) {
	c, err := fd.dstSim.(interface{ Accept() (Conn, error) }).Accept()
	if err != nil {
		return nil, dstErr(err)
	}
	return dstNewFD(fd.net, c.LocalAddr(), c.RemoteAddr(), c), nil
}

// dstWriteBuffers is writev's: every buffer in turn, consumed as written.
func (fd *netFD) dstWriteBuffers(v *Buffers) (int64, error) {
	var n int64
	for len(*v) > 0 {
		k, err := fd.dstSim.(io.Writer).Write((*v)[0])
		n += int64(k)
		v.consume(int64(k))
		if err != nil {
			return n, dstErr(err)
		}
	}
	return n, nil
}

// dstSimulated reports whether c, or the reader or writer at the other end
// of a copy, is a simulated socket.
func dstSimulated(c *netFD, rw any) bool {
	if c.dstSim != nil {
		return true
	}
	if lr, ok := rw.(*io.LimitedReader); ok {
		rw = lr.R
	}
	var fd *netFD
	switch v := rw.(type) {
	case *TCPConn:
		fd = v.fd
	case tcpConnWithoutWriteTo:
		fd = v.fd
	case *UnixConn:
		fd = v.fd
	}
	return fd != nil && fd.dstSim != nil
}
`
