package plain

import (
	"errors"
	"sync"
	"time"
)

// Wallet is a balance that withdrawals may not take below zero.
type Wallet struct {
	mu      sync.Mutex
	balance int
	fixed   bool
}

// NewWallet returns a wallet holding balance; fixed selects the fixed twin.
func NewWallet(balance int, fixed bool) *Wallet { return &Wallet{balance: balance, fixed: fixed} }

// Balance is what the wallet holds.
func (w *Wallet) Balance() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.balance
}

// Withdraw takes n out of the wallet, and reports whether it could.
func (w *Wallet) Withdraw(n int) bool {
	if !w.fixed {
		// The bug: the check and the debit are two critical sections;
		// another withdrawal can pass the same check between them.
		if w.Balance() < n {
			return false
		}
		w.mu.Lock()
		w.balance -= n
		w.mu.Unlock()
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.balance < n {
		return false
	}
	w.balance -= n
	return true
}

// Account is an account of a Ledger.
type Account struct {
	mu      sync.Mutex
	ID      int
	Balance int
}

// Transfer moves amount from one account to another; fixed selects the
// fixed twin, which always locks the account with the lower ID first.
func Transfer(from, to *Account, amount int, fixed bool) {
	first, second := from, to
	if fixed && second.ID < first.ID {
		first, second = second, first
	}
	// The bug, when not fixed: two transfers in opposite directions each
	// hold their source and wait for the other's.
	first.mu.Lock()
	defer first.mu.Unlock()
	second.mu.Lock()
	defer second.mu.Unlock()
	from.Balance -= amount
	to.Balance += amount
}

// ErrClosed is what Put returns once the queue is closed.
var ErrClosed = errors.New("queue closed")

// Queue hands items to a consumer; Close ends it.
type Queue struct {
	mu     sync.Mutex
	closed bool
	items  chan int
	done   chan struct{}
	fixed  bool
}

// NewQueue returns a queue with room for size items; fixed selects the
// fixed twin.
func NewQueue(size int, fixed bool) *Queue {
	return &Queue{items: make(chan int, size), done: make(chan struct{}), fixed: fixed}
}

// Items is the channel the consumer receives from; the buggy queue closes
// it on Close, the fixed one closes Done instead.
func (q *Queue) Items() <-chan int { return q.items }

// Done is closed when the queue is closed.
func (q *Queue) Done() <-chan struct{} { return q.done }

// Put adds v, waiting for room, or returns ErrClosed.
func (q *Queue) Put(v int) error {
	q.mu.Lock()
	closed := q.closed
	q.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if !q.fixed {
		// The bug: Close may run between the check above and this send,
		// and close the channel: a send on a closed channel panics.
		q.items <- v
		return nil
	}
	select {
	case q.items <- v:
		return nil
	case <-q.done:
		return ErrClosed
	}
}

// Close ends the queue; Put returns ErrClosed after it.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.closed = true
	close(q.done)
	if !q.fixed {
		close(q.items)
	}
}

// ErrTimeout is what Fetch returns when get takes longer than its timeout.
var ErrTimeout = errors.New("fetch timed out")

// Fetch runs get in a goroutine and returns its result, or ErrTimeout after
// timeout; fixed selects the fixed twin.
func Fetch(get func() string, timeout time.Duration, fixed bool) (string, error) {
	size := 0
	if fixed {
		size = 1 // the sender never waits for a receiver that has gone
	}
	// The bug, unbuffered: when the timeout wins, nobody receives, and
	// the goroutine blocks on its send forever.
	res := make(chan string, size)
	go func() { res <- get() }()
	select {
	case v := <-res:
		return v, nil
	case <-time.After(timeout):
		return "", ErrTimeout
	}
}

// Gather runs each job in a goroutine and returns their results, in no
// particular order; fixed selects the fixed twin.
func Gather(jobs []func() int, fixed bool) []int {
	var (
		mu  sync.Mutex
		out []int
		wg  sync.WaitGroup
	)
	wg.Add(len(jobs))
	for _, job := range jobs {
		go func() {
			if fixed {
				defer wg.Done()
			}
			v := job()
			if !fixed {
				// The bug: the job says it is done before its result
				// is stored; Wait can return, and the results be read,
				// with that result missing.
				wg.Done()
			}
			mu.Lock()
			out = append(out, v)
			mu.Unlock()
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return append([]int(nil), out...)
}
