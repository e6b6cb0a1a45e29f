package simnet_test

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simnet"
	"github.com/dstgo/dst/vtime"
)

// hooked reports whether this test binary's package net has the hooks
// dstreplay test adds where it simulates the network
// (internal/rewrite/netsim.go), so that simulated sockets are Go's own
// types. internal/rewrite's TestNetHooks runs these tests with them, and
// sets DST_NET_HOOKED=1: then they must be there.
func hooked(t *testing.T) bool {
	_, ok := any((*net.TCPConn)(nil)).(interface{ DstreplaySimulated() bool })
	if !ok && os.Getenv("DST_NET_HOOKED") == "1" {
		t.Fatal("DST_NET_HOOKED=1, but package net has no hooks")
	}
	return ok
}

// goTypeScenarios need Go's own types: they run natively always, and
// simulated where the hooks are.
var goTypeScenarios = []scenario{
	{"Go's types: AcceptTCP, socket options, writev, a copy back, CloseWrite", func(l net.Listener, dial func() net.Conn) string {
		return both(func() string {
			var c interface {
				net.Conn
				CloseWrite() error
			}
			var opts []error
			switch l := l.(type) {
			case *net.TCPListener:
				tc, err := l.AcceptTCP()
				if err != nil {
					return "accept " + kind(err)
				}
				opts = append(opts, tc.SetKeepAlive(true), tc.SetKeepAlivePeriod(time.Minute), tc.SetNoDelay(false),
					tc.SetLinger(-1), tc.SetReadBuffer(1<<16), tc.SetWriteBuffer(1<<16))
				c = tc
			case *net.UnixListener:
				uc, err := l.AcceptUnix()
				if err != nil {
					return "accept " + kind(err)
				}
				opts = append(opts, uc.SetReadBuffer(1<<16), uc.SetWriteBuffer(1<<16))
				c = uc
			default:
				return "not Go's listener"
			}
			defer c.Close()
			s := "options"
			for _, err := range opts {
				s += " " + kind(err)
			}
			n, err := io.Copy(c, c) // an echo to EOF: a TCPConn's WriteTo and ReadFrom, splice(2) natively
			return s + "; echoed " + strings.Repeat("x", int(n)) + " " + kind(err) + "; closewrite " + kind(c.CloseWrite())
		}, func() string {
			c := dial()
			defer c.Close()
			switch c.(type) {
			case *net.TCPConn, *net.UnixConn:
			default:
				return "not Go's connection"
			}
			bufs := net.Buffers{[]byte("ab"), []byte("c"), []byte("de")}
			n, err := bufs.WriteTo(c) // writev(2) natively
			cw := kind(c.(interface{ CloseWrite() error }).CloseWrite())
			return "writev " + strings.Repeat("x", int(n)) + " " + kind(err) + "; closewrite " + cw + "; " + readAll(c)
		})
	}},
	{"Go's types: an accept deadline", func(l net.Listener, dial func() net.Conn) string {
		d, ok := l.(interface{ SetDeadline(time.Time) error })
		if !ok {
			return "no SetDeadline"
		}
		set := kind(d.SetDeadline(vtime.Now().Add(20 * time.Millisecond)))
		_, err := l.Accept()
		again := kind(d.SetDeadline(time.Time{}))
		l.Close()
		return "set " + set + "; accept " + kind(err) + "; cleared " + again + "; after close " + kind(d.SetDeadline(time.Time{}))
	}},
	{"Go's types: what the errors say", func(l net.Listener, dial func() net.Conn) string {
		return both(func() string {
			c := accept(l)
			defer c.Close()
			return readAll(c)
		}, func() string {
			c := dial()
			local, remote := c.LocalAddr().String(), c.RemoteAddr().String()
			c.Close()
			said := func(err error) string {
				if err == nil {
					return "nil"
				}
				s := strings.ReplaceAll(err.Error(), remote, "REMOTE")
				if local != "" {
					s = strings.ReplaceAll(s, local, "LOCAL")
				}
				return s
			}
			_, rerr := c.Read(make([]byte, 1))
			_, werr := c.Write([]byte("x"))
			return said(rerr) + "; " + said(werr) + "; " + said(c.Close()) + "; " + said(c.SetDeadline(time.Time{}))
		})
	}},
}

