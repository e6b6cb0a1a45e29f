package bank

import (
	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// Workload is the demo's test body: it runs two opposite transfers and an
// audit concurrently and checks that no money appears or disappears, with
// the buggy methods or, when fixed, their fixes. The tests explore it, and
// FuzzBuggyBank makes it a fuzz target (which libFuzzer can run).
func Workload(fixed bool) func(*schedtest.T) {
	return func(t *schedtest.T) {
		b := New(2, 100)
		transfer, audit := b.Transfer, b.Audit
		if fixed {
			transfer, audit = b.TransferOrdered, b.AuditConsistent
		}
		var wg sched.WaitGroup
		wg.Go(func() {
			if err := transfer(0, 1, 30); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if err := transfer(1, 0, 50); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if total := audit(); total != 200 {
				t.Errorf("audit saw a total of %d, want 200", total)
			}
		})
		wg.Wait()
		if total := b.AuditConsistent(); total != 200 {
			t.Errorf("final total %d, want 200", total)
		}
	}
}
