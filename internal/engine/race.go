//go:build race

package engine

import (
	"runtime"
	"unsafe"
)

// RaceEnabled reports whether the binary was built with -race.
const RaceEnabled = true

// RaceAcquire, RaceRelease and RaceReleaseMerge tell the race detector about
// a happens-before edge a shim creates, as the sync package does for itself.
// They do nothing without -race.
func RaceAcquire(addr unsafe.Pointer)      { runtime.RaceAcquire(addr) }
func RaceRelease(addr unsafe.Pointer)      { runtime.RaceRelease(addr) }
func RaceReleaseMerge(addr unsafe.Pointer) { runtime.RaceReleaseMerge(addr) }

// RaceRead and RaceWrite report a memory access to the race detector, as
// sync.WaitGroup does to catch an Add that is not ordered before Wait.
func RaceRead(addr unsafe.Pointer)  { runtime.RaceRead(addr) }
func RaceWrite(addr unsafe.Pointer) { runtime.RaceWrite(addr) }

// raceErrors is how many races the race detector has reported so far.
func raceErrors() int { return runtime.RaceErrors() }

// RaceErrors is how many races the race detector has reported in this
// process so far.
func RaceErrors() int { return runtime.RaceErrors() }
