package simnet_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simnet"
	"github.com/dstgo/dst/vtime"
)

// TestFaults: each fault of the network fires when the test gives it a
// probability, with the error code that checks for it expects, and the
// failure's report names it.
func TestFaults(t *testing.T) {
	cases := []struct {
		fault, want string
	}{
		{simnet.FaultRefuse, "dial refused"},
		{simnet.FaultReset, "write reset"},
		{simnet.FaultShortRead, "short read"},
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			res, err := schedtest.Run(schedtest.Options{Seed: 3, Faults: map[string]float64{c.fault: 1}}, func(st *schedtest.T) {
				l, err := simnet.Listen("tcp", "localhost:0")
				if err != nil {
					st.Fatal(err)
				}
				defer l.Close()
				conn, err := simnet.Dial("tcp", l.Addr().String())
				if err != nil {
					st.Fatalf("dial %s", kind(err))
				}
				defer conn.Close()
				s, _ := l.Accept()
				if _, err := conn.Write([]byte("hello")); err != nil {
					st.Fatalf("write %s", kind(err))
				}
				b := make([]byte, 5)
				if n, _ := s.Read(b); n < 5 {
					st.Fatalf("short read: %d of 5", n)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure == nil {
				t.Fatalf("%s at probability 1 did not fail the run", c.fault)
			}
			if got := res.Failure.Error(); !strings.Contains(got, c.want) {
				t.Errorf("failure does not say %q:\n%s", c.want, got)
			}
			if !slices.ContainsFunc(res.Faults, func(f string) bool { return strings.HasPrefix(f, c.fault+" ") }) {
				t.Errorf("faults fired %q, want %s among them", res.Faults, c.fault)
			}
		})
	}
}

// TestFaultsOffByDefault: with no probability given, nothing fires.
func TestFaultsOffByDefault(t *testing.T) {
	res, err := schedtest.Explore(schedtest.Options{Seed: 5, Iterations: 50}, func(st *schedtest.T) {
		if got := play(scenarios[0]); !strings.HasSuffix(got, `"HELLO" ok`) {
			st.Errorf("%s", got)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}

// TestDeterministic: the same entropy gives the same run, event for event,
// for every scenario.
func TestDeterministic(t *testing.T) {
	err := schedtest.Check(schedtest.Options{Seed: 9, Iterations: 20}, func(st *schedtest.T) {
		for _, sc := range scenarios {
			play(sc)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDialAfterClose: a dial to where a listener of the run was is refused
// in the simulation, not made natively (where a real listener on the same
// port would take it); but once the run has started a process, which may
// listen there now (a peer the test gave the port it picked), it is made
// natively.
func TestDialAfterClose(t *testing.T) {
	real, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
	go func() {
		for {
			c, err := real.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("peer"))
			c.Close()
		}
	}()
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		l, err := simnet.Listen("tcp", real.Addr().String())
		if err != nil {
			st.Fatal(err)
		}
		l.Close()
		_, err = simnet.Dial("tcp", real.Addr().String())
		if got := kind(err); got != "refused" {
			st.Errorf("dial after close: %s, want refused", got)
		}
		engine.Current().ProcessStarted(1)
		c, err := simnet.Dial("tcp", real.Addr().String())
		if err != nil {
			st.Fatalf("dial after close, once the run started a process: %v", err)
		}
		defer c.Close()
		if b, err := io.ReadAll(c); string(b) != "peer" || err != nil {
			st.Errorf("read %q, %v from the native listener", b, err)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}

// TestNativeServer: a goroutine of a run that dials a server outside the
// run (started before it, on Go's network) talks to it natively, and the
// run's other goroutines go on while it waits for the answer: here the one
// that sends the request. Regression: the read kept the turn, the request
// was never sent, and the watchdog stopped the run.
func TestNativeServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	res, err := schedtest.Explore(schedtest.Options{Seed: 2, Iterations: 5}, func(st *schedtest.T) {
		c, err := simnet.Dial("tcp", l.Addr().String())
		if err != nil {
			st.Fatal(err)
		}
		defer c.Close()
		got := chans.Make[string](1)
		sched.Go(func() {
			b := make([]byte, 4)
			_, err := io.ReadFull(c, b)
			got.Send(string(b) + " " + kind(err))
		})
		sched.Yield()
		if _, err := c.Write([]byte("ping")); err != nil {
			st.Fatal(err)
		}
		if g := got.Recv(); g != "ping ok" {
			st.Errorf("read %q, want the echo", g)
		}
		c.SetReadDeadline(vtime.Now().Add(5 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); kind(err) != "timeout" {
			st.Errorf("a read past its deadline: %s, want timeout", kind(err))
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}

// TestDelay: with FaultDelay, what is written arrives late, by at most the
// bound, in order, and the FIN after it; the delays differ from schedule
// to schedule.
func TestDelay(t *testing.T) {
	const bound = 40 * time.Millisecond
	seen := map[time.Duration]bool{}
	res, err := schedtest.Explore(schedtest.Options{Seed: 4, Iterations: 40,
		Faults: map[string]float64{simnet.FaultDelay: 1}, FaultBounds: map[string]time.Duration{simnet.FaultDelay: bound}},
		func(st *schedtest.T) {
			l, err := simnet.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				st.Fatal(err)
			}
			defer l.Close()
			c, err := simnet.Dial("tcp", l.Addr().String())
			if err != nil {
				st.Fatal(err)
			}
			s, _ := l.Accept()
			defer s.Close()
			start := vtime.Now()
			for _, m := range []string{"a", "b", "c"} {
				c.Write([]byte(m))
			}
			c.Close()
			got, err := io.ReadAll(s)
			took := vtime.Since(start)
			seen[took] = true
			if string(got) != "abc" || err != nil {
				st.Errorf("read %q, %v: want \"abc\" then EOF", got, err)
			}
			if took <= 0 || took > bound {
				st.Errorf("the bytes took %v to arrive, want more than 0 and at most %v", took, bound)
			}
		})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if len(seen) < 10 {
		t.Errorf("%d distinct delays in 40 schedules, want them drawn", len(seen))
	}
}

// TestPartitionDial: a dial across a partition waits for it to heal, or
// fails when its deadline, or Linux's SYN retries (127s), come first, with
// the error net's dial gives.
func TestPartitionDial(t *testing.T) {
	cases := []struct {
		name    string
		bound   time.Duration
		timeout time.Duration
		want    string
		giveUp  time.Duration
	}{
		{"timeout", 2 * time.Second, 300 * time.Millisecond, "timeout", 300 * time.Millisecond},
		{"syn retries", 400 * time.Second, 0, "timed out", 127 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outcomes := map[string]bool{}
			res, err := schedtest.Explore(schedtest.Options{Seed: 8, Iterations: 40,
				Faults: map[string]float64{simnet.FaultPartition: 1}, FaultBounds: map[string]time.Duration{simnet.FaultPartition: c.bound}},
				func(st *schedtest.T) {
					l, err := simnet.Listen("tcp", "127.0.0.1:0")
					if err != nil {
						st.Fatal(err)
					}
					defer l.Close()
					start := vtime.Now()
					conn, err := simnet.DialTimeout("tcp", l.Addr().String(), c.timeout)
					took := vtime.Since(start)
					got := kind(err)
					var ne net.Error
					switch {
					case errors.Is(err, syscall.ETIMEDOUT):
						got = "timed out"
					case errors.As(err, &ne) && ne.Timeout():
						got = "timeout" // net's dial timeout is not os.ErrDeadlineExceeded
					}
					outcomes[got] = true
					switch {
					case err == nil:
						conn.Close()
						if took <= 0 || took >= c.giveUp {
							st.Errorf("dial across a partition connected after %v, want after it healed, before %v", took, c.giveUp)
						}
					case got != c.want:
						st.Errorf("dial across a partition: %v, want %s", err, c.want)
					case took != c.giveUp:
						st.Errorf("dial gave up after %v, want %v", took, c.giveUp)
					}
					if err != nil && c.want == "timeout" && !errors.Is(err, context.DeadlineExceeded) {
						st.Errorf("dial timeout %v is not context.DeadlineExceeded, as net's is", err)
					}
				})
			if err != nil || res.Failure != nil {
				t.Fatalf("%v %v", err, res.Failure)
			}
			if !outcomes["ok"] || !outcomes[c.want] {
				t.Errorf("outcomes %v: want both connected and %s", outcomes, c.want)
			}
		})
	}
}

// TestPartitionNodes: a partition is between nodes, named in the run's
// log: a listener's address, to which the goroutines that accept from it,
// and those they start, belong; and the test's goroutines. Data written
// across it arrives when it heals, intact.
func TestPartitionNodes(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 1, Faults: map[string]float64{simnet.FaultPartition: 1}}, func(st *schedtest.T) {
		a, _ := simnet.Listen("tcp", "127.0.0.1:7001")
		b, _ := simnet.Listen("tcp", "127.0.0.1:7002")
		defer a.Close()
		defer b.Close()
		done := chans.Make[string](1)
		sched.Go(func() { // node A's server: a handler it starts calls node B
			s, err := a.Accept()
			if err != nil {
				return
			}
			sched.Go(func() {
				defer s.Close()
				c, err := simnet.Dial("tcp", "127.0.0.1:7002")
				if err != nil {
					done.Send(err.Error())
					return
				}
				defer c.Close()
				c.Write([]byte("from A"))
				c.Close()
			})
		})
		sched.Go(func() { // node B's server
			s, err := b.Accept()
			if err != nil {
				return
			}
			got, _ := io.ReadAll(s)
			done.Send(string(got))
		})
		c, err := simnet.Dial("tcp", "127.0.0.1:7001")
		if err != nil {
			st.Fatal(err)
		}
		defer c.Close()
		if got := done.Recv(); got != "from A" {
			st.Errorf("B read %q, want what A sent", got)
		}
		st.Log("ok")
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	logs := strings.Join(res.Logs, "\n")
	for _, want := range []string{"the test", "127.0.0.1:7001", "127.0.0.1:7002"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log does not name node %s:\n%s", want, logs)
		}
	}
	if !strings.Contains(logs, "simnet: partition: 127.0.0.1:7001 and 127.0.0.1:7002") &&
		!strings.Contains(logs, "simnet: partition: 127.0.0.1:7002 and 127.0.0.1:7001") &&
		!regexp.MustCompile(`127\.0\.0\.1:700[12] cannot reach 127\.0\.0\.1:700[12]`).MatchString(logs) {
		t.Errorf("no partition between A's handler and B: the handler is not A's:\n%s", logs)
	}
}

// TestClog: a clogged node neither sends nor receives, on any link, until
// it unclogs: the dial that clogged it waits for that, and so does a dial
// to it from another node, and what it sends then; links that do not touch
// it are not slowed. The run's log names the node and the time.
func TestClog(t *testing.T) {
	const bound = 40 * time.Millisecond
	res, err := schedtest.Run(schedtest.Options{Seed: 3, Faults: map[string]float64{simnet.FaultClog: 1},
		FaultBounds: map[string]time.Duration{simnet.FaultClog: bound}}, func(st *schedtest.T) {
		a, _ := simnet.Listen("tcp", "127.0.0.1:7001")
		b, _ := simnet.Listen("tcp", "127.0.0.1:7002")
		defer a.Close()
		defer b.Close()
		start := vtime.Now()
		c, err := simnet.Dial("tcp", "127.0.0.1:7001") // clogs A
		if err != nil {
			st.Fatal(err)
		}
		defer c.Close()
		sched.StopFaults()
		clogged := vtime.Since(start)
		if clogged <= 0 || clogged > bound {
			st.Errorf("the dial that clogged A took %v, want the clog's time, within (0, %v]", clogged, bound)
		}
		// Now nothing is clogged, and B is reached at once.
		t0 := vtime.Now()
		cb, err := simnet.Dial("tcp", "127.0.0.1:7002")
		if err != nil {
			st.Fatal(err)
		}
		cb.Close()
		if d := vtime.Since(t0); d != 0 {
			st.Errorf("a dial to B after A's clog took %v", d)
		}
		st.Log("ok")
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if logs := strings.Join(res.Logs, "\n"); !regexp.MustCompile(`simnet: clog: 127\.0\.0\.1:7001 stops sending and receiving for \d`).MatchString(logs) {
		t.Errorf("the log does not say A clogged:\n%s", logs)
	}
}

// TestDNS: with FaultDNS, a dial of a name the simulation resolves
// ("localhost") fails with a *net.DNSError in a dial's *net.OpError, drawn
// among a misbehaving server, a timeout and a name not found, and a dial
// of a literal address never does; with the hooks, the Resolver's own
// lookups (LookupHost, LookupIP, LookupCNAME) meet it too. With the fault
// off, the name resolves.
func TestDNS(t *testing.T) {
	on := hooked(t)
	kinds := map[string]bool{}
	res, err := schedtest.Explore(schedtest.Options{Seed: 3, Iterations: 30, Faults: map[string]float64{simnet.FaultDNS: 1}}, func(st *schedtest.T) {
		l, err := simnet.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			st.Fatal(err)
		}
		defer l.Close()
		port := l.Addr().(*net.TCPAddr).Port
		_, err = simnet.Dial("tcp", fmt.Sprintf("localhost:%d", port))
		var op *net.OpError
		var dns *net.DNSError
		if !errors.As(err, &op) || op.Op != "dial" || !errors.As(err, &dns) || dns.Name != "localhost" {
			st.Fatalf("a dial of localhost with net.dns: %v, want a dial's DNS error", err)
		}
		kinds[fmt.Sprintf("temporary=%v timeout=%v notfound=%v", dns.IsTemporary, dns.IsTimeout, dns.IsNotFound)] = true
		c, err := simnet.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			st.Fatalf("a dial of a literal address with net.dns: %v", err)
		}
		c.Close()
		if !on {
			return
		}
		r := net.DefaultResolver
		_, err1 := r.LookupHost(context.Background(), "localhost")
		_, err2 := r.LookupIP(context.Background(), "ip4", "localhost")
		_, err3 := r.LookupCNAME(context.Background(), "localhost")
		for i, err := range []error{err1, err2, err3} {
			if !errors.As(err, &dns) {
				st.Errorf("lookup %d with net.dns and the hooks: %v, want a DNS error", i+1, err)
			}
		}
		if addrs, err := r.LookupHost(context.Background(), "127.0.0.1"); err != nil || len(addrs) != 1 {
			st.Errorf("a lookup of a literal address with net.dns: %v, %v", addrs, err)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if len(kinds) != 3 {
		t.Errorf("30 schedules drew %d kinds of DNS failure, want all 3: %v", len(kinds), kinds)
	}
	res, err = schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		l, err := simnet.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			st.Fatal(err)
		}
		defer l.Close()
		port := l.Addr().(*net.TCPAddr).Port
		c, err := simnet.Dial("tcp", fmt.Sprintf("localhost:%d", port))
		if err != nil {
			st.Fatalf("a dial of localhost, the fault off: %v", err)
		}
		c.Close()
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}
