package simnet

import (
	"testing"
	"time"

	"github.com/dstgo/dst/sched/schedtest"
	"github.com/dstgo/dst/vtime"
)

// TestClogCutsEveryLink: while a node is clogged, every link to it and
// from it is cut, from every other node, until it unclogs; a link between
// two other nodes is not, and a partition of a link and a clog of its node
// hold it until the later of the two.
func TestClogCutsEveryLink(t *testing.T) {
	const a, b, c = "127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"
	res, err := schedtest.Run(schedtest.Options{Seed: 1}, func(st *schedtest.T) {
		n := current()
		now := vtime.Now()
		n.clogs.Set(a, now.Add(100*time.Millisecond))
		n.cuts.Set(link{b, a}, now.Add(300*time.Millisecond))
		for _, l := range []struct {
			from, to string
			want     time.Duration
		}{
			{testNode, a, 100 * time.Millisecond},
			{a, testNode, 100 * time.Millisecond},
			{c, a, 100 * time.Millisecond},
			{a, b, 100 * time.Millisecond},
			{b, a, 300 * time.Millisecond},
			{b, c, 0},
			{testNode, b, 0},
		} {
			heal := n.cut(l.from, l.to)
			if got := heal.Sub(now); heal.IsZero() && l.want != 0 || !heal.IsZero() && got != l.want {
				st.Errorf("%s → %s heals at %v (zero: not cut), want +%v", l.from, l.to, heal, l.want)
			}
		}
		vtime.Sleep(100 * time.Millisecond)
		if heal := n.cut(c, a); !heal.IsZero() {
			st.Errorf("%s → %s still cut at %v, after the clog", c, a, heal)
		}
		if n.clogs.Len() != 0 {
			st.Errorf("the clog is kept after it ended: %v", n.clogs)
		}
	})
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
}
