// Package conformance holds Go code written with Go's own concurrency, one
// function per construct the rewrite carries over, each returning what it
// observed. conformance_test.go (generated next to it by the test in
// internal/rewrite) runs each natively and, rewritten, under the scheduler
// over many schedules, and compares the outcomes.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	randv2 "math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Case is one construct: Run returns what it observed; Allowed lists every
// outcome Go allows (nil: only the native run's).
type Case struct {
	Name    string
	Run     func() string
	Allowed []string
}

var Cases = []Case{
	{"GoArgsEvaluatedAtGo", goArgs, nil},
	{"GoMethodValueReceiverCopied", goMethodValue, nil},
	{"GoResultsDropped", goResults, nil},
	{"GoVariadic", goVariadic, nil},
	{"GoGeneric", goGeneric, nil},
	{"GoBuiltinArgsEvaluatedAtGo", goBuiltin, nil},
	{"UnbufferedHandoff", unbuffered, nil},
	{"BufferedLenCap", buffered, nil},
	{"CloseDrainThenZero", closeDrain, nil},
	{"RangeOverChannel", rangeChan, nil},
	{"NilChannelNeverReady", nilChan, nil},
	{"SelectDefault", selectDefault, nil},
	{"SelectSendCase", selectSend, nil},
	{"SelectLabeledBreakContinue", selectLabels, nil},
	{"SelectReturnInCase", selectReturn, nil},
	{"SelectAssignForms", selectAssign, nil},
	{"SelectEvaluationOrder", selectOrder, nil},
	{"SelectBothReady", selectBoth, []string{"a", "b"}},
	{"SendOrder", sendOrder, []string{"ab", "ba"}},
	{"MapRangeOrder", mapOrder, []string{"a", "b", "c"}},
	{"MapRangeDeleteUnreached", mapDelete, nil},
	{"MapRangeGeneric", mapGeneric, nil},
	{"ChannelPanics", chanPanics, nil},
	{"NamedGenericDirectional", namedChans, nil},
	{"NamedBoolOK", namedBoolOK, nil},
	{"ChannelsInStructsMapsSlices", chansInData, nil},
	{"ChannelOfChannels", chanOfChan, nil},
	{"Mutex", mutex, nil},
	{"RWMutex", rwmutex, nil},
	{"WaitGroupGo", waitGroupGo, nil},
	{"OnceAndOnceValue", once, nil},
	{"Pool", pool, []string{"put new", "new new"}},
	{"Cond", cond, nil},
	{"Atomics", atomics, nil},
	{"SleepOrder", sleepOrder, nil},
	{"TimerStopReset", timerStopReset, nil},
	{"AfterTimeout", afterTimeout, nil},
	{"Ticker", ticker, nil},
	{"Tick", tick, nil},
	{"AfterFunc", afterFunc, nil},
	{"ContextTimeout", ctxTimeout, nil},
	{"ContextCancelCause", ctxCancelCause, nil},
	{"ContextAfterFunc", ctxAfterFunc, nil},
	{"Gosched", gosched, nil},
	{"RandInRange", randRange, nil},
}

func goArgs() string {
	x := 1
	ch := make(chan int)
	go func(v int) { ch <- v }(x)
	x = 2
	return fmt.Sprint(<-ch, x)
}

type box struct{ v int }

func (b box) send(ch chan int) { ch <- b.v }

func goMethodValue() string {
	b := box{1}
	ch := make(chan int)
	go b.send(ch)
	b.v = 2
	return fmt.Sprint(<-ch)
}

func produce(ch chan<- string, s string) (int, error) {
	ch <- s
	return len(s), nil
}

func goResults() string {
	ch := make(chan string)
	go produce(ch, "hi")
	return <-ch
}

func sum(ch chan<- int, xs ...int) {
	n := 0
	for _, x := range xs {
		n += x
	}
	ch <- n
}

func goVariadic() string {
	ch := make(chan int)
	xs := []int{1, 2, 3}
	go sum(ch, xs...)
	go sum(ch, 4, 5)
	a, b := <-ch, <-ch
	return fmt.Sprint(a + b)
}

func send[T any](ch chan<- T, v T) { ch <- v }

