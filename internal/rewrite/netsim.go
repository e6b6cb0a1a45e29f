package rewrite

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

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
//     the zero-copy paths, SyscallConn) first hand a simulated socket to
//     netSimFile's helpers, on the line of their opening brace.
//   - netSimFile adds the helpers, and a DstreplaySim method on the four
//     types, through which simnet makes Go's own values around its
//     sockets (simnet's gotypes.go), found by an interface assertion, so
//     that a build without the overlay links as before.
//
// Everything else of net is Go's: a simulated TCPConn's errors are made by
// net's own code (simnet's are unwrapped first), its LocalAddr is read
// from the netFD, and so on. A simulated socket's poll.FD holds no file
// descriptor (-1): a path netHooks does not know fails with EBADF, never
// on another file. When the build's net is not as netHooks says (another
// Go release, another system), net is left as it is, and a note says that
// simulated sockets are simnet's own types there.

// netHook is one function of package net that a simulated socket must not
// pass through: its receiver's type ("" for a function), its name, its
// signature as go/printer prints it (the prologue uses its names), and
// what goes first in its body.
type netHook struct {
	recv, name, sig, prologue string
}

// netHooks are the functions of net that reach a netFD's poll.FD, go1.26.
var netHooks = []netHook{
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
	// A raw connection would hand out the -1; os's zero-copy paths find
	// a socket's poll.FD through it.
	{"TCPConn", "SyscallConn", "func (c *TCPConn) SyscallConn() (syscall.RawConn, error)",
		"if c.ok() && c.fd.dstSim != nil { return nil, errDstNoFD };"},
	{"UnixConn", "SyscallConn", "func (c *UnixConn) SyscallConn() (syscall.RawConn, error)",
		"if c.ok() && c.fd.dstSim != nil { return nil, errDstNoFD };"},
	{"TCPListener", "SyscallConn", "func (l *TCPListener) SyscallConn() (syscall.RawConn, error)",
		"if l.ok() && l.fd.dstSim != nil { return nil, errDstNoFD };"},
	{"UnixListener", "SyscallConn", "func (l *UnixListener) SyscallConn() (syscall.RawConn, error)",
		"if l.ok() && l.fd.dstSim != nil { return nil, errDstNoFD };"},
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

// netSimFiles is what the overlay replaces and adds in package net, by
// path, for the listing's build; none, and a note saying why, when the
// build's net is not as netHooks say.
func netSimFiles(listing []listed, modCache string) (map[string]string, string) {
	var net *listed
	for i := range listing {
		if p := &listing[i]; p.Standard && p.ImportPath == "net" {
			net = p
		}
	}
	if net == nil {
		return nil, ""
	}
	files, err := netSimEdit(net.Dir, net.GoFiles)
	if err == nil {
		err = notInModCache(modCache, net.Dir, listing) // a toolchain that GOTOOLCHAIN fetched
	}
	if err != nil {
		return nil, fmt.Sprintf("dstreplay: simulated listeners and connections are not Go's own *net.TCPListener and *net.TCPConn in this build: %v", err)
	}
	return files, ""
}

// netSimEdit edits the files of package net in dir (the build's goFiles)
// as netHooks say, and adds netSimFile.
func netSimEdit(dir string, goFiles []string) (map[string]string, error) {
	if !slices.Contains(goFiles, "fd_unix.go") {
		return nil, fmt.Errorf("package net here is not the one for unix systems the tool knows")
	}
	type insertion struct {
		at   int
		text string
	}
	edits := map[string][]insertion{} // by file
	texts := map[string][]byte{}
	found := map[int]bool{}
	fset := token.NewFileSet()
	fdStruct := ""
	for _, name := range goFiles {
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		texts[path] = src
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == "netFD" {
						st, ok := ts.Type.(*ast.StructType)
						if !ok {
							return nil, fmt.Errorf("net's netFD is not a struct")
						}
						fdStruct = path
						edits[path] = append(edits[path], insertion{fset.Position(st.Fields.Opening).Offset + 1, "dstSim any;"})
					}
				}
				for _, name := range declaredNames(d) {
					if strings.HasPrefix(name, "dst") || strings.HasPrefix(name, "errDst") {
						return nil, fmt.Errorf("net declares %s, a name the tool's hooks use", name)
					}
				}
			case *ast.FuncDecl:
				if n := d.Name.Name; strings.HasPrefix(n, "dst") || strings.HasPrefix(n, "Dstreplay") {
					return nil, fmt.Errorf("net declares %s, a name the tool's hooks use", n)
				}
				i := slices.IndexFunc(netHooks, func(h netHook) bool { return h.name == d.Name.Name && h.recv == recvName(d) })
				if i < 0 {
					continue
				}
				if d.Body == nil {
					return nil, fmt.Errorf("net's %s has no body", netHooks[i].sig)
				}
				if sig := signature(fset, d); sig != netHooks[i].sig {
					return nil, fmt.Errorf("net's %s is %q, not %q as the tool knows it", d.Name.Name, sig, netHooks[i].sig)
				}
				found[i] = true
				edits[path] = append(edits[path], insertion{fset.Position(d.Body.Lbrace).Offset + 1, " " + netHooks[i].prologue})
			}
		}
	}
	if fdStruct == "" {
		return nil, fmt.Errorf("net has no netFD")
	}
	for i, h := range netHooks {
		if !found[i] {
			return nil, fmt.Errorf("net has no %s", h.sig)
		}
	}
	out := map[string]string{filepath.Join(dir, "zz_dstreplay_sim.go"): netSimFile}
	for path, ins := range edits {
		slices.SortFunc(ins, func(a, b insertion) int { return a.at - b.at })
		src := texts[path]
		var b bytes.Buffer
		last := 0
		for _, in := range ins {
			b.Write(src[last:in.at])
			b.WriteString(in.text)
			last = in.at
		}
		b.Write(src[last:])
		out[path] = b.String()
	}
	return out, nil
}

// recvName is the name of d's receiver's type, without its star; "" for a
// function.
func recvName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) != 1 {
		return ""
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// signature is d without its body, as go/printer prints it.
func signature(fset *token.FileSet, d *ast.FuncDecl) string {
	var b bytes.Buffer
	printer.Fprint(&b, fset, &ast.FuncDecl{Recv: d.Recv, Name: d.Name, Type: d.Type})
	return b.String()
}

// declaredNames are the names a declaration declares at the package's
// level.
func declaredNames(d *ast.GenDecl) []string {
	var names []string
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			names = append(names, s.Name.Name)
		case *ast.ValueSpec:
			for _, n := range s.Names {
				names = append(names, n.Name)
			}
		}
	}
	return names
}
