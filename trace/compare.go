package trace

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dstgo/dst/internal/event"
)

// Divergence is the first difference between a recorded run and its
// re-execution.
type Divergence struct {
	Index    int64  // the event's index
	Expected *Event // nil: the re-execution went on past the recording's end
	Observed *Event // nil: it ended before
	Labels   map[int32]string
	// ExpectedEnd and ObservedEnd, when set, say that every event agreed
	// (Index is their number) but the runs ended differently: "pass", or
	// "kind: message" (Outcome.End).
	ExpectedEnd, ObservedEnd string
}

// LikelyCauses lists what usually makes a re-execution diverge.
const LikelyCauses = "likely causes: the code changed since the trace was recorded; or the test depends on something the scheduler does not control: map iteration order, time.Now or the time package instead of vtime, the global math/rand, goroutines started with a plain go statement, blocking outside the scheduler's shims"

func (d *Divergence) Error() string {
	var b strings.Builder
	if d.ExpectedEnd != "" || d.ObservedEnd != "" {
		fmt.Fprintf(&b, "trace: the run made the %d recorded events, but ended differently:\n  expected: %s\n  observed: %s\n%s",
			d.Index, event.Escape(d.ExpectedEnd, false), event.Escape(d.ObservedEnd, false), LikelyCauses)
		return b.String()
	}
	fmt.Fprintf(&b, "trace: the run diverged from the recording at event %d", d.Index)
	if d.Expected != nil {
		fmt.Fprintf(&b, " (step %d)", d.Expected.Step)
	}
	fmt.Fprintf(&b, ":\n  expected: %s", d.describe(d.Expected))
	fmt.Fprintf(&b, "\n  observed: %s", d.describe(d.Observed))
	fmt.Fprintf(&b, "\n%s", LikelyCauses)
	return b.String()
}

func (d *Divergence) describe(e *Event) string {
	if e == nil {
		return "nothing (the run ended)"
	}
	s := e.Format(d.Labels)
	if e.Loc.File == "" {
		return s
	}
	return s + "\n            " + event.Escape(filepath.Base(e.Loc.File), false) + ":" + fmt.Sprint(e.Loc.Line)
}

// Compare returns the first divergence between the recorded events want and
// the observed events got, or nil when they are the same, source locations
// aside.
func Compare(want, got []Event) *Divergence {
	labels := map[int32]string{}
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g *Event
		if i < len(want) {
			w = &want[i]
			if w.Kind == KindObject {
				labels[w.Obj] = ObjectName(w.Text, w.Obj)
			}
		}
		if i < len(got) {
			g = &got[i]
		}
		if w == nil || g == nil || !w.Equal(g) {
			return &Divergence{Index: int64(i), Expected: w, Observed: g, Labels: labels}
		}
	}
	return nil
}

// CompareReaders is Compare over the events of two traces, read side by side
// a frame at a time: it holds one frame of each, whatever their length.
// It compares the events each reader can read (Len); a trace cut short
// says so in its Truncated, which the caller reports. progress, when not
// nil, is called with the number of events compared so far, every
// ProgressEvery events. A read error stops it: the error is a
// *CompareError, which says which trace failed.
func CompareReaders(want, got *Reader, progress func(n int64)) (*Divergence, error) {
	labels := map[int32]string{}
	for i := int64(0); i < max(want.Len(), got.Len()); i++ {
		if progress != nil && i%ProgressEvery == 0 && i > 0 {
			progress(i)
		}
		var w, g Event
		hasW, hasG := i < want.Len(), i < got.Len()
		var err error
		if hasW {
			if w, err = want.Event(i); err != nil {
				return nil, &CompareError{Index: i, Err: err}
			}
			if w.Kind == KindObject {
				labels[w.Obj] = ObjectName(w.Text, w.Obj)
			}
		}
		if hasG {
			if g, err = got.Event(i); err != nil {
				return nil, &CompareError{Observed: true, Index: i, Err: err}
			}
		}
		if hasW && hasG && w.Equal(&g) {
			continue
		}
		d := &Divergence{Index: i, Labels: labels}
		if hasW {
			e := w
			d.Expected = &e
		}
		if hasG {
			e := g
			d.Observed = &e
		}
		return d, nil
	}
	return nil, nil
}

// ProgressEvery is how often, in events, CompareReaders reports progress.
const ProgressEvery = 1 << 16

// A CompareError is a read error that stopped CompareReaders: the events
// before Index agree.
type CompareError struct {
	Observed bool  // the error is got's, not want's
	Index    int64 // the event that could not be read
	Err      error
}

func (e *CompareError) Error() string { return e.Err.Error() }
func (e *CompareError) Unwrap() error { return e.Err }

// CompareEnds returns a divergence when two runs whose n events agree ended
// differently: want and got are what Outcome.End says of each.
func CompareEnds(n int64, want, got string) *Divergence {
	// A failure reported from a line that moved is the same failure.
	if want == got || sourceLine.ReplaceAllString(want, ".go:N") == sourceLine.ReplaceAllString(got, ".go:N") {
		return nil
	}
	// What a data race's message says of it comes from the race
	// detector's report, which the process may not have: the detector
	// reports a race between two places once per process, and the run
	// reads it only from GORACE's log_path. The race is the same.
	if race := "data race: "; strings.HasPrefix(want, race) && strings.HasPrefix(got, race) {
		return nil
	}
	return &Divergence{Index: n, ExpectedEnd: want, ObservedEnd: got}
}

var sourceLine = regexp.MustCompile(`\.go:\d+`)

// End is how the run ended in one line: "pass", or the failure's kind and
// message.
func (o *Outcome) End() string {
	if o.Kind == "pass" || o.Message == "" {
		return o.Kind
	}
	return o.Kind + ": " + o.Message
}

// ReadAll returns every event of r, all in memory: a command that can
// should read with All or Event instead. The events are counted by the
// frames' headers before any is decoded, and a frame of a few bytes may
// say it holds thousands (zstd makes little of a long repetition): the
// slice grows as they are decoded, from room for a few frames' worth.
func (r *Reader) ReadAll() ([]Event, error) {
	evs := make([]Event, 0, min(r.Len(), 16*FrameEvents))
	var err error
	r.All(func(_ int64, e Event, e2 error) bool {
		if e2 != nil {
			err = e2
			return false
		}
		evs = append(evs, e)
		return true
	})
	return evs, err
}
