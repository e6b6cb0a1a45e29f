// Package native runs Go's built-in concurrency on the scheduler, for code
// that dstreplay test has rewritten: the code keeps its types (a chan T stays
// a chan T, a *time.Timer a *time.Timer) and its statements become calls to
// this package (a send on ch becomes Send(ch, v), a go statement Go, a select
// a switch over Select). Inside a run each call is a scheduling point of the
// scheduler, which keeps, per run, what stands for each native channel and
// timer (a *chans.Chan, a *vtime.Timer); outside a run each is the statement
// it replaced.
//
// Code written by hand uses packages sched, chans, vtime and sched/context
// instead; this package is what generated code calls, and its functions'
// names follow the construct they replace.
//
// # What a run sees
//
// A channel made inside a run (by a rewritten make) belongs to the run. A
// channel made outside it and used inside (a package-level channel) is
// adopted at its first use: the run starts from the values it holds and
// whether it is closed, and what the run sends on it stays in the run. A
// close inside a run also closes the channel natively, so that code that is
// not rewritten (the standard library) sees it. A goroutine that is not
// managed (started by code that is not rewritten) and that sends on a
// channel the run has adopted is reported as a misuse, naming the channel:
// the scheduler cannot see it. So is code that is not rewritten (a
// dependency left out of -rewrite, a mock clock say) running on a goroutine
// of the run and sending on, or closing, a channel of the run: when the run
// is about to end deadlocked or leaking, a value in a channel's Go side, or
// a close the run did not make, turns the report into a misuse naming the
// channel's type, where the run first used it, and the -rewrite flag for
// the module under test's dependencies that are not rewritten.
//
// # What the program sees of itself
//
// runtime.NumGoroutine and runtime.Stack become NumGoroutine and Stack:
// inside a run they count and show the goroutines the program would have
// in Go, those outside the run and the run's live ones, and never the
// tool's (the goroutine that runs the run, the watchdog, a goroutine the
// scheduler has seen exit and that the runtime has not yet let go of,
// which under -race lingers a while). goleak and checks written by hand
// that poll the count until the workers are gone see what go test shows;
// goleak does so when it is rewritten, as it calls runtime.Stack itself:
// dstreplay test -wrap rewrites it without being asked (without -wrap,
// -rewrite=go.uber.org/goleak/... does). Code that is not rewritten and
// lists the goroutines itself (runtime.Stack, pprof's goroutine profile)
// sees the tool's too.
//
// The rewrite adds function literals (a test's body under -wrap becomes
// one, so do some go statements), which renames the closures after them:
// TestX.func3 would be TestX.func1.3. runtime.Func's Name and
// runtime.Frame's Function become FuncName and Function, which give the
// names of the program as written (each rewritten file registers its
// renamed closures with FuncNames), inside a run and outside one. Names
// that code not rewritten reads, and those the runtime prints itself (a
// panic's stack trace, Stack), are the rewritten ones; so are those of the
// copies of closures that inlining makes (F.G.func1).
//
// # Not covered
//
// A range over a map (Map) inside a run goes in an order drawn from the
// run's entropy, so a seed replays it; keys that hold pointers or channels
// are ordered by address, which differs between runs, and functions of the
// standard library that range over a map (maps.Keys, ...) keep Go's random
// order: a schedule that depends on those can take another path on replay,
// which the replay reports as a divergence at that point. The standard
// library is not rewritten: goroutines that library code starts are
// invisible to the scheduler, and so is what it does with a channel of the
// run. Handing one to it (Given) fails the run as a misuse naming the
// channel and the place. Reflection over channels is not library code that
// operates unseen: reflect.Value's Send, Recv, TrySend, TryRecv, Close and
// Len, and reflect.Select, go through Reflected and ReflectSelect, which
// act on the run's channels as the language's operations do; only a
// channel made outside the run, first used in it through reflection, whose
// element type the run cannot make a channel of, is a misuse (see
// chans.MakeOf). Library code that blocks natively stops the run at the
// watchdog, whose report names the library function called and where.
package native
