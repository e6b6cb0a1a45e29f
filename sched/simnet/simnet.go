package simnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/dstgo/dst/entropy"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/internal/quiet"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/native"
	"github.com/dstgo/dst/vtime"
)

// Window is how many bytes a connection holds, written and not yet read, in
// each direction: a Write blocks while the peer's buffer is full, as a TCP
// send does once the peer's receive window and the local send buffer are.
const Window = 256 << 10

// The names of the faults the network draws (see sched.Fault): each fires
// with the probability the test gives it (schedtest.Options.Faults), and
// never by default.
const (
	FaultRefuse    = "net.refuse"     // a dial is refused (ECONNREFUSED)
	FaultReset     = "net.reset"      // a write resets the connection (ECONNRESET on both ends)
	FaultShortRead = "net.short-read" // a read returns fewer bytes than it could (TCP may cut a stream anywhere)
	// FaultDelay: what a write sends arrives late, by up to the fault's
	// bound (default DefaultDelay), in order with what was sent before.
	FaultDelay = "net.delay"
	// FaultPartition: at a dial or a write between two nodes, the link
	// between them stops delivering, both ways or one way, for up to the
	// fault's bound (default DefaultPartition). What is sent meanwhile
	// arrives when it heals, as TCP retransmits; a dial waits for it, or
	// for its deadline.
	FaultPartition = "net.partition"
	// FaultClog: at a dial or a write to a node, that node stops sending
	// and receiving, on every link, for up to the fault's bound (default
	// DefaultClog): what the network sees of a process that pauses (a
	// long garbage collection, a VM frozen) or is overloaded. Its
	// goroutines go on; what it sends meanwhile leaves when it unclogs.
	FaultClog = "net.clog"
	// FaultDNS: a lookup of a name (a dial of "localhost:8080", a
	// LookupHost, a LookupSRV) fails at once with a *net.DNSError, drawn
	// among a server that misbehaves and a timeout (both temporary) and a
	// name not found. A literal address is looked up by nobody, and
	// never fails. Lookups made by net itself (a native dial of a name,
	// net.LookupHost) meet it where package net has the overlay's hooks.
	FaultDNS = "net.dns"
)

// The bounds of the faults that last, when the test gives none
// (schedtest.Options.FaultBounds, -dst.faults=name=p:bound).
const (
	DefaultDelay     = 10 * time.Millisecond
	DefaultPartition = 5 * time.Second
	DefaultClog      = time.Second
)

// synTimeout is how long a connect that is never answered waits before it
// fails with ETIMEDOUT, when nothing bounds it sooner: Linux's six SYN
// retries, doubling from one second.
const synTimeout = 127 * time.Second

// firstPort is the first port a listener on port 0 is given in a run.
const firstPort = 32768

// network is a run's simulated network: its listeners by address. One
// mutex guards all of it; each wait is on a condition of its own.
//
// A node of the network is a listener's address, and the goroutines that
// accepted a connection from it with every goroutine they started (the
// server's); the run's other goroutines are the test's node. A partition
// cuts the links between two nodes.
type network struct {
	mu        quiet.Mutex
	listeners quiet.Table[netip.AddrPort, *listener]
	used      quiet.Table[netip.AddrPort, bool] // every address a listener of the run held
	unix      quiet.Table[string, *listener]    // unix listeners by path
	unixUsed  quiet.Table[string, bool]
	nextPort  uint16
	member    quiet.Table[int, string]       // the node of each goroutine that accepted, or Node named, by number
	cuts      quiet.Table[link, time.Time]   // the links partitioned, until when
	clogs     quiet.Table[string, time.Time] // the nodes clogged, until when
	conns     []*Conn                        // every end of a connection made, in order, for CrashNode
}

// link is the direction from one node to another.
type link struct{ from, to string }

// testNode is the name of the node of the goroutines no listener's
// accepting goroutine started.
const testNode = "the test"

// networkKey is where a run keeps its network (engine.G.Shadow).
var networkKey byte

// current is the network of the calling goroutine's run, made at its first
// use; nil outside a run.
func current() *network {
	g := engine.Current()
	if g == nil {
		return nil
	}
	if n, ok := g.Shadow(unsafe.Pointer(&networkKey)).(*network); ok {
		return n
	}
	n := &network{nextPort: firstPort}
	g.SetShadow(unsafe.Pointer(&networkKey), &networkKey, n)
	return n
}

// simulated reports whether the network name is one the simulation carries
// (TCP's); the others run natively.
func simulated(network string) bool {
	switch network {
	case "tcp", "tcp4", "tcp6":
		return true
	}
	return false
}

// Listen is net.Listen. Inside a run, a TCP listener on a loopback, an
// unspecified or a literal address, or "localhost", and a unix stream
// listener at a path (no socket file is made), are on the run's simulated
// network: port 0 gives the next free port, counted from 32768,
// and a port in use is refused as EADDRINUSE. Any other listener is Go's
// own, and the run notes that it runs natively.
func Listen(network, address string) (net.Listener, error) {
	return listen(&net.ListenConfig{}, context.Background(), network, address, "net.Listen")
}

// ListenContext is (*net.ListenConfig).Listen: lc's Control and KeepAlive
// do not apply to a simulated listener.
func ListenContext(lc *net.ListenConfig, ctx context.Context, network, address string) (net.Listener, error) {
	return listen(lc, ctx, network, address, "net.ListenConfig.Listen")
}