// TestGoTypes: with the hooks, a simulated listener and its connections
// are Go's own types, on the simulated network (simnet.Simulated); what
// needs a file descriptor says it has none. Without them, they are
// simnet's.
func TestGoTypes(t *testing.T) {
	on := hooked(t)
	for _, network := range []string{"tcp", "unix"} {
		address := "127.0.0.1:0"
		if network == "unix" {
			address = filepath.Join(t.TempDir(), "s.sock")
		}
		res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
			l, err := simnet.Listen(network, address)
			if err != nil {
				st.Fatal(err)
			}
			defer l.Close()
			c, err := simnet.Dial(network, l.Addr().String())
			if err != nil {
				st.Fatal(err)
			}
			defer c.Close()
			s, err := l.Accept()
			if err != nil {
				st.Fatal(err)
			}
			defer s.Close()
			for _, v := range []any{l, c, s} {
				if !simnet.Simulated(v) {
					st.Errorf("%T is not on the simulated network", v)
				}
				goType := false
				switch v.(type) {
				case *net.TCPListener, *net.UnixListener, *net.TCPConn, *net.UnixConn:
					goType = true
				}
				if goType != on {
					st.Errorf("%T: Go's own type %v, want %v", v, goType, on)
				}
			}
			if !on {
				return
			}
			type filer interface{ File() (*os.File, error) }
			for _, v := range []any{l, c} {
				if _, err := v.(filer).File(); err == nil || !strings.Contains(err.Error(), "has no file descriptor") {
					st.Errorf("%T's File: %v, want no file descriptor", v, err)
				}
				// Socket options through the raw connection change
				// nothing, and succeed (grpc sets TCP_USER_TIMEOUT so).
				rc := rawConn(st, v)
				var opt error
				if err := rc.Control(func(fd uintptr) {
					opt = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1<<16)
					if _, tcp := v.(*net.TCPConn); tcp && opt == nil {
						opt = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, 0x12 /* TCP_USER_TIMEOUT */, 20000)
					}
				}); err != nil || opt != nil {
					st.Errorf("%T: a socket option through SyscallConn: %v, %v", v, err, opt)
				}
			}
			if err := rawConn(st, l).Read(func(uintptr) bool { return true }); err == nil || !strings.Contains(err.Error(), "has no file descriptor") {
				st.Errorf("a listener's raw read: %v, want no file descriptor", err)
			}
			// Raw reads and writes of a connection (grpc reads every
			// connection so): a read with a buffer smaller than what came
			// leaves the rest to the next read, raw or not; what a raw
			// write writes arrives; a raw read at the end reads 0 bytes.
			raw := func(rc syscall.RawConn, write bool, b []byte) (n int, err error) {
				do := func(fd uintptr) bool {
					if write {
						n, err = syscall.Write(int(fd), b)
					} else {
						n, err = syscall.Read(int(fd), b)
					}
					return err != syscall.EAGAIN
				}
				if write {
					return n, errors.Join(rc.Write(do), err)
				}
				return n, errors.Join(rc.Read(do), err)
			}
			sc := rawConn(st, s)
			c.Write([]byte("raw bytes"))
			two := make([]byte, 2)
			if n, err := raw(sc, false, two); n != 2 || err != nil || string(two) != "ra" {
				st.Errorf("a raw read of 2: %d %q %v", n, two, err)
			}
			rest := make([]byte, 16)
			if n, err := s.Read(rest); err != nil || string(rest[:n]) != "w bytes" {
				st.Errorf("the read after a raw read: %q %v, want the rest", rest[:n], err)
			}
			if n, err := raw(sc, true, []byte("written raw")); n != 11 || err != nil {
				st.Errorf("a raw write: %d %v", n, err)
			}
			if n, err := io.ReadFull(c, rest[:11]); err != nil || string(rest[:n]) != "written raw" {
				st.Errorf("what a raw write wrote: %q %v", rest[:n], err)
			}
			// A copy between a simulated connection and a file takes
			// the generic path, both ways (os's zero-copy paths ask for
			// the socket's descriptor).
			f, err := os.CreateTemp(st.TempDir(), "copy")
			if err != nil {
				st.Fatal(err)
			}
			defer f.Close()
			f.WriteString("file to socket")
			f.Seek(0, io.SeekStart)
			if n, err := io.Copy(c, f); n != 14 || err != nil {
				st.Errorf("file to socket: %d %v", n, err)
			}
			c.(interface{ CloseWrite() error }).CloseWrite()
			g, err := os.Create(filepath.Join(st.TempDir(), "out"))
			if err != nil {
				st.Fatal(err)
			}
			defer g.Close()
			if n, err := io.Copy(g, s); n != 14 || err != nil {
				st.Errorf("socket to file: %d %v", n, err)
			}
			if n, err := raw(sc, false, rest); n != 0 || err != nil {
				st.Errorf("a raw read at the end: %d %v, want 0 bytes", n, err)
			}
		})
		if err != nil || res.Failure != nil {
			t.Fatalf("%s: %v %v", network, err, res.Failure)
		}
	}
	if !on {
		t.Log("package net has no hooks here: simnet's own types")
	}
}

// Outside a run, Simulated is false for Go's own sockets.
func TestSimulatedOutsideARun(t *testing.T) {
	l, err := simnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if simnet.Simulated(l) {
		t.Error("a listener of Go's network is simulated")
	}
	if simnet.Simulated(errors.New("x")) {
		t.Error("an error is simulated")
	}
}

// TestAssertingSimnetTypesIsALimit: where simulated sockets are simnet's
// own types (no hooks), code that asserts Go's panics, and the report says
// that this is the tool's limit, not the code's bug.
func TestAssertingSimnetTypesIsALimit(t *testing.T) {
	if hooked(t) {
		t.Skip("simulated sockets are Go's own types here")
	}
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		l, err := simnet.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			st.Fatal(err)
		}
		defer l.Close()
		_ = l.(*net.TCPListener)
	})
	if err != nil || res.Failure == nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if msg := res.Failure.Error(); !strings.Contains(msg, "is *simnet.listener, not *net.TCPListener") || !strings.Contains(msg, "a limit of the tool") {
		t.Errorf("the report:\n%s", msg)
	}
}

// rawConn is v's syscall.RawConn.
func rawConn(st *schedtest.T, v any) syscall.RawConn {
	rc, err := v.(syscall.Conn).SyscallConn()
	if err != nil {
		st.Fatalf("%T's SyscallConn: %v", v, err)
	}
	return rc
}
