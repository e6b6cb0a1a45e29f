package engine

import _ "unsafe" // for go:linkname

// The handoff between managed goroutines goes through the runtime's
// semaphores rather than channels: a channel operation tells the race
// detector about a happens-before edge, which would hide every data race
// between the goroutines being serialized. The semaphores create no such
// edge, so shims report the edges Go really creates (see race.go).

//go:linkname semacquire sync.runtime_Semacquire
func semacquire(s *uint32)

//go:linkname semrelease sync.runtime_Semrelease
func semrelease(s *uint32, handoff bool, skipframes int)