func goBuiltin() string {
	c := make(chan int)
	d := c
	go close(d) // d is evaluated here: the later d = nil does not matter
	d = nil
	_, ok := <-c
	return fmt.Sprint(ok, d == nil)
}

func goGeneric() string {
	ch := make(chan float64, 1)
	go send(ch, 2.5)
	return fmt.Sprint(<-ch)
}

func unbuffered() string {
	ch := make(chan int)
	done := make(chan bool)
	var got []int
	go func() {
		for i := 0; i < 3; i++ {
			got = append(got, <-ch)
		}
		done <- true
	}()
	for i := 0; i < 3; i++ {
		ch <- i
	}
	<-done
	return fmt.Sprint(got)
}

func buffered() string {
	ch := make(chan string, 3)
	ch <- "a"
	ch <- "b"
	var n int64 = 3
	other := make(chan int, n)
	return fmt.Sprint(len(ch), cap(ch), cap(other), <-ch, len(ch))
}

func closeDrain() string {
	ch := make(chan int, 2)
	ch <- 7
	close(ch)
	v1, ok1 := <-ch
	v2, ok2 := <-ch
	var v3, ok3 = <-ch
	return fmt.Sprint(v1, ok1, v2, ok2, v3, ok3)
}

func rangeChan() string {
	ch := make(chan int)
	go func() {
		for i := 1; i <= 4; i++ {
			ch <- i
		}
		close(ch)
	}()
	n := 0
	for v := range ch {
		if v == 2 {
			continue
		}
		n += v
	}
	count := 0
	ch2 := make(chan int, 2)
	ch2 <- 1
	ch2 <- 2
	close(ch2)
	for range ch2 {
		count++
	}
	return fmt.Sprint(n, count)
}

func nilChan() string {
	var in chan int
	out := make(chan int, 1)
	out <- 1
	select {
	case v := <-in:
		return fmt.Sprint("nil", v)
	case v := <-out:
		return fmt.Sprint("out", v)
	}
}

func selectDefault() string {
	ch := make(chan int)
	select {
	case <-ch:
		return "recv"
	default:
		return "default"
	}
}

func selectSend() string {
	ch := make(chan any, 1)
	var err error = errors.New("e")
	select {
	case ch <- err:
	}
	select {
	case ch <- 1:
		return "sent twice"
	default:
	}
	return fmt.Sprint(<-ch)
}

func selectLabels() string {
	ch := make(chan int)
	go func() {
		for i := 0; i < 5; i++ {
			ch <- i
		}
		close(ch)
	}()
	var seen []int
loop:
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				break loop
			}
			if v%2 == 1 {
				continue
			}
			seen = append(seen, v)
			if v == 4 {
				break
			}
		}
	}
	return fmt.Sprint(seen)
}

func selectReturn() string {
	ch := make(chan int, 1)
	ch <- 3
	f := func() int {
		select {
		case v := <-ch:
			return v * 2
		default:
			return -1
		}
	}
	return fmt.Sprint(f(), f())
}

func selectAssign() string {
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	ch <- 3
	m := map[string]int{}
	var ok bool
	var arr [2]int
	select {
	case m["a"] = <-ch:
	}
	select {
	case arr[1], ok = <-ch:
	}
	select {
	case <-ch:
	}
	return fmt.Sprint(m, arr, ok, len(ch))
}

func selectOrder() string {
	var order []string
	ch := func(name string, c chan int) chan int { order = append(order, name); return c }
	val := func(name string, v int) int { order = append(order, name); return v }
	a := make(chan int, 1)
	b := make(chan int, 1)
	select {
	case <-ch("a", a):
	case ch("b", b) <- val("v", 1):
	}
	return strings.Join(order, ",")
}

func selectBoth() string {
	a := make(chan int, 1)
	b := make(chan int, 1)
	a <- 1
	b <- 2
	select {
	case <-a:
		return "a"
	case <-b:
		return "b"
	}
}

func sendOrder() string {
	ch := make(chan string)
	go func() { ch <- "a" }()
	go func() { ch <- "b" }()
	return <-ch + <-ch
}

func catch(f func()) (msg string) {
	defer func() { msg = fmt.Sprint(recover()) }()
	f()
	return ""
}

