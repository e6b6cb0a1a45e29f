//go:build !race

package engine

import "unsafe"

// RaceEnabled reports whether the binary was built with -race.
const RaceEnabled = false

func RaceAcquire(addr unsafe.Pointer)      {}
func RaceRelease(addr unsafe.Pointer)      {}
func RaceReleaseMerge(addr unsafe.Pointer) {}
func RaceRead(addr unsafe.Pointer)         {}
func RaceWrite(addr unsafe.Pointer)        {}

func raceErrors() int { return 0 }

// RaceErrors is how many races the race detector has reported in this
// process so far: none without -race.
func RaceErrors() int { return 0 }
