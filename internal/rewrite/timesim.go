package rewrite

// Timers of a run reached through an interface.
//
// Inside a run, rewritten code's time.NewTimer, AfterFunc and NewTicker
// give a *time.Timer or *time.Ticker that package time never initialised:
// it stands for a timer on the virtual clock (sched/native keeps which),
// and the rewrite sends every call of its Stop and Reset there. A call the
// rewrite cannot see, through an interface the timer was stored in
// (grpc-go keeps every stream's deadline timer as its internal.Timer,
// whose Stop it calls), reached Go's own method, which panics on a timer
// it did not make ("Stop called on uninitialized Timer"). The overlay now
// also changes package time: Stop and Reset of a timer or a ticker that
// time did not initialise first ask sched/native, which does what the
// rewritten call does for a timer of the run; any other timer costs the
// check of a field that Go's own method makes anyway.

// timeSim is the overlay of package time.
var timeSim = &stdHooks{
	pkg:   "time",
	need:  "sleep.go",
	hooks: timeHooks,
	added: timeSimFile,
	what:  "a timer of a run stopped or reset through an interface (grpc-go's) panics as uninitialised",
}

// timeHooks are the methods of time that refuse a timer it did not
// initialise, go1.26.
var timeHooks = []hook{
	{"Timer", "Stop", "func (t *Timer) Stop() bool",
		"if !t.initTimer && dstTimer != nil { if ok, known := dstTimer.Stop(t); known { return ok } };"},
	{"Timer", "Reset", "func (t *Timer) Reset(d Duration) bool",
		"if !t.initTimer && dstTimer != nil { if ok, known := dstTimer.Reset(t, d); known { return ok } };"},
	{"Ticker", "Stop", "func (t *Ticker) Stop()",
		"if !t.initTicker && dstTimer != nil && dstTimer.StopTicker(t) { return };"},
	{"Ticker", "Reset", "func (t *Ticker) Reset(d Duration)",
		"if !t.initTicker && d > 0 && dstTimer != nil && dstTimer.ResetTicker(t, d) { return };"},
}

// timeSimFile is the file the overlay adds to time.
const timeSimFile = `package time

// Added by dstreplay test (internal/rewrite/timesim.go): Stop and Reset
// of a timer or a ticker that this package did not initialise (one that
// stands for a timer of a run) hand over to sched/native, which sets
// dstTimer.

// dstTimerHook is what sched/native does for them: known is false for a
// timer no run made, which Go's own method then refuses.
type dstTimerHook interface {
	Stop(t *Timer) (ok, known bool)
	Reset(t *Timer, d Duration) (ok, known bool)
	StopTicker(t *Ticker) (known bool)
	ResetTicker(t *Ticker, d Duration) (known bool)
}

// dstTimer is sched/native's, set when it starts.
var dstTimer dstTimerHook

// DstreplayTimerHook sets dstTimer (any *Timer will do as the receiver, a
// nil one too).
func (t *Timer) DstreplayTimerHook(h any) { dstTimer = h.(dstTimerHook) }
`
