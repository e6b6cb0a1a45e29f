package bugs

import (
	"sync"

	"github.com/dstgo/dst/sched"
	"github.com/dstgo/dst/sched/schedtest"
)

// A ledger moves money between accounts, each guarded by its own mutex.
// transfer locks the source account, then the destination: two transfers in
// opposite directions can each hold one lock and wait for the other (the
// AB-BA deadlock of the studies). The fixed twin always locks the account
// with the lower id first.
type paAccount struct {
	mu      sched.Mutex
	id      int
	balance int
}

func paTransferBuggy(from, to *paAccount, amount int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	from.balance -= amount
	to.balance += amount
}

func paTransferFixed(from, to *paAccount, amount int) {
	first, second := from, to
	if second.id < first.id {
		first, second = second, first
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	second.mu.Lock()
	defer second.mu.Unlock()
	from.balance -= amount
	to.balance += amount
}

func init() {
	run := func(transfer func(from, to *paAccount, amount int)) func(*schedtest.T) {
		return func(t *schedtest.T) {
			alice := &paAccount{id: 1, balance: 100}
			bob := &paAccount{id: 2, balance: 100}
			var wg sched.WaitGroup
			wg.Go(func() { transfer(alice, bob, 10) })
			wg.Go(func() { transfer(bob, alice, 20) })
			wg.Wait()
			if total := alice.balance + bob.balance; total != 200 {
				t.Errorf("money created or lost: total %d, want 200", total)
			}
		}
	}
	register(Pattern{
		Name:   "ab-ba",
		Class:  "resource deadlock / AB-BA",
		Buggy:  run(paTransferBuggy),
		Fixed:  run(paTransferFixed),
		Expect: schedtest.Deadlock,
		Native: func() error {
			return runNative(func() error {
				type account struct {
					mu      sync.Mutex
					balance int
				}
				transfer := func(from, to *account, amount int) {
					from.mu.Lock()
					defer from.mu.Unlock()
					to.mu.Lock()
					defer to.mu.Unlock()
					from.balance -= amount
					to.balance += amount
				}
				alice, bob := &account{balance: 100}, &account{balance: 100}
				var wg sync.WaitGroup
				wg.Add(2)
				go func() { defer wg.Done(); transfer(alice, bob, 10) }()
				go func() { defer wg.Done(); transfer(bob, alice, 20) }()
				wg.Wait()
				return nil
			})
		},
	})
}
