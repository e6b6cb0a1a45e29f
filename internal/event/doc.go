// Package event is a run's events in memory: their kinds, the spec table
// that says which fields each kind carries (and so drives the encoder, the
// decoder and the text form), and the Buffer the engine records into, in
// the raw frame encoding.
//
// Package trace puts these frames into files, compressed with zstd, with a
// header, an outcome and an index, and re-exports the names a user sees
// (trace.Event, trace.Kind, trace.Buffer). The split keeps compression out
// of every binary that links the scheduler: the shims a production program
// links reach the engine, and the engine reaches this package, never
// trace.
package event
