package cli

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dstgo/dst/trace"
)

// runDiff compares two traces event by event, reading them side by side a
// frame at a time, so that its memory does not grow with their length. A
// trace cut short or damaged is named, and makes the exit code 1 even when
// its readable events agree with the other trace's: "the same events" of a
// trace that lost its end says nothing of the end.
func runDiff(e *env, args []string) int {
	c := lookup("diff")
	fs := c.flags(e)
	context := fs.Int("context", 3, "events shown before the difference")
	code := ExitOK
	if !c.parse(fs, args, 2, &code) {
		return code
	}
	var rs [2]*trace.Reader
	for i := range 2 {
		r, ok := open(e, "diff", fs.Arg(i))
		if !ok {
			return ExitUsage
		}
		defer r.Close()
		rs[i] = r
	}
	p := newProgress(e, "diff", max(rs[0].Len(), rs[1].Len()))
	d, err := trace.CompareReaders(rs[0], rs[1], p.at)
	p.done()
	if err != nil {
		var ce *trace.CompareError
		side := 0
		if errors.As(err, &ce) {
			if ce.Observed {
				side = 1
			}
			fmt.Fprintf(e.stdout, "the traces have the same first %d events; event %d of %s cannot be read\n",
				ce.Index, eventNumber(ce.Index), fs.Arg(side))
		}
		fmt.Fprintf(e.stderr, "dstreplay diff: %s: %v\n", fs.Arg(side), err)
		return ExitFailure
	}
	code = diffDamage(e, fs.Arg(0), fs.Arg(1), rs, d)
	if d == nil {
		return code
	}
	const w = 58
	fmt.Fprintf(e.stdout, "first difference at event %d\n\n%-*s | %s\n", eventNumber(d.Index), w, fs.Arg(0), fs.Arg(1))
	fmt.Fprintf(e.stdout, "%s-+-%s\n", strings.Repeat("-", w), strings.Repeat("-", w))
	for i := max(d.Index-int64(*context), 0); i < d.Index; i++ {
		ev, err := rs[0].Event(i)
		if err != nil { // read once already: only a file changed meanwhile
			fmt.Fprintf(e.stderr, "dstreplay diff: %s: %v\n", fs.Arg(0), err)
			return ExitFailure
		}
		l := clip(termSafe(ev.Format(d.Labels)), w)
		fmt.Fprintf(e.stdout, "%-*s | %s\n", w, l, l)
	}
	side := func(ev *trace.Event) string {
		if ev == nil {
			if rs[0].Truncated != nil || rs[1].Truncated != nil {
				return "(no more readable events)"
			}
			return "(the run ended)"
		}
		return clip(termSafe(ev.Format(d.Labels)), w)
	}
	fmt.Fprintf(e.stdout, "%-*s > %s\n", w, side(d.Expected), side(d.Observed))
	return ExitFailure
}

// diffDamage says, when the events the two traces can read do not differ
// (d is nil), that they are the same or how their ends differ; and, in any
// case, which of them is cut short or damaged. It returns the exit code
// that makes.
func diffDamage(e *env, a, b string, rs [2]*trace.Reader, d *trace.Divergence) int {
	code := ExitOK
	var cut []string
	for i, path := range []string{a, b} {
		r := rs[i]
		if r.Truncated == nil || i == 1 && b == a {
			continue
		}
		code = ExitFailure
		cut = append(cut, path)
		fmt.Fprintf(e.stderr, "dstreplay diff: %s: %v\n", path, r.Truncated)
	}
	if d != nil {
		if len(cut) > 0 {
			fmt.Fprintf(e.stdout, "damaged or cut short: %s; compared: the events they can read\n", strings.Join(cut, ", "))
		}
		return ExitFailure
	}
	n := rs[0].Len()
	switch {
	case len(cut) > 0:
		var what []string
		for i, path := range []string{a, b} {
			if r := rs[i]; r.Truncated != nil && (i == 0 || b != a) {
				what = append(what, fmt.Sprintf("%s is damaged or cut short after its event %d (%d bytes unreadable)", path, r.Len(), r.Missing))
			}
		}
		fmt.Fprintf(e.stdout, "the traces have the same first %d events, but %s: what came after is unknown\n", n, strings.Join(what, ", and "))
	case rs[0].Outcome != nil && rs[1].Outcome != nil && trace.CompareEnds(n, rs[0].Outcome.End(), rs[1].Outcome.End()) != nil:
		fmt.Fprintf(e.stdout, "the traces have the same %d events, but end differently:\n  %s: %s\n  %s: %s\n",
			n, a, termSafe(rs[0].Outcome.End()), b, termSafe(rs[1].Outcome.End()))
		return ExitFailure
	default:
		fmt.Fprintf(e.stdout, "the traces have the same %d events\n", n)
	}
	return code
}

// clip cuts s to n characters (fmt pads by characters too), the last one
// an ellipsis when it is cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	k, i := 0, 0
	for i = range s {
		if k == n-1 {
			break
		}
		k++
	}
	return s[:i] + "…"
}
