package simnet_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/sched/simnet"
	"github.com/dstgo/dst/trace"
)

// TestTraceMessages: a traced run records what each end sent and read as
// I/O events on the direction's object, named by its addresses and nodes:
// each byte read was sent before, at its offset, on the same direction,
// and read no earlier than it arrived; the FIN is a Close at the end of
// what was sent.
func TestTraceMessages(t *testing.T) {
	res, err := schedtest.Run(schedtest.Options{Seed: 2, Record: true,
		Faults: map[string]float64{simnet.FaultDelay: 1}}, func(st *schedtest.T) {
		l, err := simnet.Listen("tcp", "127.0.0.1:8080")
		if err != nil {
			st.Fatal(err)
		}
		defer l.Close()
		var wg sched.WaitGroup
		var got string
		wg.Add(1)
		sched.Go(func() {
			defer wg.Done()
			s, err := l.Accept()
			if err != nil {
				got = err.Error()
				return
			}
			b, _ := io.ReadAll(s)
			s.Write([]byte("ok"))
			s.Close()
			got = string(b)
		})
		c, err := simnet.Dial("tcp", "127.0.0.1:8080")
		if err != nil {
			st.Fatal(err)
		}
		c.Write([]byte("hello, "))
		c.Write([]byte("world"))
		c.(interface{ CloseWrite() error }).CloseWrite()
		io.ReadAll(c)
		c.Close()
		wg.Wait()
		if got != "hello, world" {
			st.Errorf("the server read %q", got)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	evs, err := res.Trace.Events()
	if err != nil {
		t.Fatal(err)
	}
	labels := map[int32]string{}
	type sent struct {
		at, n  int64
		arrive int64
	}
	sends := map[int32][]sent{}
	var recvd, fins, delayed int64
	for _, e := range evs {
		switch {
		case e.Kind == trace.KindObject:
			labels[e.Obj] = e.Text
		case e.Kind != trace.KindIO:
		case trace.OpName(e.Op) == "Send":
			sends[e.Obj] = append(sends[e.Obj], sent{e.Arg, e.N, e.Time + e.Dur})
			if e.Dur > 0 {
				delayed++
			}
		case trace.OpName(e.Op) == "Recv":
			recvd += e.N
			covered := int64(0)
			for _, s := range sends[e.Obj] {
				if s.at < e.Arg+e.N && e.Arg < s.at+s.n {
					covered += min(s.at+s.n, e.Arg+e.N) - max(s.at, e.Arg)
					if e.Time < s.arrive {
						t.Errorf("bytes %d to %d of %s read at %v, before they arrived at %v", e.Arg, e.Arg+e.N, labels[e.Obj], time.Duration(e.Time), time.Duration(s.arrive))
					}
				}
			}
			if covered != e.N {
				t.Errorf("a read of %d bytes at %d on %s: %d of them were sent", e.N, e.Arg, labels[e.Obj], covered)
			}
		case trace.OpName(e.Op) == "Close":
			fins++
			if ss := sends[e.Obj]; len(ss) == 0 || e.Arg != ss[len(ss)-1].at+ss[len(ss)-1].n {
				t.Errorf("a FIN at %d on %s, which sent %v", e.Arg, labels[e.Obj], ss)
			}
		}
	}
	if recvd != int64(len("hello, world")+len("ok")) || fins != 2 || delayed == 0 {
		t.Errorf("%d bytes read, %d FINs, %d delayed sends; want 14, 2 and some", recvd, fins, delayed)
	}
	var named []string
	for obj := range sends {
		named = append(named, labels[obj])
	}
	joined := strings.Join(named, "\n")
	if !strings.Contains(joined, "→ 127.0.0.1:8080 (the test → 127.0.0.1:8080)") || !strings.Contains(joined, "tcp 127.0.0.1:8080 → ") {
		t.Errorf("the directions are named %q", named)
	}
}
