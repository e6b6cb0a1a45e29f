package native

import (
	"time"
	"unsafe"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/vtime"
)

// Package time's functions on the run's virtual clock (package vtime).
// Inside a run a timer is a *time.Timer whose C is a channel the run
// feeds; its methods are rewritten to TimerStop and TimerReset, which find
// the run's timer standing for it.

// Now is time.Now. Inside a run it reads the virtual clock as time.Now
// reads the real one (engine.G.Reading): each reading is later than the one
// before, by 20 to 100 ns, and 1 to 20 µs later than the instant the clock
// jumped to if it moved since (the latency of a goroutine a timer wakes),
// drawn from the run's entropy and passing on the clock; so code written
// for real time, which relies on time passing between two readings (a
// deadline computed as now+d has passed once a sleep of d is over),
// behaves as it does in Go. vtime.Now, for code written for the scheduler,
// is the clock's exact instant. Outside a run it is time.Now, and the
// reading is noted: a run's clock starts after the real time the program
// has read (engine.ClockStart), so that time never runs backwards for it.
func Now() time.Time {
	if g := engine.Current(); g != nil {
		return g.Reading()
	}
	return vtime.Now() // time.Now, the reading noted
}

// Since is time.Since: Now().Sub(t).
func Since(t time.Time) time.Duration { return Now().Sub(t) }

// Until is time.Until: t.Sub(Now()).
func Until(t time.Time) time.Duration { return t.Sub(Now()) }

// Sleep is time.Sleep.
func Sleep(d time.Duration) { vtime.Sleep(d) }

// After is time.After.
func After(d time.Duration) <-chan time.Time {
	g := engine.Current()
	if g == nil {
		return time.After(d)
	}
	return timeChan(g, vtime.NewTimer(d).C)
}

// Tick is time.Tick.
func Tick(d time.Duration) <-chan time.Time {
	g := engine.Current()
	if g == nil {
		return time.Tick(d)
	}
	if d <= 0 {
		return nil
	}
	return timeChan(g, vtime.NewTicker(d).C)
}

// timeChan returns a channel of Go's type for which the run's timer or
// ticker channel c stands.
func timeChan(g *engine.G, c *chans.Chan[time.Time]) chan time.Time {
	n := make(chan time.Time) // unbuffered, as a timer's since Go 1.23
	g.SetShadow(addr(n), n, c)
	return n
}

// NewTimer is time.NewTimer.
func NewTimer(d time.Duration) *time.Timer {
	g := engine.Current()
	if g == nil {
		return time.NewTimer(d)
	}
	vt := vtime.NewTimer(d)
	tm := &time.Timer{C: timeChan(g, vt.C)}
	g.SetShadow(unsafe.Pointer(tm), tm, vt)
	return tm
}

// AfterFunc is time.AfterFunc.
func AfterFunc(d time.Duration, f func()) *time.Timer {
	g := engine.Current()
	if g == nil {
		return time.AfterFunc(d, f)
	}
	vt := vtime.AfterFunc(d, f)
	tm := &time.Timer{}
	g.SetShadow(unsafe.Pointer(tm), tm, vt)
	return tm
}

// standIn returns what stands in the run for the native object at p (a
// *time.Timer, a *time.Ticker), or the zero T outside a run or for an
// object the run did not make.
func standIn[T any](p unsafe.Pointer) T {
	var zero T
	if g := engine.Current(); g != nil {
		v, _ := g.Shadow(p).(T)
		return v
	}
	return zero
}

// TimerStop is tm.Stop().
func TimerStop(tm *time.Timer) bool {
	if ok, known := (timerHook{}).Stop(tm); known {
		return ok
	}
	return tm.Stop()
}

// TimerReset is tm.Reset(d).
func TimerReset(tm *time.Timer, d time.Duration) bool {
	if ok, known := (timerHook{}).Reset(tm, d); known {
		return ok
	}
	return tm.Reset(d)
}

// NewTicker is time.NewTicker.
func NewTicker(d time.Duration) *time.Ticker {
	g := engine.Current()
	if g == nil {
		return time.NewTicker(d)
	}
	vt := vtime.NewTicker(d) // panics on d <= 0 as time's does
	tk := &time.Ticker{C: timeChan(g, vt.C)}
	g.SetShadow(unsafe.Pointer(tk), tk, vt)
	return tk
}

// TickerStop is tk.Stop().
func TickerStop(tk *time.Ticker) {
	if !(timerHook{}).StopTicker(tk) {
		tk.Stop()
	}
}

// TickerReset is tk.Reset(d).
func TickerReset(tk *time.Ticker, d time.Duration) {
	if !(timerHook{}).ResetTicker(tk, d) {
		tk.Reset(d)
	}
}

// Package time itself, where dstreplay test overlays it
// (internal/rewrite/timesim.go): Stop and Reset of a timer or ticker that
// time did not initialise, one of a run's stand-ins called through an
// interface the rewrite cannot see into, come here.

// timerHook is what package time calls for them, and what the rewritten
// calls (TimerStop, ...) do first: known (or true) for a stand-in of the
// caller's run, whose virtual timer it stops or resets.
type timerHook struct{}

func (timerHook) Stop(tm *time.Timer) (ok, known bool) {
	if vt := standIn[*vtime.Timer](unsafe.Pointer(tm)); vt != nil {
		return vt.Stop(), true
	}
	return false, false
}

func (timerHook) Reset(tm *time.Timer, d time.Duration) (ok, known bool) {
	if vt := standIn[*vtime.Timer](unsafe.Pointer(tm)); vt != nil {
		return vt.Reset(d), true
	}
	return false, false
}

func (timerHook) StopTicker(tk *time.Ticker) bool {
	if vt := standIn[*vtime.Ticker](unsafe.Pointer(tk)); vt != nil {
		vt.Stop()
		return true
	}
	return false
}

func (timerHook) ResetTicker(tk *time.Ticker, d time.Duration) bool {
	if vt := standIn[*vtime.Ticker](unsafe.Pointer(tk)); vt != nil {
		vt.Reset(d)
		return true
	}
	return false
}

// init hands timerHook to the build's package time, where it has the
// overlay's hooks.
func init() {
	if h, ok := any((*time.Timer)(nil)).(interface{ DstreplayTimerHook(any) }); ok {
		h.DstreplayTimerHook(timerHook{})
	}
}
