package sched

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/dstgo/dst/internal/engine"
)

// WaitGroup waits for a collection of goroutines to finish, with the method
// set and semantics of sync.WaitGroup: a negative counter panics with
// "sync: negative WaitGroup counter", and reusing it before a Wait has
// returned panics as in Go. Inside a run Add, Done and Wait are scheduling
// points and a goroutine blocked in Wait is reported by deadlock and leak
// checks; Go starts a managed goroutine. Outside a run it is a
// sync.WaitGroup.
type WaitGroup struct {
	native  sync.WaitGroup
	obj     engine.Obj
	count   int64
	waiters engine.WaitQ
}

// Add adds delta, which may be negative, to the counter. When the counter
// becomes zero, every goroutine blocked in Wait is released.
func (wg *WaitGroup) Add(delta int) {
	if g := engine.Current(); g != nil {
		wg.add(g, delta, engine.OpWaitGroupAdd)
		return
	}
	wg.obj.CheckNative(engine.OpWaitGroupAdd)
	wg.native.Add(delta)
}

// Done decrements the counter by one.
func (wg *WaitGroup) Done() {
	if g := engine.Current(); g != nil {
		wg.add(g, -1, engine.OpWaitGroupDone)
		return
	}
	wg.obj.CheckNative(engine.OpWaitGroupDone)
	wg.native.Add(-1)
}

// Wait blocks until the counter is zero.
func (wg *WaitGroup) Wait() {
	if g := engine.Current(); g != nil {
		wg.wait(g)
		return
	}
	wg.obj.CheckNative(engine.OpWaitGroupWait)
	wg.native.Wait()
}

// Go calls f in a new goroutine (a managed one inside a run) and adds that
// goroutine to the group, as sync.WaitGroup.Go does: if f panics, the
// goroutine is not marked done, so Wait does not return while the panic
// ends the run.
func (wg *WaitGroup) Go(f func()) {
	if engine.Current() == nil {
		wg.obj.CheckNative(engine.OpGo)
		wg.native.Go(f)
		return
	}
	wg.Add(1)
	Go(func() {
		defer func() {
			if x := recover(); x != nil {
				panic(&engine.Repanic{Value: x, Stack: debug.Stack()})
			}
			wg.Done() // returned, or exited with runtime.Goexit
		}()
		f()
	})
}

//go:norace
func (wg *WaitGroup) bind(g *engine.G) {
	if wg.obj.Bind(g, engine.KindWaitGroup) {
		wg.count = 0
		wg.waiters.Reset()
		if n := nativeCount(&wg.native); n != 0 {
			g.Misuse(fmt.Sprintf("%s has a counter of %d from outside the run and is used inside it; "+
				"a run's objects start at zero in the run", wg.obj.String(), n))
		}
	}
}

// nativeCount is the counter of wg, as sync.WaitGroup keeps it: the high 32
// bits of its first word (Go 1.20 and later; TestObjectStateFromOutsideIsMisuse
// checks the layout).
func nativeCount(wg *sync.WaitGroup) int32 {
	return int32((*atomic.Uint64)(unsafe.Pointer(wg)).Load() >> 32)
}

//go:norace
func (wg *WaitGroup) add(g *engine.G, delta int, op engine.Op) {
	wg.bind(g)
	g.Point(op, &wg.obj)
	if delta < 0 {
		engine.RaceReleaseMerge(unsafe.Pointer(wg))
	}
	wg.count += int64(delta)
	if engine.RaceEnabled && delta > 0 && wg.count == int64(delta) {
		wg.raceFirstAdd()
	}
	if wg.count < 0 {
		panic("sync: negative WaitGroup counter")
	}
	if wg.count == 0 {
		wg.waiters.WakeAll()
	}
}

//go:norace
func (wg *WaitGroup) wait(g *engine.G) {
	wg.bind(g)
	g.Point(engine.OpWaitGroupWait, &wg.obj)
	if wg.count == 0 {
		engine.RaceAcquire(unsafe.Pointer(wg))
		return
	}
	if engine.RaceEnabled && wg.waiters.Len() == 0 {
		wg.raceFirstWait()
	}
	wg.waiters.Wait(g, engine.OpWaitGroupWait, &wg.obj)
	if wg.count != 0 {
		panic("sync: WaitGroup is reused before previous Wait has returned")
	}
	engine.RaceAcquire(unsafe.Pointer(wg))
}

// sync.WaitGroup's race checks, which the scheduler keeps: the Add that
// starts from a zero counter reads, and the first Wait to block writes, the
// same word, so that the race detector reports an Add not ordered before
// Wait (or a reused WaitGroup's Add not ordered after the previous Wait
// returned) as it does under go test -race. They are functions of their
// own, not norace, so that the race report's stacks show WaitGroup's add and
// wait, which the engine names in its report (internal/engine/datarace.go).

//go:noinline
func (wg *WaitGroup) raceFirstAdd() { engine.RaceRead(unsafe.Pointer(&wg.waiters)) }

//go:noinline
func (wg *WaitGroup) raceFirstWait() { engine.RaceWrite(unsafe.Pointer(&wg.waiters)) }
