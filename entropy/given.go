package entropy

// Given values: what a run observed rather than drew, such as how long a
// goroutine sat in a system call. A fresh Source records them as they come
// (Given); a replay serves them back from the recording (Recorded), so that
// the run does not observe them again and replays exactly. They are
// recorded as Uint64 values of their uid.

// Given records v, a value the caller observed instead of drawing it, under
// the key's uid, for a replay to serve through Recorded.
//
//go:norace
func (k Keyed) Given(v uint64) {
	k.s.record(MakeUID(KindUint, k.key), v)
}

// Recorded returns, when the Source replays a recording, the next value
// recorded for the key's uid (by Given or by Uint64), and records it again.
// ok is false, and nothing is recorded, when there is none: the Source is
// fresh, or the recording has no value left for the uid. A value missing
// is not counted as a fallback: Given values come and go with what the run
// observes.
//
//go:norace
func (k Keyed) Recorded() (v uint64, ok bool) {
	s := k.s
	if !s.replaying {
		return 0, false
	}
	uid := MakeUID(KindUint, k.key)
	q := s.find(uid)
	if q.next == q.end {
		return 0, false
	}
	v = s.items[q.next].v
	q.next++
	s.record(uid, v)
	return v, true
}

// Fresh reports whether the Source serves a draw with no recorded value
// left freshly (New, FromBytes, ReplayThen), not by fallback (Replay): a
// Source that may observe Given values instead of replaying them.
//
//go:norace
func (s *Source) Fresh() bool { return !s.replaying || s.then }
