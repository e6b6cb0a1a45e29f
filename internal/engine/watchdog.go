package engine

import (
	"sync"
	"time"
)

// One watchdog goroutine per process watches every run in progress, and
// only while there is one: it exits after a tick with no run. A run does not
// arm a timer of its own because a pending runtime timer makes every
// goroutine switch on its P read the clock, which costs about a sixth of a
// scheduling decision. On Linux the watchdog waits on a timerfd through the
// netpoller, so no runtime timer is pending at all (see ticker_linux.go).

// watchPeriod is the watchdog's resolution: a run is abandoned between
// Config.Watchdog and Config.Watchdog+watchPeriod after its last progress.
const watchPeriod = 25 * time.Millisecond

var watchdog struct {
	mu      sync.Mutex
	running bool
	busy    bool // a run started since the last tick
}

// watch makes sure the watchdog runs while r does.
func watch(r *Run) {
	if r.cfg.Watchdog <= 0 {
		return
	}
	startWatchdog()
}

// unwindLimit is how long a deferred call may block an unwinding outside the
// scheduler when the run has no watchdog (a variable for tests).
var unwindLimit = 10 * time.Second

// startWatchdog makes sure the watchdog goroutine runs (for a run without a
// watchdog of its own, to watch its unwinding).
func startWatchdog() {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	watchdog.busy = true
	if !watchdog.running {
		watchdog.running = true
		go watchLoop()
	}
}

func watchLoop() {
	tick := newTicker(watchPeriod)
	defer tick.stop()
	for {
		tick.wait()
		p := active.Load()
		watchdog.mu.Lock()
		if p == nil && !watchdog.busy {
			watchdog.running = false
			watchdog.mu.Unlock()
			return
		}
		watchdog.busy = false
		watchdog.mu.Unlock()
		if p == nil {
			continue
		}
		now := time.Now()
		for _, r := range *p {
			r.checkProgress(now)
		}
	}
}

// checkProgress fires the watchdog for r when its running goroutine has not
// reached a scheduling point for r.cfg.Watchdog.
//
//go:norace
func (r *Run) checkProgress(now time.Time) {
	limit := r.cfg.Watchdog
	if coroutines && limit <= 0 && r.unwinding.Load() {
		limit = unwindLimit
	}
	if limit <= 0 || coroutines && r.rescuing.Load() {
		return
	}
	if p := r.progress; p != r.wdProgress || r.wdSince.IsZero() {
		r.wdProgress, r.wdSince = p, now
		return
	}
	if now.Sub(r.wdSince) >= limit {
		r.fireWatchdog()
	}
}

// ticker wakes the watchdog every period.
type ticker interface {
	wait()
	stop()
}

type timeTicker struct{ t *time.Ticker }

func (t timeTicker) wait() { <-t.t.C }
func (t timeTicker) stop() { t.t.Stop() }
