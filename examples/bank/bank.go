// Package bank is a small bank whose accounts move money between each
// other concurrently. It has two bugs of the kinds real Go services have,
// next to their fixes, so that the scheduler has something to find:
//
//   - Transfer locks the source account, then the destination: two opposite
//     transfers can each hold one lock and wait for the other (AB-BA).
//     TransferOrdered locks in a global order instead.
//   - Audit reads the balances one account at a time: it can see money that
//     has left one account and not yet reached the other. AuditConsistent
//     holds every lock while it adds.
//
// The locks are sched.Mutex: in production they are plain sync.Mutex; under
// schedtest.Test every Lock and Unlock is a scheduling point.
package bank

import (
	"errors"
	"fmt"

	"github.com/dstgo/dst/sched"
)

// ErrInsufficientFunds is returned when a transfer would overdraw an account.
var ErrInsufficientFunds = errors.New("bank: insufficient funds")

// Account is one balance with its own lock.
type Account struct {
	sched.Mutex
	ID      int
	balance int
}

// Bank holds accounts numbered 0 to n-1.
type Bank struct {
	accounts []*Account
}

// New returns a bank with n accounts holding balance each.
func New(n, balance int) *Bank {
	b := &Bank{}
	for i := range n {
		b.accounts = append(b.accounts, &Account{ID: i, balance: balance})
	}
	return b
}

// pair returns the accounts a transfer moves money between.
func (b *Bank) pair(from, to int) (src, dst *Account, err error) {
	for _, id := range []int{from, to} {
		if id < 0 || id >= len(b.accounts) {
			return nil, nil, fmt.Errorf("bank: no account %d", id)
		}
	}
	return b.accounts[from], b.accounts[to], nil
}

// Transfer moves amount from one account to another. It locks the source
// first and the destination second, so concurrent transfers in opposite
// directions can deadlock.
func (b *Bank) Transfer(from, to, amount int) error {
	src, dst, err := b.pair(from, to)
	if err != nil {
		return err
	}
	src.Lock()
	defer src.Unlock()
	dst.Lock()
	defer dst.Unlock()
	return move(src, dst, amount)
}

// TransferOrdered moves amount like Transfer, but always locks the account
// with the lower ID first, so no two transfers wait for each other.
func (b *Bank) TransferOrdered(from, to, amount int) error {
	src, dst, err := b.pair(from, to)
	if err != nil {
		return err
	}
	first, second := src, dst
	if second.ID < first.ID {
		first, second = second, first
	}
	first.Lock()
	defer first.Unlock()
	if second != first {
		second.Lock()
		defer second.Unlock()
	}
	return move(src, dst, amount)
}

func move(src, dst *Account, amount int) error {
	if src == dst {
		return nil
	}
	if src.balance < amount {
		return ErrInsufficientFunds
	}
	src.balance -= amount
	dst.balance += amount
	return nil
}

// Audit returns the total of all balances, reading one account at a time.
// A transfer that runs between two reads is counted twice or not at all.
func (b *Bank) Audit() int {
	total := 0
	for _, a := range b.accounts {
		a.Lock()
		total += a.balance
		a.Unlock()
	}
	return total
}

// AuditConsistent returns the total of all balances, holding every lock
// (taken in ID order, as TransferOrdered does) while it adds.
func (b *Bank) AuditConsistent() int {
	for _, a := range b.accounts {
		a.Lock()
	}
	total := 0
	for _, a := range b.accounts {
		total += a.balance
	}
	for _, a := range b.accounts {
		a.Unlock()
	}
	return total
}