// listen is Listen and ListenContext; what names the call a native
// listener is noted as.
func listen(lc *net.ListenConfig, ctx context.Context, network, address, what string) (net.Listener, error) {
	n := current()
	if n == nil {
		return lc.Listen(ctx, network, address)
	}
	if network == "unix" && address != "" {
		return n.listenUnix(address)
	}
	ap, ok := listenAddr(network, address)
	if !ok {
		l, err := lc.Listen(ctx, network, address)
		if err == nil { // one that failed ("missing port in address") started nothing
			native.Boundary(what)
		}
		return l, err
	}
	if err := ctx.Err(); err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: net.TCPAddrFromAddrPort(ap), Err: err}
	}
	return n.listen(network, ap)
}

// Dial is net.Dial. Inside a run, a TCP dial to the address of a listener
// on the run's simulated network connects to it, and one to where such a
// listener was and closed is refused (ECONNREFUSED), unless the run has
// started a process (which may listen there now); any other dial is Go's
// own, and the run notes that it runs natively.
func Dial(network, address string) (net.Conn, error) {
	return DialContext(&net.Dialer{}, context.Background(), network, address)
}

// DialTimeout is net.DialTimeout: a simulated connection is made at once,
// so the timeout only bounds a native one.
func DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	return DialContext(&net.Dialer{Timeout: timeout}, context.Background(), network, address)
}

// DialContext is d.DialContext(ctx, network, address): inside a run, as
// Dial. A nil d is a zero Dialer.
func DialContext(d *net.Dialer, ctx context.Context, network, address string) (net.Conn, error) {
	if d == nil {
		d = &net.Dialer{}
	}
	n := current()
	if n == nil {
		return d.DialContext(ctx, network, address)
	}
	if network == "unix" {
		if c, err, ok := n.dialUnix(ctx, dialDeadline(d), address); ok {
			return c, err
		}
	}
	ap, ok := dialAddr(network, address)
	if ok {
		if host, _, _ := net.SplitHostPort(address); !isLiteral(host) {
			// A name the simulation resolves ("localhost"); one it does
			// not is net's to look up, and meets the fault there.
			if err := lookupFault(host); err != nil {
				return nil, &net.OpError{Op: "dial", Net: network, Err: err}
			}
		}
		if c, err, ok := n.dial(ctx, dialDeadline(d), network, ap); ok {
			return c, err
		}
	}
	native.Boundary("net.Dial " + address)
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &nativeConn{Conn: c}, nil
}

// dialDeadline is when a dial with d must have connected, on the virtual
// clock; zero if d sets no bound.
func dialDeadline(d *net.Dialer) time.Time {
	dl := d.Deadline
	if d.Timeout > 0 {
		if t := vtime.Now().Add(d.Timeout); dl.IsZero() || t.Before(dl) {
			dl = t
		}
	}
	return dl
}

// DialerDial is d.Dial(network, address): inside a run, as Dial.
func DialerDial(d *net.Dialer, network, address string) (net.Conn, error) {
	return DialContext(d, context.Background(), network, address)
}

// pollSlice is how long a read of a native connection inside a run waits
// in the system at a time, in real time, before it lets the run's other
// goroutines go on.
const pollSlice = time.Millisecond

// nativeConn is a connection of Go's own that a goroutine of a run dialed
// (to a server outside the run: started before it, or elsewhere). A read
// that blocked in the system would keep the run's turn, so that the
// goroutine that is to send the request (net/http's write loop) never ran
// and the watchdog stopped the run: inside a run, a read waits pollSlice
// at a time, then sleeps as long on the virtual clock, where the others
// run, until data comes or the read deadline (on the virtual clock)
// passes. What it reads, and when, is the outside world's: not explored,
// and not replayed.
type nativeConn struct {
	net.Conn
	rdl time.Time // the read deadline, on the clock of the goroutine that set it
}

func (c *nativeConn) Read(b []byte) (int, error) {
	if engine.Current() == nil {
		c.Conn.SetReadDeadline(c.rdl)
		return c.Conn.Read(b)
	}
	for {
		c.Conn.SetReadDeadline(time.Now().Add(pollSlice))
		n, err := c.Conn.Read(b)
		var ne net.Error
		if n > 0 || !errors.As(err, &ne) || !ne.Timeout() {
			return n, err
		}
		if past(c.rdl) {
			return 0, err
		}
		vtime.Sleep(pollSlice)
	}
}

// SetDeadline sets the write deadline natively, and the read deadline
// as SetReadDeadline.
func (c *nativeConn) SetDeadline(t time.Time) error {
	c.rdl = t
	return c.Conn.SetWriteDeadline(t)
}

// SetReadDeadline keeps the deadline for Read, which checks it between
// its waits.
func (c *nativeConn) SetReadDeadline(t time.Time) error {
	c.rdl = t
	return nil
}

