package engine

// Breakpoint is where a debugger stops a run at a given step: Point calls
// it at the scheduling point Config.BreakStep, with the step and the
// goroutine's ID, after recording the step's event and before the scheduler
// picks who continues. The calling goroutine's stack then leads from here
// through the shim to the operation of step in the code under test, which
// has not run yet. dstreplay debug sets a breakpoint on it; it does nothing
// itself.
//
//go:noinline
func Breakpoint(step, g int) {
	_, _ = step, g // kept as arguments, for the debugger to show
}
