package simnet_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simnet"
	"github.com/dstgo/dst/vtime"
)

// A scenario drives a listener and a dial to it and says what each side
// saw, in words that do not depend on timing. The same scenario runs on
// Go's network (outside a run) and on the simulated one (inside runs), and
// must say the same.
type scenario struct {
	name string
	run  func(l net.Listener, dial func() net.Conn) string
}

// kind names an error by what it is, as code checks it.
func kind(err error) string {
	var ne net.Error
	switch {
	case err == nil:
		return "ok"
	case err == io.EOF:
		return "EOF"
	case errors.Is(err, net.ErrClosed):
		return "closed"
	case errors.Is(err, syscall.ECONNRESET):
		return "reset"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.EPIPE):
		return "broken pipe"
	case errors.Is(err, syscall.EADDRINUSE):
		return "in use"
	case errors.Is(err, os.ErrDeadlineExceeded) && errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return "other: " + err.Error()
}

// both runs a and b on goroutines of their own (sched.Go: managed inside
// a run, plain outside) and joins what they say.
func both(a, b func() string) string {
	var wg sched.WaitGroup
	var ra, rb string
	wg.Add(2)
	sched.Go(func() { defer wg.Done(); ra = a() })
	sched.Go(func() { defer wg.Done(); rb = b() })
	wg.Wait()
	return "server: " + ra + " | client: " + rb
}

func accept(l net.Listener) net.Conn {
	c, err := l.Accept()
	if err != nil {
		panic(err)
	}
	return c
}

func readAll(c net.Conn) string {
	b, err := io.ReadAll(c)
	return fmt.Sprintf("%q %s", b, kind(err))
}

func readN(c net.Conn, n int) string {
	b := make([]byte, n)
	k, err := io.ReadFull(c, b)
	return fmt.Sprintf("%q %s", b[:k], kind(err))
}

func write(c net.Conn, s string) string {
	k, err := c.Write([]byte(s))
	return fmt.Sprintf("wrote %d %s", k, kind(err))
}

var scenarios = []scenario{
	{"bytes in order both ways", func(l net.Listener, dial func() net.Conn) string {
		return both(func() string {
			c := accept(l)
			defer c.Close()
			got := readN(c, 5)
			return got + "; " + write(c, "HELLO")
		}, func() string {
			c := dial()
			defer c.Close()
			return write(c, "hello") + "; " + readN(c, 5)
		})
	}},
	{"close sends the rest then EOF", func(l net.Listener, dial func() net.Conn) string {
		return both(func() string {
			c := accept(l)
			w := write(c, "bye")
			return w + "; close " + kind(c.Close())
		}, func() string {
			c := dial()
			defer c.Close()
			r := readAll(c)
			_, err := c.Read(make([]byte, 1))
			return r + "; again " + kind(err)
		})
	}},
	{"half-close: EOF one way, the other way open", func(l net.Listener, dial func() net.Conn) string {
		return both(func() string {
			c := accept(l)
			defer c.Close()
			return readAll(c) + "; " + write(c, "answer")
		}, func() string {
			c := dial()
			defer c.Close()
			w := write(c, "question")
			cw := kind(c.(interface{ CloseWrite() error }).CloseWrite())
			return w + "; closewrite " + cw + "; " + readAll(c)
		})
	}},
	{"close with unread data resets the peer", func(l net.Listener, dial func() net.Conn) string {
		sent := chans.Make[struct{}](0)
		var wg sched.WaitGroup
		wg.Add(1)
		return both(func() string {
			c := accept(l)
			sent.Recv()
			vtime.Sleep(20 * time.Millisecond) // natively, let the bytes reach the socket
			defer wg.Done()
			return "close " + kind(c.Close())
		}, func() string {
			c := dial()
			defer c.Close()
			w := write(c, "unread")
			sent.Close()
			wg.Wait()
			_, err := c.Read(make([]byte, 8))
			return w + "; read " + kind(err)
		})
	}},
	{"a read deadline times out, and a later one reads", func(l net.Listener, dial func() net.Conn) string {
		go2 := chans.Make[struct{}](0)
		return both(func() string {
			c := accept(l)
			defer c.Close()
			go2.Recv()
			return write(c, "late")
		}, func() string {
			c := dial()
			defer c.Close()
			c.SetReadDeadline(vtime.Now().Add(10 * time.Millisecond))
			_, err := c.Read(make([]byte, 4))
			first := kind(err)
			c.SetReadDeadline(time.Time{})
			go2.Close()
			return "first " + first + "; then " + readN(c, 4)
		})
	}},
	{"a past deadline wakes a blocked read", func(l net.Listener, dial func() net.Conn) string {
		return both(func() string {
			c := accept(l)
			defer c.Close()
			// Well after the client's deadline, even on a loaded
			// machine: natively, a close first reads as EOF.
			vtime.Sleep(100 * time.Millisecond)
			return "nothing sent"
		}, func() string {
			c := dial()
			defer c.Close()
			done := chans.Make[string](0)
			sched.Go(func() {
				_, err := c.Read(make([]byte, 1))
				done.Send(kind(err))
			})
			vtime.Sleep(5 * time.Millisecond)
			c.SetReadDeadline(vtime.Now().Add(-time.Second))
			return "read " + done.Recv()
		})
	}},
	{"a passed deadline comes before data and EOF", func(l net.Listener, dial func() net.Conn) string {
		sent := chans.Make[struct{}](0)
		return both(func() string {
			c := accept(l)
			w := write(c, "data")
			c.Close()
			sent.Close()
			return w
		}, func() string {
			c := dial()
			defer c.Close()
			sent.Recv()
			vtime.Sleep(20 * time.Millisecond) // natively, let the bytes and the FIN arrive
			c.SetReadDeadline(vtime.Now().Add(-time.Second))
			_, err := c.Read(make([]byte, 4))
			c.SetWriteDeadline(vtime.Now().Add(-time.Second))
			_, werr := c.Write([]byte("x"))
			c.SetDeadline(time.Time{})
			return "read " + kind(err) + "; write " + kind(werr) + "; then " + readAll(c)
		})
	}},
	{"a closed conn refuses everything", func(l net.Listener, dial func() net.Conn) string {
		return both(func() string {
			c := accept(l)
			defer c.Close()
			return readAll(c)
		}, func() string {
			c := dial()
			first := kind(c.Close())
			_, rerr := c.Read(make([]byte, 1))
			_, werr := c.Write([]byte("x"))
			return fmt.Sprintf("close %s; read %s; write %s; close %s; deadline %s",
				first, kind(rerr), kind(werr), kind(c.Close()), kind(c.SetDeadline(time.Time{})))
		})
	}},
	{"a megabyte through the window", func(l net.Listener, dial func() net.Conn) string {
		big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
		return both(func() string {
			c := accept(l)
			defer c.Close()
			b, err := io.ReadAll(c)
			return fmt.Sprintf("read %d %s equal %v", len(b), kind(err), bytes.Equal(b, big))
		}, func() string {
			c := dial()
			defer c.Close()
			k, err := c.Write(big)
			return fmt.Sprintf("wrote %d %s", k, kind(err))
		})
	}},
	{"listener: closed accept, port in use, addresses", func(l net.Listener, dial func() net.Conn) string {
		c := dial()
		s := accept(l)
		addrs := fmt.Sprintf("local=remote %v, remote=listener %v",
			str(c.LocalAddr()) == str(s.RemoteAddr()), str(c.RemoteAddr()) == str(l.Addr()))
		c.Close()
		s.Close()
		_, err := simnet.Listen(l.Addr().Network(), l.Addr().String())
		inUse := kind(err)
		l.Close()
		_, err = l.Accept()
		return fmt.Sprintf("%s; listen again %s; accept after close %s; close again %s", addrs, inUse, kind(err), kind(l.Close()))
	}},
}