// CloseWrite half-closes a TCP connection, as net.TCPConn's.
func (c *nativeConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

// listenAddr is the simulated address a listen names, if the simulation
// carries it.
func listenAddr(network, address string) (netip.AddrPort, bool) {
	if !simulated(network) {
		return netip.AddrPort{}, false
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return netip.AddrPort{}, false
	}
	p := uint64(0) // an empty port is 0, as net's ("localhost:")
	if port != "" {
		if p, err = strconv.ParseUint(port, 10, 16); err != nil {
			return netip.AddrPort{}, false
		}
	}
	var ip netip.Addr
	switch host {
	case "":
		ip = netip.IPv6Unspecified()
		if network == "tcp4" {
			ip = netip.IPv4Unspecified()
		}
	case "localhost":
		ip = netip.AddrFrom4([4]byte{127, 0, 0, 1})
		if network == "tcp6" {
			ip = netip.IPv6Loopback()
		}
	default:
		if ip, err = netip.ParseAddr(host); err != nil || ip.Zone() != "" {
			return netip.AddrPort{}, false
		}
	}
	return netip.AddrPortFrom(ip.Unmap(), uint16(p)), true
}

// dialAddr is the address a dial names, if it is a literal one (or
// localhost, or an empty host: the local system).
func dialAddr(network, address string) (netip.AddrPort, bool) {
	ap, ok := listenAddr(network, address)
	if !ok || ap.Port() == 0 {
		return netip.AddrPort{}, false
	}
	if ap.Addr().IsUnspecified() {
		ap = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), ap.Port())
	}
	return ap, true
}

//go:norace
func (n *network) listen(network string, ap netip.AddrPort) (net.Listener, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if ap.Port() == 0 {
		for n.taken(ap.Addr(), n.nextPort) {
			n.nextPort++
		}
		ap = netip.AddrPortFrom(ap.Addr(), n.nextPort)
		n.nextPort++
	} else if n.taken(ap.Addr(), ap.Port()) {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: net.TCPAddrFromAddrPort(ap),
			Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
	}
	l := &listener{n: n, network: network, ap: ap, addr: net.TCPAddrFromAddrPort(ap), node: n.listenerNode(ap.String())}
	l.ready.L = &n.mu
	n.listeners.Set(ap, l)
	n.used.Set(ap, true)
	return goListener(l), nil
}

// taken reports whether a listener of the network holds port on ip, or
// on every address where either is unspecified.
//
//go:norace
func (n *network) taken(ip netip.Addr, port uint16) bool {
	for _, ap := range n.listeners.Keys() {
		if ap.Port() == port && (ap.Addr() == ip || ap.Addr().IsUnspecified() || ip.IsUnspecified()) {
			return true
		}
	}
	return false
}

// lookup is the listener a dial to ap reaches: one on ap itself, or on
// ap's port at an unspecified address when ap is a loopback one.
//
//go:norace
func (n *network) lookup(ap netip.AddrPort) *listener {
	if l := n.listeners.At(ap); l != nil {
		return l
	}
	if !ap.Addr().IsLoopback() {
		return nil
	}
	for _, any := range []netip.Addr{netip.IPv6Unspecified(), netip.IPv4Unspecified()} {
		if l := n.listeners.At(netip.AddrPortFrom(any, ap.Port())); l != nil {
			return l
		}
	}
	return nil
}

// dial connects to the listener at ap; ok is false when the network has
// none there.
//
//go:norace
func (n *network) dial(ctx context.Context, deadline time.Time, network string, ap netip.AddrPort) (c net.Conn, err error, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.lookup(ap)
	raddr := net.TCPAddrFromAddrPort(ap)
	if l == nil && n.used.At(ap) && !engine.Current().StartedProcesses() {
		// A listener of the run was there and closed: refused, as Go's
		// network would. Once the run has started a process, the
		// address may be that process's now, on Go's own network (a test
		// that picks a free port for a peer it starts by listening on
		// port 0 and closing): the dial is Go's own.
		return nil, &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, true
	}
	if l == nil {
		return nil, nil, false
	}
	local := netip.AddrPortFrom(ap.Addr(), n.nextPort)
	n.nextPort++
	c, err = n.connect(ctx, deadline, l, network, net.TCPAddrFromAddrPort(local), raddr)
	return c, err, true
}

// connect makes a connection of the dial's network from local to the
// listener l, at remote, and queues its server's end for Accept (the
// caller holds the lock); the dial's context, done, or FaultRefuse refuse
// it. Across a partition it waits for the partition to heal, unless the
// dial's deadline, its context or synTimeout comes first.
//
//go:norace
func (n *network) connect(ctx context.Context, deadline time.Time, l *listener, network string, local, remote net.Addr) (net.Conn, error) {
	opError := func(err error) error { return &net.OpError{Op: "dial", Net: network, Addr: remote, Err: err} }
	if err := ctx.Err(); err != nil {
		return nil, opError(mapContextErr(err))
	}
	from := n.nodeOf(engine.Current())
	n.partition(from, l.node)
	n.clog(from, l.node)
	if heal := n.cutBetween(from, l.node); !heal.IsZero() {
		if err := n.waitHeal(ctx, deadline, heal); err != nil {
			return nil, opError(err)
		}
		if l.closed {
			return nil, opError(os.NewSyscallError("connect", syscall.ECONNREFUSED))
		}
	}
	if sched.Fault(FaultRefuse) {
		return nil, opError(os.NewSyscallError("connect", syscall.ECONNREFUSED))
	}
	client, server := n.pair(network, local, remote)
	client.from, client.to = from, l.node
	server.from, server.to = l.node, from
	client.label()
	server.label()
	l.queue = quiet.Push(l.queue, server)
	engine.RaceReleaseMerge(unsafe.Pointer(&l.hb))
	l.ready.Signal()
	return goConn(client), nil
}

