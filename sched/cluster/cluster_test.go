package cluster_test

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

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/sched"
	satomic "github.com/dstgo/dst/sched/atomic"
	"github.com/dstgo/dst/sched/cluster"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simdisk"
	"github.com/dstgo/dst/sched/simnet"
	"github.com/dstgo/dst/vtime"
)

// echo is a node's service: a server on addr that answers each connection
// with what it read, and a loop that counts its ticks, both stopped by
// the stop it returns.
type echo struct {
	addr   string
	ticks  satomic.Int64 // the loop's, read by the test
	starts int
}

func (e *echo) start(string) (func(), error) {
	e.starts++
	l, err := simnet.Listen("tcp", e.addr)
	if err != nil {
		return nil, err
	}
	var quit satomic.Bool
	var wg sched.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				b := make([]byte, 64)
				n, _ := c.Read(b)
				c.Write(b[:n])
			})
		}
	})
	wg.Go(func() {
		for !quit.Load() {
			vtime.Sleep(10 * time.Millisecond)
			e.ticks.Add(1)
		}
	})
	return func() { l.Close(); quit.Store(true); wg.Wait() }, nil
}

// ask sends s to addr and returns the answer.
func ask(addr, s string) (string, error) {
	c, err := simnet.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := c.Write([]byte(s)); err != nil {
		return "", err
	}
	b, err := io.ReadAll(c)
	return string(b), err
}

// TestCrashAndRestart: a crash ends the node's goroutines where they are
// (its loop stops counting, with no stop called), refuses dials to it and
// closes its connections; a restart runs its StartFunc again, on the same
// address. Closing the cluster stops the node, and the run passes: the
// crashed goroutines are not a leak.
func TestCrashAndRestart(t *testing.T) {
	res, err := schedtest.Explore(schedtest.Options{Seed: 1, Iterations: 50}, func(st *schedtest.T) {
		e := &echo{addr: "127.0.0.1:7001"}
		c := cluster.New()
		defer c.Close()
		n, err := c.Add("a", "", e.start)
		if err != nil {
			st.Fatal(err)
		}
		if got, err := ask(e.addr, "ping"); got != "ping" {
			st.Fatalf("before the crash: %q, %v", got, err)
		}
		held, err := simnet.Dial("tcp", e.addr) // accepted, its handler reading
		if err != nil {
			st.Fatal(err)
		}
		vtime.Sleep(25 * time.Millisecond)
		if err := n.Crash(); err != nil {
			st.Fatal(err)
		}
		ticks := e.ticks.Load()
		vtime.Sleep(100 * time.Millisecond)
		if more := e.ticks.Load() - ticks; more != 0 || n.Up() {
			st.Errorf("after the crash the loop ticked %d more times; up: %v", more, n.Up())
		}
		if _, err := held.Read(make([]byte, 1)); err != io.EOF {
			st.Errorf("a connection to the crashed node reads %v, want EOF", err)
		}
		if _, err := simnet.Dial("tcp", e.addr); !errors.Is(err, syscall.ECONNREFUSED) {
			st.Errorf("a dial to the crashed node: %v, want ECONNREFUSED", err)
		}
		if err := n.Restart(); err != nil {
			st.Fatal(err)
		}
		if got, err := ask(e.addr, "again"); got != "again" || e.starts != 2 || n.Crashes() != 1 {
			st.Errorf("after the restart: %q, %v; %d starts, %d crashes", got, err, e.starts, n.Crashes())
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}

// TestCrashLosesWhatWasNotSynced: the node's files keep what it synced,
// and at most a part of what it wrote after.
func TestCrashLosesWhatWasNotSynced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	seen := map[int]bool{}
	res, err := schedtest.Explore(schedtest.Options{Seed: 2, Iterations: 40}, func(st *schedtest.T) {
		os.Remove(path)
		c := cluster.New()
		defer c.Close()
		wrote := chans.Make[struct{}](1)
		n, err := c.Add("db", dir, func(dir string) (func(), error) {
			f, err := os.Create(path)
			if err != nil {
				return nil, err
			}
			sched.Go(func() {
				simdisk.WriteString(f, "synced;")
				simdisk.Sync(f)
				simdisk.WriteString(f, "not yet")
				wrote.Send(struct{}{})
				chans.Make[int](0).Recv() // until the crash
			})
			return nil, nil
		})
		if err != nil {
			st.Fatal(err)
		}
		wrote.Recv()
		n.Crash()
		b, _ := os.ReadFile(path)
		if !strings.HasPrefix(string(b), "synced;") || !strings.HasPrefix("synced;not yet", string(b)) {
			st.Errorf("after the crash the file holds %q", b)
		}
		seen[len(b)] = true
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if len(seen) < 3 {
		t.Errorf("the crash kept %v bytes over 40 schedules: want a part of the unsynced write drawn", seen)
	}
}

// TestFaultCrash: with FaultCrash given a probability, a node crashes at
// one of its crash points and comes back after a downtime within the
// bound; the run's log says so, and the node's service answers again.
func TestFaultCrash(t *testing.T) {
	const bound = 200 * time.Millisecond
	res, err := schedtest.Run(schedtest.Options{Seed: 4, Faults: map[string]float64{cluster.FaultCrash: 1},
		FaultBounds: map[string]time.Duration{cluster.FaultCrash: bound}}, func(st *schedtest.T) {
		e := &echo{addr: "127.0.0.1:7002"}
		c := cluster.New()
		defer c.Close()
		n, err := c.Add("a", "", e.start)
		if err != nil {
			st.Fatal(err)
		}
		// The echo's write is a crash point, and the fault always fires:
		// the node crashes before it answers.
		got, _ := ask(e.addr, "ping")
		if got != "" || n.Up() || n.Crashes() != 1 {
			st.Errorf("the node answered %q; up: %v, %d crashes", got, n.Up(), n.Crashes())
		}
		sched.StopFaults()
		start := vtime.Now()
		for !n.Up() {
			vtime.Sleep(time.Millisecond)
		}
		if d := vtime.Since(start); d > bound {
			st.Errorf("the node was down for %v, past the bound %v", d, bound)
		}
		if got, err := ask(e.addr, "pong"); got != "pong" {
			st.Errorf("after its restart the node answered %q, %v", got, err)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	if logs := strings.Join(res.Logs, "\n"); !strings.Contains(logs, "cluster: node a crashes, and restarts after ") {
		t.Errorf("the log does not say the node crashed:\n%s", logs)
	}
}

// TestOutsideARun: Add calls the StartFunc, and a crash is an error.
func TestOutsideARun(t *testing.T) {
	c := cluster.New()
	defer c.Close()
	started := false
	n, err := c.Add("a", "", func(string) (func(), error) { started = true; return nil, nil })
	if err != nil || !started || !n.Up() {
		t.Fatalf("Add: %v; started %v", err, started)
	}
	if err := n.Crash(); err == nil || !strings.Contains(err.Error(), "outside a run") {
		t.Errorf("Crash outside a run: %v", err)
	}
	if _, err := c.Add("a", "", nil); err == nil {
		t.Error("a second node named a was added")
	}
	var _ net.Conn // the package's services use net's types
}