func chanPanics() string {
	var nilc chan int
	closed := make(chan int)
	close(closed)
	return strings.Join([]string{
		catch(func() { close(nilc) }),
		catch(func() { close(closed) }),
		catch(func() { closed <- 1 }),
	}, "; ")
}

type Pipe chan string
type RecvOnly <-chan string

func first[C ~chan T, T any](c C) T { return <-c }

// Open is a named boolean type: the ok of a receive assigns to it as Go's
// untyped bool does.
type Open bool

func namedBoolOK() string {
	c := make(chan int, 2)
	c <- 1
	c <- 2
	close(c)
	var v int
	var ok Open
	v, ok = <-c
	var ok2 Open
	var v2 int
	select {
	case v2, ok2 = <-c:
	}
	var ok3 Open
	_, ok3 = <-c
	var any3 any
	_, any3 = <-c
	return fmt.Sprint(v, ok, v2, ok2, ok3, any3)
}

func namedChans() string {
	p := make(Pipe, 3)
	p <- "x"
	p <- "y"
	var r <-chan string = p
	var s chan<- string = p
	s <- "z"
	a := first(p)
	b := <-r
	ro := RecvOnly((<-chan string)(p))
	return fmt.Sprint(a, b, <-ro, len(s), cap(s))
}

type hub struct {
	in  chan int
	out []chan int
	by  map[string]chan int
}

func chansInData() string {
	h := hub{in: make(chan int, 1), out: []chan int{make(chan int, 1)}, by: map[string]chan int{"k": make(chan int, 1)}}
	h.in <- 1
	h.out[0] <- <-h.in + 1
	h.by["k"] <- <-h.out[0] + 1
	return fmt.Sprint(<-h.by["k"])
}

func chanOfChan() string {
	reqs := make(chan chan int)
	go func() {
		for r := range reqs {
			r <- 42
		}
	}()
	r := make(chan int)
	reqs <- r
	v := <-r
	close(reqs)
	return fmt.Sprint(v)
}

type counter struct {
	sync.Mutex
	n int
}

func mutex() string {
	var c counter
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Lock()
			n := c.n
			runtime.Gosched()
			c.n = n + 1
			c.Unlock()
		}()
	}
	wg.Wait()
	return fmt.Sprint(c.n, c.TryLock())
}

func rwmutex() string {
	var mu sync.RWMutex
	m := map[int]int{}
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(2)
		go func() { defer wg.Done(); mu.Lock(); m[i] = i; mu.Unlock() }()
		go func() { defer wg.Done(); mu.RLock(); _ = m[i]; mu.RUnlock() }()
	}
	wg.Wait()
	return fmt.Sprint(len(m))
}

func waitGroupGo() string {
	var wg sync.WaitGroup
	var n atomic.Int64
	for i := 1; i <= 3; i++ {
		wg.Go(func() { n.Add(int64(i)) })
	}
	wg.Wait()
	return fmt.Sprint(n.Load())
}

func once() string {
	var o sync.Once
	calls := 0
	for i := 0; i < 3; i++ {
		o.Do(func() { calls++ })
	}
	v := sync.OnceValue(func() int { calls++; return calls })
	f := sync.OnceFunc(func() { calls += 10 })
	f()
	f()
	return fmt.Sprint(calls, v(), v())
}

// pool puts an item in a pool and gets two: the first may be the item or
// a new one (a collection may empty a pool at any time), the second is new
// unless the first was, whoever put it (the same function, called by
// another goroutine).
func pool() string {
	p := sync.Pool{New: func() any { return "new" }}
	done := make(chan string)
	go func() {
		p.Put("put")
		done <- p.Get().(string)
	}()
	first := <-done
	return first + " " + p.Get().(string)
}

func cond() string {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	ready := false
	done := make(chan string)
	go func() {
		mu.Lock()
		for !ready {
			c.Wait()
		}
		mu.Unlock()
		done <- "woken"
	}()
	mu.Lock()
	ready = true
	c.Broadcast()
	mu.Unlock()
	return <-done
}