// waitHeal waits, with the lock released, until heal, unless deadline,
// ctx's end or synTimeout comes first: then the error the dial fails
// with.
//
//go:norace
func (n *network) waitHeal(ctx context.Context, deadline, heal time.Time) error {
	n.mu.Unlock()
	defer n.mu.Lock()
	start := vtime.Now()
	giveUp := start.Add(synTimeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(giveUp) {
		giveUp = dl
	}
	if !deadline.IsZero() && deadline.Before(giveUp) {
		giveUp = deadline
	}
	for {
		now := vtime.Now()
		if err := ctx.Err(); err != nil {
			return mapContextErr(err)
		}
		if !now.Before(heal) {
			return nil
		}
		if !now.Before(giveUp) {
			if giveUp.Equal(start.Add(synTimeout)) {
				return os.NewSyscallError("connect", syscall.ETIMEDOUT)
			}
			return timeoutError{}
		}
		// A context canceled without a deadline is seen within a
		// tenth of a second.
		vtime.Sleep(min(heal.Sub(now), giveUp.Sub(now), 100*time.Millisecond))
	}
}

// mapContextErr is the error a dial whose context ended fails with, as
// net's: one that is the context's error, and reads as net's does.
func mapContextErr(err error) error {
	switch err {
	case context.Canceled:
		return canceledError{}
	case context.DeadlineExceeded:
		return timeoutError{}
	}
	return err
}

// timeoutError is a dial's timeout, as net's: "i/o timeout", a
// net.Error whose Timeout is true, and context.DeadlineExceeded.
type timeoutError struct{}

func (timeoutError) Error() string      { return "i/o timeout" }
func (timeoutError) Timeout() bool      { return true }
func (timeoutError) Temporary() bool    { return true }
func (timeoutError) Is(err error) bool  { return err == context.DeadlineExceeded }
func (canceledError) Error() string     { return "operation was canceled" }
func (canceledError) Is(err error) bool { return err == context.Canceled }

// canceledError is a dial's cancellation, as net's.
type canceledError struct{}

// listenerNode is the node a listener at addr is: that of the goroutine
// listening, when Node named one, else the address itself.
//
//go:norace
func (n *network) listenerNode(addr string) string {
	if node := n.nodeOf(engine.Current()); node != testNode {
		return node
	}
	return addr
}

// Node makes the calling goroutine, and every goroutine it starts from
// then on, the node name of its run's network: the listeners they open are
// that node, and so are the connections they dial or accept. A partition
// or a clog of the node, and CrashNode, act on all of them. Outside a run
// it does nothing.
//
//go:norace
func Node(name string) {
	n := current()
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.member.Set(engine.Current().Num(), name)
}

// CrashNode is the crash of the process that is the node named node, in
// the calling goroutine's run: end ends the node's goroutines
// (engine.G.Crash), called with the network held, so that none of them is
// caught inside it; then the node's listeners close (a dial is refused)
// and its ends of connections close as the kernel closes a dead process's
// sockets: the peer reads what was sent, then io.EOF, or is reset when it
// had sent what was never read. Outside a run it is an error.
//
//go:norace
func CrashNode(node string, end func()) error {
	n := current()
	if n == nil {
		return fmt.Errorf("simnet: CrashNode(%q) outside a run", node)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	end()
	var ls []*listener
	for _, l := range n.listeners.Values() {
		if l.node == node {
			ls = quiet.Push(ls, l)
		}
	}
	for _, l := range n.unix.Values() {
		if l.node == node {
			ls = quiet.Push(ls, l)
		}
	}
	// In the order they were made (the tables keep it): closing wakes
	// their waiters.
	for _, l := range ls {
		l.close()
	}
	kept := n.conns[:0]
	for _, c := range n.conns {
		switch {
		case c.closed:
		case c.from == node:
			c.close()
		default:
			kept = append(kept, c)
		}
	}
	clear(n.conns[len(kept):])
	n.conns = kept
	return nil
}

// nodeOf is the node g belongs to: that of the listener it, or the
// nearest goroutine that started it, accepted from; else the test's.
//
//go:norace
func (n *network) nodeOf(g *engine.G) string {
	for ; g != nil; g = g.Parent() {
		if node, ok := n.member.Get(g.Num()); ok {
			return node
		}
	}
	return testNode
}

// partition draws FaultPartition for the link between the nodes from and
// to (the caller holds the lock): when it fires, the link stops
// delivering both ways, or one of them, for a time drawn up to the
// fault's bound. The run's log says so.
//
//go:norace
func (n *network) partition(from, to string) {
	if from == to || !sched.Fault(FaultPartition) {
		return
	}
	g := engine.Current()
	src := g.Source()
	d := time.Duration(src.At(partitionKey).IntRange(1, int(g.FaultBound(FaultPartition, DefaultPartition))))
	heal := vtime.Now().Add(d)
	ways := []link{{from, to}, {to, from}}
	switch src.At(partitionWayKey).IntRange(0, 2) {
	case 1:
		ways = ways[:1]
	case 2:
		ways = ways[1:]
	}
	for _, w := range ways {
		if heal.After(n.cuts.At(w)) {
			n.cuts.Set(w, heal)
		}
	}
	what := fmt.Sprintf("%s and %s cannot reach each other", from, to)
	if len(ways) == 1 {
		what = fmt.Sprintf("%s cannot reach %s (the other way works)", ways[0].from, ways[0].to)
	}
	g.Log(fmt.Sprintf("simnet: partition: %s for %v", what, d))
}

// clog draws FaultClog for the node to, which the node from dials or
// writes to (the caller holds the lock): when it fires, to stops sending
// and receiving for a time drawn up to the fault's bound. The run's log
// says so.
//
//go:norace
func (n *network) clog(from, to string) {
	if from == to || !sched.Fault(FaultClog) {
		return
	}
	g := engine.Current()
	d := time.Duration(g.Source().At(clogKey).IntRange(1, int(g.FaultBound(FaultClog, DefaultClog))))
	if heal := vtime.Now().Add(d); heal.After(n.clogs.At(to)) {
		n.clogs.Set(to, heal)
	}
	g.Log(fmt.Sprintf("simnet: clog: %s stops sending and receiving for %v", to, d))
}

// cut is when the link from one node to another heals, if it is
// partitioned now, or either node is clogged; else zero.
//
//go:norace
func (n *network) cut(from, to string) time.Time {
	if n.cuts.Len() == 0 && n.clogs.Len() == 0 {
		return time.Time{}
	}
	now := vtime.Now()
	heal := until(&n.cuts, link{from, to}, now)
	for _, node := range []string{from, to} {
		if h := until(&n.clogs, node, now); h.After(heal) {
			heal = h
		}
	}
	return heal
}

// until is when what m holds for k heals, if it has not by now (else
// zero, and it is forgotten).
//
//go:norace
func until[K comparable](m *quiet.Table[K, time.Time], k K, now time.Time) time.Time {
	heal, ok := m.Get(k)
	if !ok {
		return time.Time{}
	}
	if !now.Before(heal) {
		m.Del(k)
		return time.Time{}
	}
	return heal
}

// cutBetween is when the later of the two ways between a and b heals, if
// either is partitioned (a connection needs both: a SYN and its answer).
//
//go:norace
func (n *network) cutBetween(a, b string) time.Time {
	h1, h2 := n.cut(a, b), n.cut(b, a)
	if h2.After(h1) {
		return h2
	}
	return h1
}

var (
	partitionKey    = entropy.KeyOf("simnet.partition")
	partitionWayKey = entropy.KeyOf("simnet.partition.way")
	delayKey        = entropy.KeyOf("simnet.delay")
	clogKey         = entropy.KeyOf("simnet.clog")
)

// listenUnix is a unix stream listener at path.
//
//go:norace
func (n *network) listenUnix(path string) (net.Listener, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	addr := &net.UnixAddr{Name: path, Net: "unix"}
	if n.unix.At(path) != nil {
		return nil, &net.OpError{Op: "listen", Net: "unix", Addr: addr, Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
	}
	l := &listener{n: n, network: "unix", path: path, addr: addr, node: n.listenerNode(path)}
	l.ready.L = &n.mu
	n.unix.Set(path, l)
	n.unixUsed.Set(path, true)
	return goListener(l), nil
}

// dialUnix connects to the unix listener at path; ok is false when the
// run never had one there.
//
//go:norace
func (n *network) dialUnix(ctx context.Context, deadline time.Time, path string) (c net.Conn, err error, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.unix.At(path)
	raddr := &net.UnixAddr{Name: path, Net: "unix"}
	switch {
	case l == nil && n.unixUsed.At(path):
		// Closing a unix listener removes its socket file.
		return nil, &net.OpError{Op: "dial", Net: "unix", Addr: raddr, Err: os.NewSyscallError("connect", syscall.ENOENT)}, true
	case l == nil:
		return nil, nil, false
	}
	c, err = n.connect(ctx, deadline, l, "unix", &net.UnixAddr{Name: unnamed, Net: "unix"}, raddr) // the client's end is unnamed
	return c, err, true
}

// pair makes the two ends of a connection from a to b.
//
//go:norace
func (n *network) pair(network string, a, b net.Addr) (*Conn, *Conn) {
	ab, ba := &pipe{}, &pipe{}
	for _, p := range []*pipe{ab, ba} {
		p.readable.L, p.writable.L = &n.mu, &n.mu
	}
	ca := &Conn{n: n, network: network, local: a, remote: b, in: ba, out: ab}
	cb := &Conn{n: n, network: network, local: ca.remote, remote: ca.local, in: ab, out: ba}
	n.conns = quiet.Push(quiet.Push(n.conns, ca), cb)
	return ca, cb
}

// listener is a simulated TCP listener.
type listener struct {
	n       *network
	network string
	ap      netip.AddrPort // a TCP listener's address
	path    string         // a unix listener's
	addr    net.Addr
	node    string  // the node it is: its address, or Node's name
	queue   []*Conn // connected, not yet accepted
	hb      byte    // the race detector's edge from a dial to the accept of its connection
	closed  bool
	dl      time.Time  // Accept's deadline
	ready   sched.Cond // a connection is queued, the listener closed, or its deadline changed
}

// Accept waits for the next connection, as a TCP listener's.
//
//go:norace
func (l *listener) Accept() (net.Conn, error) {
	l.n.mu.Lock()
	defer l.n.mu.Unlock()
	for {
		if l.closed {
			return nil, l.opError("accept", net.ErrClosed)
		}
		if past(l.dl) {
			return nil, l.opError("accept", os.ErrDeadlineExceeded)
		}
		if len(l.queue) > 0 {
			c := l.queue[0]
			l.queue[0] = nil
			l.queue = l.queue[1:]
			engine.RaceAcquire(unsafe.Pointer(&l.hb))
			if g := engine.Current(); g != nil && l.n.nodeOf(g) == testNode {
				l.n.member.Set(g.Num(), l.node) // the server's goroutine: its node's
			}
			return c, nil
		}
		l.n.wait(&l.ready, l.dl, time.Time{})
	}
}

// SetDeadline sets Accept's deadline, on the virtual clock: an Accept
// blocked now or later returns an error that is os.ErrDeadlineExceeded once
// it passes.
//
//go:norace
func (l *listener) SetDeadline(t time.Time) error {
	l.n.mu.Lock()
	defer l.n.mu.Unlock()
	if l.closed {
		return l.opError("set", net.ErrClosed)
	}
	l.dl = t
	l.ready.Broadcast()
	return nil
}

// Close stops the listener: a pending Accept returns an error, and the
// connections not yet accepted are reset.
//
//go:norace
func (l *listener) Close() error {
	l.n.mu.Lock()
	defer l.n.mu.Unlock()
	if l.closed {
		return l.opError("close", net.ErrClosed)
	}
	l.close()
	return nil
}

// close closes l (the caller holds the lock).
//
//go:norace
func (l *listener) close() {
	l.closed = true
	if l.network == "unix" {
		l.n.unix.Del(l.path)
	} else {
		l.n.listeners.Del(l.ap)
	}
	for _, c := range l.queue {
		c.abort()
	}
	l.queue = nil
	l.ready.Broadcast()
}

//go:norace
func (l *listener) Addr() net.Addr { return l.addr }

//go:norace
func (l *listener) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: l.network, Addr: l.Addr(), Err: err}
}

// pipe is one direction of a connection: what was written and not yet
// read, and how the writing and the reading ends stand.
type pipe struct {
	buf      []byte
	late     []segment // the bytes at buf's end that have not arrived yet, in order
	lateN    int       // how many bytes late holds
	finAt    time.Time // when the FIN arrives, once eof is set (zero: at once)
	eof      bool      // the writer closed (or half-closed) its end: a FIN
	reset    bool      // the connection was reset: an RST
	gone     bool      // the reader closed its end: what arrives now is answered by an RST
	readable sched.Cond
	writable sched.Cond
	obj      engine.Obj // the direction's identity in the run's trace
	sent     int64      // bytes sent in all
	got      int64      // bytes read in all
	hb       byte       // the race detector's edge from a send to the read that gets it
}

// sentEdge is the race detector's edge from what the calling goroutine
// did before it sent on p (bytes, a FIN, a reset) to what the goroutine
// that reads it does after (received): Go's network makes it too.
//
//go:norace
func (p *pipe) sentEdge() { engine.RaceReleaseMerge(unsafe.Pointer(&p.hb)) }

// received takes the edge of what was sent on p.
//
//go:norace
func (p *pipe) received() { engine.RaceAcquire(unsafe.Pointer(&p.hb)) }

// io records, in g's run's trace (engine.G.IO), that n bytes were sent
// (off is &p.sent) or read (&p.got) on p, arriving after, and counts
// them. g is the calling goroutine, nil outside a run.
//
//go:norace
func (p *pipe) io(g *engine.G, op engine.Op, off *int64, n int, after time.Duration) {
	if g != nil {
		g.IO(op, &p.obj, engine.KindConn, *off, int64(n), after)
	}
	*off += int64(n)
}

// segment is a run of bytes sent that arrives at a later time.
type segment struct {
	n  int
	at time.Time
}

// arrived is how many bytes of buf have arrived by now.
//
//go:norace
func (p *pipe) arrived(now time.Time) int {
	for len(p.late) > 0 && !p.late[0].at.After(now) {
		p.lateN -= p.late[0].n
		p.late = p.late[1:]
	}
	if len(p.late) == 0 {
		p.late = nil
	}
	return len(p.buf) - p.lateN
}

// next is when the next bytes, or the FIN, arrive; zero if nothing is on
// its way.
//
//go:norace
func (p *pipe) next() time.Time {
	if len(p.late) > 0 {
		return p.late[0].at
	}
	if p.eof && len(p.buf) == 0 {
		return p.finAt
	}
	return time.Time{}
}

// send appends b, to arrive at at, after all that was sent before it,
// and returns how long after now it arrives.
//
//go:norace
func (p *pipe) send(b []byte, at, now time.Time) time.Duration {
	p.buf = quiet.AppendBytes(p.buf, b)
	if len(p.late) > 0 && at.Before(p.late[len(p.late)-1].at) {
		at = p.late[len(p.late)-1].at
	}
	if !at.After(now) {
		return 0
	}
	if k := len(p.late) - 1; k >= 0 && p.late[k].at.Equal(at) {
		p.late[k].n += len(b)
	} else {
		p.late = quiet.Push(p.late, segment{len(b), at})
	}
	p.lateN += len(b)
	return at.Sub(now)
}

// arrival is when what is sent now on p from one node to another arrives:
// now, or once the link heals (the caller holds the lock).
//
//go:norace
func (c *Conn) arrival(now time.Time) time.Time {
	if heal := c.n.cut(c.from, c.to); heal.After(now) {
		return heal
	}
	return now
}

// Conn is one end of a simulated TCP connection. Reads and writes are
// scheduling points; a Write blocks while the peer holds Window unread
// bytes; deadlines are on the run's virtual clock. Close with unread data,
// or a write after the peer closed, resets the connection, as TCP does.
type Conn struct {
	n             *network
	network       string
	local, remote net.Addr
	in, out       *pipe
	closed        bool
	rdl, wdl      time.Time
	from, to      string      // the node of this end, and the peer's
	pending       []byte      // read, and put back by a raw read (rawconn.go): read first
	raw           *socketPair // for raw reads and writes, made at the first (rawconn.go)
	rawBuf        []byte      // what raw reads read into (rawconn.go)
}

// label names what c sends in the run's trace: "tcp 127.0.0.1:32769 →
// 127.0.0.1:8080", with the nodes when they are not the addresses ("(the
// test → 127.0.0.1:8080)").
//
//go:norace
func (c *Conn) label() {
	local, remote := addrName(c.local), addrName(c.remote)
	l := fmt.Sprintf("%s %s → %s", c.network, local, remote)
	if c.from != local || c.to != remote {
		l += fmt.Sprintf(" (%s → %s)", c.from, c.to)
	}
	c.out.obj.SetLabel(l)
}

// unnamed is the name Go gives the address of a unix socket that has none
// (a client's end): Linux reports an empty abstract name, which Go writes
// "@"; other systems an empty path.
var unnamed = func() string {
	if runtime.GOOS == "linux" {
		return "@"
	}
	return ""
}()

// addrName is a's string, or "unnamed" (a unix client's end).
func addrName(a net.Addr) string {
	if s := a.String(); s != "" && s != unnamed {
		return s
	}
	return "unnamed"
}

// Read reads what the peer wrote: it blocks until there is some, the peer
// closed its end (io.EOF), the connection was reset, or the read deadline
// passed.
//
//go:norace
func (c *Conn) Read(b []byte) (int, error) {
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	for {
		now := vtime.Now()
		switch p := c.in; {
		case c.closed:
			return 0, c.opError("read", net.ErrClosed)
		case past(c.rdl): // before what there is to read, as Go's poller checks
			return 0, c.opError("read", os.ErrDeadlineExceeded)
		case len(c.pending) > 0:
			k := copy(b, c.pending)
			c.pending = c.pending[k:]
			return k, nil
		case p.arrived(now) > 0 || len(b) == 0 && !p.reset:
			k := copy(b, p.buf[:p.arrived(now)])
			if k > 1 && sched.Fault(FaultShortRead) {
				k = 1 + c.draw(k-1)
			}
			p.buf = p.buf[k:]
			if len(p.buf) == 0 {
				p.buf = nil
			}
			p.io(engine.Current(), engine.OpRecv, &p.got, k, 0)
			p.received()
			p.writable.Broadcast()
			return k, nil
		case p.reset:
			p.received()
			return 0, c.opError("read", os.NewSyscallError("read", syscall.ECONNRESET))
		case p.eof && len(p.buf) == 0 && !p.finAt.After(now):
			p.received()
			return 0, io.EOF
		}
		c.wait(&c.in.readable, c.rdl, c.in.next())
	}
}

// Write writes all of b, blocking while the peer's buffer is full, unless
// the connection closes or resets or the write deadline passes first.
//
//go:norace
func (c *Conn) Write(b []byte) (int, error) {
	g := engine.Current()
	if g != nil {
		g.CrashPoint()
	}
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	done := 0
	var at time.Time // when what this write sends arrives
	for {
		p := c.out
		switch {
		case c.closed:
			return done, c.opError("write", net.ErrClosed)
		case past(c.wdl):
			return done, c.opError("write", os.ErrDeadlineExceeded)
		case p.reset:
			return done, c.opError("write", os.NewSyscallError("write", syscall.ECONNRESET))
		case p.eof:
			return done, c.opError("write", os.NewSyscallError("write", syscall.EPIPE))
		case p.gone:
			// The peer is closed: this write is sent, and answered by an
			// RST that resets this end.
			c.in.reset, p.reset = true, true
			c.in.readable.Broadcast()
			return len(b), nil
		case sched.Fault(FaultReset):
			c.abort()
			return done, c.opError("write", os.NewSyscallError("write", syscall.ECONNRESET))
		case done == len(b):
			return done, nil
		case len(p.buf) < Window:
			now := vtime.Now()
			if at.IsZero() {
				at = c.sendTime(now)
			}
			k := min(Window-len(p.buf), len(b)-done)
			p.io(g, engine.OpSend, &p.sent, k, p.send(b[done:done+k], at, now))
			p.sentEdge()
			done += k
			p.readable.Broadcast()
			continue
		}
		c.wait(&p.writable, c.wdl, time.Time{})
	}
}

// sendTime is when what a write sends now arrives: at once, or once a
// partition heals, and later by FaultDelay (the caller holds the lock).
//
//go:norace
func (c *Conn) sendTime(now time.Time) time.Time {
	c.n.partition(c.from, c.to)
	c.n.clog(c.from, c.to)
	at := c.arrival(now)
	if sched.Fault(FaultDelay) {
		g := engine.Current()
		d := time.Duration(g.Source().At(delayKey).IntRange(1, int(g.FaultBound(FaultDelay, DefaultDelay))))
		at = at.Add(d)
		g.Log(fmt.Sprintf("simnet: delay: a write from %s to %s arrives %v late", c.from, c.to, d))
	}
	return at
}

// fin sends the FIN: it arrives after what was sent, and not across a
// partition.
//
//go:norace
func (c *Conn) fin() {
	p := c.out
	if p.eof {
		return
	}
	now := vtime.Now()
	p.eof, p.finAt = true, c.arrival(now)
	if k := len(p.late); k > 0 && p.late[k-1].at.After(p.finAt) {
		p.finAt = p.late[k-1].at
	}
	p.io(engine.Current(), engine.OpClose, &p.sent, 0, max(0, p.finAt.Sub(now)))
	p.sentEdge()
}

// Close closes the connection: the peer reads what was sent, then io.EOF;
// if data sent to this end was not read, the peer is reset instead.
//
//go:norace
func (c *Conn) Close() error {
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	if c.closed {
		return c.opError("close", net.ErrClosed)
	}
	c.close()
	return nil
}

// close closes c (the caller holds the lock).
//
//go:norace
func (c *Conn) close() {
	c.closed = true
	if len(c.in.buf) > 0 || len(c.pending) > 0 {
		c.out.reset = true
	}
	c.pending = nil
	if c.raw != nil {
		c.raw.close()
		c.raw = nil
	}
	c.fin()
	c.in.gone, c.in.buf, c.in.late, c.in.lateN = true, nil, nil, 0
	c.wakeAll()
}

// CloseWrite shuts down the writing side: the peer reads io.EOF after what
// was sent, and this end may still read.
//
//go:norace
func (c *Conn) CloseWrite() error {
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	if c.closed {
		return c.opError("close", net.ErrClosed)
	}
	c.fin()
	c.wakeAll()
	return nil
}

// CloseRead shuts down the reading side: what the peer sends from now on
// is discarded, and reads here return io.EOF.
//
//go:norace
func (c *Conn) CloseRead() error {
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	if c.closed {
		return c.opError("close", net.ErrClosed)
	}
	c.in.eof, c.in.buf, c.in.late, c.in.lateN, c.in.finAt = true, nil, nil, 0, time.Time{}
	c.wakeAll()
	return nil
}

// abort resets the connection at both ends (the caller holds the lock).
//
//go:norace
func (c *Conn) abort() {
	c.in.reset, c.out.reset = true, true
	c.in.sentEdge()
	c.out.sentEdge()
	for _, p := range []*pipe{c.in, c.out} {
		p.buf, p.late, p.lateN = nil, nil, 0
	}
	c.wakeAll()
}

//go:norace
func (c *Conn) wakeAll() {
	for _, p := range []*pipe{c.in, c.out} {
		p.readable.Broadcast()
		p.writable.Broadcast()
	}
}

//go:norace
func (c *Conn) LocalAddr() net.Addr { return c.local }

//go:norace
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline sets the read and write deadlines, on the virtual clock.
//
//go:norace
func (c *Conn) SetDeadline(t time.Time) error {
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	c.rdl, c.wdl = t, t
	c.wakeAll()
	return c.setError()
}

// SetReadDeadline sets the read deadline: a Read blocked now or later
// returns an error that is os.ErrDeadlineExceeded once it passes.
//
//go:norace
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	c.rdl = t
	c.in.readable.Broadcast()
	return c.setError()
}