// str is an address as text; "" for none (an unnamed unix socket's).
func str(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// play runs sc on a TCP listener of simnet's (Go's own outside a run).
func play(sc scenario) string { return playOn(sc, "tcp", "127.0.0.1:0") }

// playOn runs sc on a listener of simnet's at address.
func playOn(sc scenario, network, address string) string {
	l, err := simnet.Listen(network, address)
	if err != nil {
		return "listen: " + err.Error()
	}
	defer l.Close()
	dial := func() net.Conn {
		c, err := simnet.Dial(network, l.Addr().String())
		if err != nil {
			panic(err)
		}
		return c
	}
	return sc.run(l, dial)
}

// TestConformance runs every scenario on Go's network and on the simulated
// one, for 30 schedules each, over TCP and over unix sockets, and wants the
// same words from both.
func TestConformance(t *testing.T) {
	on := hooked(t)
	for _, network := range []string{"tcp", "unix"} {
		for _, sc := range scenarios {
			t.Run(network+"/"+strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) { conform(t, sc, network, true) })
		}
		for _, sc := range goTypeScenarios {
			t.Run(network+"/"+strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) { conform(t, sc, network, on) })
		}
	}
}

// conform runs sc natively, then, if simulated, in 30 schedules, over
// network.
func conform(t *testing.T, sc scenario, network string, simulated bool) {
	address := "127.0.0.1:0"
	if network == "unix" {
		address = filepath.Join(t.TempDir(), "s.sock")
	}
	want := playOn(sc, network, address)
	if strings.Contains(want, "other:") || strings.Contains(want, "listen:") {
		t.Fatalf("natively: %s", want)
	}
	t.Logf("natively: %s", want)
	if !simulated {
		t.Skip("simulated sockets are not Go's own types here")
	}
	res, err := schedtest.Explore(schedtest.Options{Seed: 11, Iterations: 30}, func(st *schedtest.T) {
		l, err := simnet.Listen(network, address)
		if err != nil {
			st.Fatal(err)
		}
		if !simnet.Simulated(l) {
			st.Fatal("simnet.Listen in a run gave a listener of Go's network")
		}
		l.Close()
		if got := playOn(sc, network, address); got != want {
			st.Errorf("simulated: %s\n     want: %s", got, want)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("%s", res.Failure)
	}
}

// TestListenAddresses: the addresses Go's net.Listen takes for a free port
// ("host:", "host:0", ":0") give a simulated listener on a port of its
// own, not one of Go's network. Regression (a helper, on echo's
// TestEchoStartTLSAndStart): "localhost:" failed to parse, ran natively,
// and its server's Accept blocked outside the scheduler.
func TestListenAddresses(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		for _, addr := range []string{"localhost:", "127.0.0.1:", ":", "localhost:0", ":0"} {
			l, err := simnet.Listen("tcp", addr)
			if err != nil {
				st.Fatalf("Listen(%q): %v", addr, err)
			}
			if !simnet.Simulated(l) {
				st.Errorf("Listen(%q) gave a listener of Go's network", addr)
			}
			if a := l.Addr().(*net.TCPAddr); a.Port == 0 {
				st.Errorf("Listen(%q) is on port 0", addr)
			}
			l.Close()
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}
