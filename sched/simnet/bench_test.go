package simnet_test

import (
	"io"
	"net"
	"testing"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simnet"
)

// echo makes rounds request/response round trips of 64 bytes between a
// client and a server goroutine over a listener of simnet's (Go's own
// loopback TCP outside a run).
func echo(b *testing.B, rounds int) {
	l, err := simnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	var wg sched.WaitGroup
	wg.Add(1)
	sched.Go(func() {
		defer wg.Done()
		c, err := l.Accept()
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close()
		io.Copy(c, c)
	})
	c, err := simnet.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	msg, got := make([]byte, 64), make([]byte, 64)
	for range rounds {
		if _, err := c.Write(msg); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, got); err != nil {
			b.Fatal(err)
		}
	}
	c.Close()
	wg.Wait()
}

// BenchmarkRoundTrip: a 64-byte request and its echo, over loopback TCP in
// plain Go (the baseline) and over the simulated network inside one run
// (1,000 round trips a run, so that the run's own cost is spread out).
// ns/op is per round trip in both.
func BenchmarkRoundTrip(b *testing.B) {
	const perRun = 1000
	b.Run("loopback", func(b *testing.B) {
		echo(b, b.N)
	})
	b.Run("simulated", func(b *testing.B) {
		runs := (b.N + perRun - 1) / perRun
		res, err := schedtest.Explore(schedtest.Options{Seed: 1, Iterations: runs}, func(*schedtest.T) { echo(b, perRun) })
		if err != nil || res.Failure != nil {
			b.Fatalf("%v %v", err, res.Failure)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(runs*perRun), "ns/roundtrip")
	})
}

var _ net.Conn = (*simnet.Conn)(nil)
