package simnet_test

import (
	"fmt"
	"io"
	"time"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simnet"
	"github.com/dstgo/dst/vtime"
)

// A server and a client on the run's simulated network, with every write
// delayed by up to 50ms of virtual time: the bytes arrive late, in order,
// and then the FIN.
func Example() {
	opts := schedtest.Options{Seed: 1,
		Faults:      map[string]float64{simnet.FaultDelay: 1},
		FaultBounds: map[string]time.Duration{simnet.FaultDelay: 50 * time.Millisecond}}
	schedtest.Run(opts, func(t *schedtest.T) {
		l, err := simnet.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		sched.Go(func() {
			c, err := simnet.Dial("tcp", l.Addr().String())
			if err != nil {
				return
			}
			defer c.Close()
			for _, m := range []string{"a", "b", "c"} {
				c.Write([]byte(m))
			}
		})
		s, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		start := vtime.Now()
		got, err := io.ReadAll(s)
		took := vtime.Since(start)
		fmt.Printf("%s at %s, %v, late: %v\n", got, l.Addr(), err, took > 0 && took <= 50*time.Millisecond)
	})
	// Output:
	// abc at 127.0.0.1:32768, <nil>, late: true
}