func atomics() string {
	var a int64
	var u uint32
	var p atomic.Pointer[string]
	s := "x"
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			atomic.AddInt64(&a, 2)
			atomic.CompareAndSwapUint32(&u, 0, 5)
		}()
	}
	wg.Wait()
	p.Store(&s)
	var v atomic.Value
	v.Store("y")
	return fmt.Sprint(atomic.LoadInt64(&a), atomic.LoadUint32(&u), *p.Load(), v.Load())
}

func sleepOrder() string {
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	for _, d := range []int{30, 10, 20} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(d) * time.Millisecond)
			mu.Lock()
			order = append(order, fmt.Sprint(d))
			mu.Unlock()
		}()
	}
	wg.Wait()
	return strings.Join(order, ",")
}

func timerStopReset() string {
	t := time.NewTimer(time.Hour)
	stopped := t.Stop()
	again := t.Stop()
	t.Reset(time.Millisecond)
	<-t.C
	t2 := time.NewTimer(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	expiredStop := t2.Stop() // Go 1.23: the unreceived value counts as stopped
	select {
	case <-t2.C:
		return "stale value"
	default:
	}
	return fmt.Sprint(stopped, again, expiredStop)
}

func afterTimeout() string {
	never := make(chan int)
	start := time.Now()
	select {
	case <-never:
		return "value"
	case <-time.After(50 * time.Millisecond):
	}
	return fmt.Sprint(time.Since(start) >= 50*time.Millisecond)
}

func ticker() string {
	tk := time.NewTicker(10 * time.Millisecond)
	n := 0
	for range tk.C {
		n++
		if n == 3 {
			break
		}
	}
	tk.Stop()
	tk.Reset(time.Millisecond)
	<-tk.C
	tk.Stop()
	return fmt.Sprint(n)
}

func tick() string {
	c := time.Tick(5 * time.Millisecond)
	start := time.Now()
	<-c
	<-c
	return fmt.Sprint(time.Tick(0) == nil, time.Since(start) >= 10*time.Millisecond)
}

func afterFunc() string {
	done := make(chan string, 1)
	t := time.AfterFunc(time.Millisecond, func() { done <- "fired" })
	s := time.AfterFunc(time.Hour, func() { done <- "late" })
	stopped := s.Stop()
	_ = t
	return fmt.Sprint(<-done, stopped)
}

func ctxTimeout() string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	work := make(chan int)
	select {
	case <-work:
		return "work"
	case <-ctx.Done():
	}
	return fmt.Sprint(ctx.Err(), errors.Is(ctx.Err(), context.DeadlineExceeded))
}

func ctxCancelCause() string {
	parent, cancel := context.WithCancelCause(context.Background())
	child, cancelChild := context.WithCancel(parent)
	defer cancelChild()
	go cancel(errors.New("boom"))
	<-child.Done()
	return fmt.Sprint(child.Err(), context.Cause(child))
}

func ctxAfterFunc() string {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string)
	context.AfterFunc(ctx, func() { done <- "after" })
	cancel()
	return <-done
}

func gosched() string {
	var order []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.Gosched()
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Ints(order)
	return fmt.Sprint(order)
}

func randRange() string {
	ok := true
	for i := 0; i < 100; i++ {
		a, b, c := rand.Intn(10), randv2.IntN(5), randv2.N(int64(7))
		ok = ok && a >= 0 && a < 10 && b >= 0 && b < 5 && c >= 0 && c < 7
	}
	p := rand.Perm(4)
	sort.Ints(p)
	return fmt.Sprint(ok, p)
}

// mapOrder: the first key a range over a map produces; Go's order is
// random.
func mapOrder() string {
	for k := range map[string]int{"a": 1, "b": 2, "c": 3} {
		return k
	}
	return ""
}

// mapDelete: an entry deleted before the range reaches it is not produced.
func mapDelete() string {
	m := map[int]string{1: "x", 2: "y"}
	n := 0
	for k := range m {
		delete(m, 3-k)
		n++
	}
	return fmt.Sprint(n, len(m))
}

// mapGeneric: a range over a map of a type parameter, keys and values.
func mapGeneric() string {
	return fmt.Sprint(sumMap(map[string]int{"a": 1, "b": 2, "c": 3}))
}

func sumMap[M ~map[K]int, K comparable](m M) (n int) {
	for _, v := range m {
		n += v
	}
	return n
}
