// Package entropy is the single source of every choice made during a
// deterministic test run: which goroutine runs next, which fault is
// injected, which test value is drawn. It is an entropy buffer in the spirit
// of Hypothesis: every value served is recorded under a uid, so a run can be
// replayed exactly and a fuzz loop can mutate the values of one uid without
// shifting those of the others.
//
// # Terms
//
//   - Source: serves the values of one run (New, Replay). Not safe for
//     concurrent use; the scheduler serializes its callers.
//   - Draw: one request for a value: Uint64, Int64, IntRange, Bool, Choice,
//     Weighted, Bytes or Stop.
//   - Key: identifies a draw site, 56 bits. Source.At(key) draws under an
//     explicit key (the cheap path the scheduler uses); the methods on Source
//     itself use the key of the calling site: KeyOf(package + "/" + file
//     base name + ":" + line), not the function's name, which for a closure
//     depends on where the compiler inlined the function that made it.
//   - UID: Kind<<56 | Key, the stream a value belongs to. The kind keeps the
//     same key used by two draw methods apart.
//   - Recording: the values served, in request order, each as its uid and a
//     canonical value V; bytes values also put their bytes in Data.
//   - Fresh: a Source from New(seed) draws from a seeded xoshiro256**
//     generator; the same seed and the same draws give the same recording.
//   - Replay: a Source from Replay(rec) serves rec per uid: a draw takes the
//     next unserved value recorded for its own uid.
//   - Fallback: what a replay serves when its uid has no value left (or never
//     appeared): Uint64 0, Int64 0, IntRange lo, Bool false, Choice 0,
//     Weighted the first index with positive weight, Bytes zeros, Stop yes.
//     Source.Fallbacks counts them; they let a recording of a slightly
//     different or mutated program still replay.
//   - Handle: a one-line printable form of a recording, "e2" followed by
//     base64 of its bytes and their CRC-32 (Recording.Handle, ParseHandle),
//     so that a handle damaged in copying is refused, not replayed as
//     another recording.
package entropy
