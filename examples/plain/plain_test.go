package plain

import (
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// buggy skips a test of a buggy twin unless DST_DEMO=1: under plain go test
// such a test fails only now and then, and go test ./... must stay green.
func buggy(t *testing.T) {
	t.Helper()
	if os.Getenv("DST_DEMO") != "1" {
		t.Skip("a buggy twin: run with DST_DEMO=1, under dstreplay test -wrap or hunt -wrap")
	}
}

func testWallet(t *testing.T, fixed bool) {
	w := NewWallet(100, fixed)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Withdraw(100)
		}()
	}
	wg.Wait()
	if b := w.Balance(); b != 0 {
		t.Fatalf("two withdrawals of 100 from 100 left %d, want 0 (one must be refused)", b)
	}
}

func TestBuggyWallet(t *testing.T) { buggy(t); testWallet(t, false) }
func TestFixedWallet(t *testing.T) { testWallet(t, true) }

func testLedger(t *testing.T, fixed bool) {
	a, b := &Account{ID: 1, Balance: 50}, &Account{ID: 2, Balance: 50}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); Transfer(a, b, 10, fixed) }()
	go func() { defer wg.Done(); Transfer(b, a, 20, fixed) }()
	wg.Wait()
	if a.Balance != 60 || b.Balance != 40 {
		t.Fatalf("balances %d and %d, want 60 and 40", a.Balance, b.Balance)
	}
}

func TestBuggyLedger(t *testing.T) { buggy(t); testLedger(t, false) }
func TestFixedLedger(t *testing.T) { testLedger(t, true) }

func testQueue(t *testing.T, fixed bool) {
	q := NewQueue(1, fixed)
	done := make(chan int)
	go func() {
		n := 0
		for i := range 3 {
			if q.Put(i) != nil {
				break
			}
			n++
		}
		done <- n
	}()
	q.Close()
	if n := <-done; n > 1 {
		t.Fatalf("%d items put into a queue of room 1 that nobody reads", n)
	}
}

func TestBuggyQueue(t *testing.T) { buggy(t); testQueue(t, false) }
func TestFixedQueue(t *testing.T) { testQueue(t, true) }

func testFetch(t *testing.T, fixed bool) {
	slow := func() string {
		time.Sleep(10 * time.Millisecond)
		return "answer"
	}
	v, err := Fetch(slow, 10*time.Millisecond, fixed)
	if err == nil && v != "answer" {
		t.Fatalf("Fetch = %q, want answer", v)
	}
}

func TestBuggyFetch(t *testing.T) { buggy(t); testFetch(t, false) }
func TestFixedFetch(t *testing.T) { testFetch(t, true) }

func testGather(t *testing.T, fixed bool) {
	job := func(v int) func() int { return func() int { return v } }
	got := Gather([]func() int{job(1), job(2), job(3)}, fixed)
	slices.Sort(got)
	if !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("Gather = %v, want [1 2 3]", got)
	}
}

func TestBuggyGather(t *testing.T) { buggy(t); testGather(t, false) }
func TestFixedGather(t *testing.T) { testGather(t, true) }
