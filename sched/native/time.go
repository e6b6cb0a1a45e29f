package native

import (
	"time"
	"unsafe"

	"github.com/dstgo/dst/internal/engine"
	"github.com/dstgo/dst/vtime"
)

// Package time's functions on the run's virtual clock (package vtime).
// Inside a run a timer is a *time.Timer whose C is a channel the run
// feeds; its methods are rewritten to TimerStop and TimerReset, which find
// the run's timer standing for it.

// Now is time.Now.
func Now() time.Time { return vtime.Now() }

// Since is time.Since.
func Since(t time.Time) time.Duration { return vtime.Since(t) }

// Until is time.Until.
func Until(t time.Time) time.Duration { return vtime.Until(t) }

// Sleep is time.Sleep.
func Sleep(d time.Duration) { vtime.Sleep(d) }

// After is time.After.
func After(d time.Duration) <-chan time.Time {
	g := engine.Current()
	if g == nil {
		return time.After(d)
	}
	return timerChan(g, vtime.NewTimer(d))
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
	tk := vtime.NewTicker(d)
	c := make(chan time.Time)
	g.SetShadow(addr(c), c, tk.C)
	return c
}

// timerChan returns the channel of a run's timer as Go's type.
func timerChan(g *engine.G, vt *vtime.Timer) chan time.Time {
	c := make(chan time.Time) // unbuffered, as a timer's since Go 1.23
	g.SetShadow(addr(c), c, vt.C)
	return c
}

// NewTimer is time.NewTimer.
func NewTimer(d time.Duration) *time.Timer {
	g := engine.Current()
	if g == nil {
		return time.NewTimer(d)
	}
	vt := vtime.NewTimer(d)
	tm := &time.Timer{C: timerChan(g, vt)}
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

// runTimer returns the run's timer standing for tm, or nil.
func runTimer(tm *time.Timer) *vtime.Timer {
	if g := engine.Current(); g != nil {
		vt, _ := g.Shadow(unsafe.Pointer(tm)).(*vtime.Timer)
		return vt
	}
	return nil
}

// TimerStop is tm.Stop().
func TimerStop(tm *time.Timer) bool {
	if vt := runTimer(tm); vt != nil {
		return vt.Stop()
	}
	return tm.Stop()
}

// TimerReset is tm.Reset(d).
func TimerReset(tm *time.Timer, d time.Duration) bool {
	if vt := runTimer(tm); vt != nil {
		return vt.Reset(d)
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
	c := make(chan time.Time)
	g.SetShadow(addr(c), c, vt.C)
	tk := &time.Ticker{C: c}
	g.SetShadow(unsafe.Pointer(tk), tk, vt)
	return tk
}

// runTicker returns the run's ticker standing for tk, or nil.
func runTicker(tk *time.Ticker) *vtime.Ticker {
	if g := engine.Current(); g != nil {
		vt, _ := g.Shadow(unsafe.Pointer(tk)).(*vtime.Ticker)
		return vt
	}
	return nil
}

// TickerStop is tk.Stop().
func TickerStop(tk *time.Ticker) {
	if vt := runTicker(tk); vt != nil {
		vt.Stop()
		return
	}
	tk.Stop()
}

// TickerReset is tk.Reset(d).
func TickerReset(tk *time.Ticker, d time.Duration) {
	if vt := runTicker(tk); vt != nil {
		vt.Reset(d)
		return
	}
	tk.Reset(d)
}
