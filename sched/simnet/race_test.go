package simnet_test

import (
	"io"
	"testing"
	"time"

	"github.com/dstgo/dst/internal/testutil"
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simnet"
	"github.com/dstgo/dst/vtime"
)

var shared, sink int

// raceBodies share a variable between two goroutines that use the
// network: across two connections, which Go's network does not order (the
// race detector reports it under go test -race), and through one, which
// it does (a send before the read that gets its bytes).
var raceBodies = map[string]func(*schedtest.T){
	"across": func(st *schedtest.T) {
		l, _ := simnet.Listen("tcp", "127.0.0.1:7101")
		defer l.Close()
		sched.Go(func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				sched.Go(func() { defer c.Close(); io.Copy(io.Discard, c) })
			}
		})
		a, _ := simnet.Dial("tcp", "127.0.0.1:7101")
		b, _ := simnet.Dial("tcp", "127.0.0.1:7101")
		defer a.Close()
		defer b.Close()
		var wg sched.WaitGroup
		wg.Go(func() { shared = 1; a.Write([]byte{1}) })
		// B writes after A has, in every schedule: the clock moves only
		// when A is done. Only the network could order the two.
		wg.Go(func() { vtime.Sleep(time.Millisecond); b.Write([]byte{1}); sink = shared })
		wg.Wait()
	},
	"through": func(st *schedtest.T) {
		l, _ := simnet.Listen("tcp", "127.0.0.1:7102")
		defer l.Close()
		var wg sched.WaitGroup
		wg.Go(func() {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			io.ReadFull(c, make([]byte, 1))
			sink = shared // after the byte sent after the write
		})
		c, _ := simnet.Dial("tcp", "127.0.0.1:7102")
		shared = 1
		c.Write([]byte{1})
		wg.Wait()
		c.Close()
	},
}

// TestChildRaceEdges is the child TestRaceEdges runs.
func TestChildRaceEdges(t *testing.T) {
	testutil.RaceChild(t, schedtest.Options{Iterations: 50, Seed: 1, Strategy: "random"}, raceBodies)
}

// TestRaceEdges (under -race): the race detector sees the simulated
// network as Go's. Two goroutines that race on a variable while using
// different connections are found racing; data sent through one
// connection is ordered before what its reader does after it. Regression:
// one lock of the network's ordered every goroutine that used it after
// every other, and the race across connections passed.
func TestRaceEdges(t *testing.T) {
	testutil.RaceChildren(t, "TestChildRaceEdges", map[string]bool{"across": true, "through": false})
}