// SetWriteDeadline sets the write deadline.
//
//go:norace
func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	c.wdl = t
	c.out.writable.Broadcast()
	return c.setError()
}

//go:norace
func (c *Conn) setError() error {
	if c.closed {
		return c.opError("set", net.ErrClosed)
	}
	return nil
}

// wait waits on cond (the caller holds the lock) until it is signalled,
// the deadline passes, or the time wake comes; a zero time is none.
//
//go:norace
func (c *Conn) wait(cond *sched.Cond, deadline, wake time.Time) { c.n.wait(cond, deadline, wake) }

// wait is Conn.wait, on n's lock.
//
//go:norace
func (n *network) wait(cond *sched.Cond, deadline, wake time.Time) {
	if deadline.IsZero() || !wake.IsZero() && wake.Before(deadline) {
		deadline = wake
	}
	if deadline.IsZero() {
		cond.Wait()
		return
	}
	t := vtime.AfterFunc(vtime.Until(deadline), func() {
		n.mu.Lock()
		cond.Broadcast()
		n.mu.Unlock()
	})
	cond.Wait()
	t.Stop()
}

// draw is a number in [0, n) from the run's entropy.
//
//go:norace
func (c *Conn) draw(n int) int {
	return engine.Current().Source().At(shortReadKey).IntRange(0, n-1)
}

