package engine_test

import (
	"testing"
	"unsafe"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/sched/schedtest"
)

var shadowed [64]byte

// TestShadowTableStartsEmpty: a run's table of what stands for native
// objects is kept for later runs once the run is over (shadowTables), and
// a later run finds nothing in it of an earlier one's, though the key is
// the same address.
func TestShadowTableStartsEmpty(t *testing.T) {
	for i := range 20 {
		res, err := schedtest.Run(schedtest.Options{Seed: uint64(i) + 1}, func(st *schedtest.T) {
			g := engine.Current()
			for j := range shadowed {
				key := unsafe.Pointer(&shadowed[j])
				if got := g.Shadow(key); got != nil {
					st.Fatalf("run %d found %v at a key of an earlier run's", i, got)
				}
				g.SetShadow(key, &shadowed[j], i)
				if got := g.Shadow(key); got != i {
					st.Fatalf("run %d: the key it set holds %v", i, got)
				}
			}
		})
		if err != nil || res.Failure != nil {
			t.Fatalf("%v %v", err, res.Failure)
		}
	}
}
