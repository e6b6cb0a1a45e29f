package simnet_test

import (
	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/vtime"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simnet"
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
// port would take it).
func TestDialAfterClose(t *testing.T) {
	real, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close()
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
