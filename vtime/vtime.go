package vtime

import (
	"time"

	"github.com/dstgo/dst/chans"
	"github.com/dstgo/dst/internal/chanlink"
	"github.com/dstgo/dst/internal/engine"
)

// timerOps are the operations package chans lends timers' channels.
var timerOps = chanlink.Timers.(*chanlink.TimerOps[*chans.Chan[time.Time]])

// Now returns the current time: the run's virtual clock inside a run,
// time.Now outside (a reading noted as native.Now's is, so that a run's
// clock starts after it).
func Now() time.Time {
	if g := engine.Current(); g != nil {
		return g.Now()
	}
	t := time.Now()
	engine.NoteRealReading(t)
	return t
}

// Since returns the time elapsed since t, on the same clock as Now.
func Since(t time.Time) time.Duration { return Now().Sub(t) }

// Until returns the duration until t, on the same clock as Now.
func Until(t time.Time) time.Duration { return t.Sub(Now()) }

// Sleep pauses the calling goroutine for at least d. Inside a run it blocks
// until the virtual clock has advanced by d, which happens as soon as every
// other goroutine is blocked too; d <= 0 is a scheduling point.
func Sleep(d time.Duration) {
	if g := engine.Current(); g != nil {
		g.Sleep(d)
		return
	}
	time.Sleep(d)
}

// After waits for d and then sends the current time on the returned
// channel, as time.After does.
func After(d time.Duration) *chans.Chan[time.Time] { return NewTimer(d).C }

// Tick returns the channel of a ticker that is never stopped, as time.Tick
// does; it returns nil if d <= 0.
func Tick(d time.Duration) *chans.Chan[time.Time] {
	if d <= 0 {
		return nil
	}
	return NewTicker(d).C
}

// Timer is a single event, as time.Timer: when it expires the current time
// is sent on C, unless the timer was made by AfterFunc. With Go 1.23
// semantics: C is unbuffered (Len and Cap are 0), and after Stop or Reset
// returns no stale value is received from C.
type Timer struct {
	C *chans.Chan[time.Time]

	native *time.Timer
	t      *engine.Timer
}

// NewTimer creates a timer that sends the current time on C after d.
func NewTimer(d time.Duration) *Timer {
	g := engine.Current()
	if g == nil {
		nt := time.NewTimer(d)
		return &Timer{native: nt, C: timerOps.Wrap(nt.C)}
	}
	tm := &Timer{C: timerOps.New()}
	tm.t = g.NewTimer(deliver, tm.C)
	tm.arm(d)
	return tm
}

// deliver is a timer's or ticker's fire function: t.Data is its channel.
//
//go:norace
func deliver(t *engine.Timer, now time.Time) { timerOps.Deliver(t.Data.(*chans.Chan[time.Time]), now) }

// idleTicker reports that a ticker's next tick would be dropped.
//
//go:norace
func idleTicker(t *engine.Timer) bool { return timerOps.Idle(t.Data.(*chans.Chan[time.Time])) }

// callFunc is AfterFunc's fire function: t.Data is the function.
//
//go:norace
func callFunc(t *engine.Timer, _ time.Time) { t.Go(t.Data.(func())) }

// AfterFunc waits for d and then calls f in its own goroutine (a managed
// one inside a run). The returned Timer's Stop cancels the call.
func AfterFunc(d time.Duration, f func()) *Timer {
	g := engine.Current()
	if g == nil {
		return &Timer{native: time.AfterFunc(d, f)}
	}
	tm := &Timer{t: g.NewTimer(callFunc, f)}
	tm.arm(d)
	return tm
}

//go:norace
func (tm *Timer) arm(d time.Duration) bool { return tm.t.Arm(d) }

// Stop prevents the timer from firing and reports whether it stopped it:
// false if it had already expired and its value was received, or it had
// been stopped (as in Go 1.23, an expired timer whose value is still
// unreceived counts as stopped). No value is received from C after Stop
// returns.
func (tm *Timer) Stop() bool {
	if tm.native != nil {
		return tm.native.Stop()
	}
	if tm.t == nil {
		panic("time: Stop called on uninitialized Timer")
	}
	if g := engine.Current(); g != nil {
		g.Point(engine.OpTimer, nil)
	}
	return tm.stop()
}

//go:norace
func (tm *Timer) stop() bool {
	was := tm.t.Disarm()
	if tm.C != nil && timerOps.Drain(tm.C) {
		was = true
	}
	return was
}

// Reset changes the timer to expire after d and reports whether it was
// active. No stale value is received from C after Reset returns.
func (tm *Timer) Reset(d time.Duration) bool {
	if tm.native != nil {
		return tm.native.Reset(d)
	}
	if tm.t == nil {
		panic("time: Reset called on uninitialized Timer")
	}
	if g := engine.Current(); g != nil {
		g.Point(engine.OpTimer, nil)
	}
	was := tm.stop()
	tm.arm(d)
	return was
}

// Ticker delivers ticks at intervals on C, as time.Ticker: a tick that the
// receiver is not ready for is dropped.
type Ticker struct {
	C *chans.Chan[time.Time]

	native *time.Ticker
	t      *engine.Timer
	period time.Duration
}

// NewTicker returns a ticker that sends the time on C every d. It panics if
// d <= 0, as time.NewTicker does.
func NewTicker(d time.Duration) *Ticker {
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	g := engine.Current()
	if g == nil {
		nt := time.NewTicker(d)
		return &Ticker{native: nt, C: timerOps.Wrap(nt.C)}
	}
	tk := &Ticker{C: timerOps.New(), period: d}
	tk.t = g.NewTimer(deliver, tk.C)
	tk.t.SetPeriod(d, idleTicker)
	tk.t.Arm(d)
	return tk
}

// Stop turns off the ticker; no tick is received from C after it returns.
// On a Ticker not made by NewTicker it does nothing, as time.Ticker's does.
func (tk *Ticker) Stop() {
	if tk.native != nil {
		tk.native.Stop()
		return
	}
	if tk.t == nil {
		return
	}
	if g := engine.Current(); g != nil {
		g.Point(engine.OpTimer, nil)
	}
	tk.stop()
}

//go:norace
func (tk *Ticker) stop() {
	tk.t.Disarm()
	timerOps.Drain(tk.C)
}

// Reset stops the ticker and resets its period to d; the next tick is d from
// now. It panics if d <= 0.
func (tk *Ticker) Reset(d time.Duration) {
	if d <= 0 {
		panic("non-positive interval for Ticker.Reset")
	}
	if tk.native != nil {
		tk.native.Reset(d)
		return
	}
	if tk.t == nil {
		panic("time: Reset called on uninitialized Ticker")
	}
	if g := engine.Current(); g != nil {
		g.Point(engine.OpTimer, nil)
	}
	tk.reset(d)
}

//go:norace
func (tk *Ticker) reset(d time.Duration) {
	tk.stop()
	tk.period = d
	tk.t.SetPeriod(d, idleTicker)
	tk.t.Arm(d)
}