var shortReadKey = entropy.KeyOf("simnet.short-read")

//go:norace
func (c *Conn) opError(op string, err error) error {
	e := &net.OpError{Op: op, Net: c.network, Source: c.local, Addr: c.remote, Err: err}
	if op == "close" || op == "set" {
		e.Source, e.Addr = nil, c.local
	}
	return e
}

// past reports whether the deadline d is set and passed.
func past(d time.Time) bool { return !d.IsZero() && !vtime.Now().Before(d) }

var dnsKey = entropy.KeyOf("simnet.dns")

// lookupFault is the error a lookup of name fails with inside a run when
// FaultDNS fires; nil otherwise. The overlay's package net asks it before
// each lookup (DstreplayLookupHook).
func lookupFault(name string) error {
	g := engine.Current()
	if g == nil || name == "" || isLiteral(name) || !sched.Fault(FaultDNS) {
		return nil
	}
	e := &net.DNSError{Name: name}
	switch g.Source().At(dnsKey).IntRange(0, 2) {
	case 0:
		e.Err, e.IsTemporary = "server misbehaving", true
	case 1:
		e.Err, e.IsTimeout, e.IsTemporary = "i/o timeout", true, true
	default:
		e.Err, e.IsNotFound = "no such host", true
	}
	g.Log(fmt.Sprintf("simnet: a lookup of %s fails: %s", name, e.Err))
	return e
}

// isLiteral reports whether host is an IP address, which no lookup
// resolves.
func isLiteral(host string) bool {
	_, err := netip.ParseAddr(host)
	return err == nil
}

// init makes the build's package net ask lookupFault before its lookups,
// where it has the overlay's hooks.
func init() {
	if h, ok := any((*net.Resolver)(nil)).(interface{ DstreplayLookupHook(func(string) error) }); ok {
		h.DstreplayLookupHook(lookupFault)
	}
}
