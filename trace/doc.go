// Package trace is the file format of a run's events: what the scheduler
// records, what replay re-executes against, and what dstreplay shows.
//
// A trace holds a Header (the test, the Go version and platform, the
// strategy and every option that shaped the run, and the entropy
// recording that replays it), the run's Events in order, and an Outcome
// (pass, or the failure's kind, message and report). Each Event has a step,
// a goroutine, a virtual time and a Kind; the spec table (SpecOf) says
// which other fields a kind carries, and drives the writer, the reader and
// the text form alike.
//
// The events are kept in independent zstd-compressed frames of at most
// FrameEvents events, with an index at the end, so a Reader reaches any
// event by decoding one frame (Reader.Event, Reader.SeekStep), and a Writer
// streams a run to disk with one frame in memory. Frames grow with the
// trace (FrameSize), so that a file cut short keeps most of its events,
// short or long. Every section ends with a
// CRC-32: a damaged file is an error that names the section and its offset
// (ErrCorrupt), a file cut short is read up to its last complete frame and
// says how much is missing (Reader.Truncated, ErrTruncated), and a file of
// another version says so (ErrVersion). The file layout is described in
// file.go.
//
// Buffer collects a run's events in memory, as the engine records them;
// Write writes a whole trace, and Reader.WriteText the text form, one line
// per event, used by golden tests and by people. Compare and CompareEnds
// find the first difference between a recording and its re-execution.
package trace
