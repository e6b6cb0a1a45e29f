package cli

import (
	"fmt"
	"strings"

	"github.com/dstgo/dst/trace"
)

func runDiff(e *env, args []string) int {
	c := lookup("diff")
	fs := c.flags(e)
	context := fs.Int("context", 3, "events shown before the difference")
	code := ExitOK
	if !c.parse(fs, args, 2, &code) {
		return code
	}
	var evs [2][]trace.Event
	for i := range 2 {
		r, ok := open(e, "diff", fs.Arg(i))
		if !ok {
			return ExitUsage
		}
		all, err := r.ReadAll()
		r.Close()
		if err != nil {
			fmt.Fprintf(e.stderr, "dstreplay diff: %s: %v\n", fs.Arg(i), err)
			return ExitUsage
		}
		evs[i] = all
	}
	d := trace.Compare(evs[0], evs[1])
	if d == nil {
		fmt.Fprintf(e.stdout, "the traces have the same %d events\n", len(evs[0]))
		return ExitOK
	}
	const w = 58
	fmt.Fprintf(e.stdout, "first difference at event %d\n\n%-*s | %s\n", eventNumber(d.Index), w, fs.Arg(0), fs.Arg(1))
	fmt.Fprintf(e.stdout, "%s-+-%s\n", strings.Repeat("-", w), strings.Repeat("-", w))
	for i := max(d.Index-int64(*context), 0); i < d.Index; i++ {
		l := clip(evs[0][i].Format(d.Labels), w)
		fmt.Fprintf(e.stdout, "%-*s | %s\n", w, l, l)
	}
	side := func(ev *trace.Event) string {
		if ev == nil {
			return "(the run ended)"
		}
		return clip(ev.Format(d.Labels), w)
	}
	fmt.Fprintf(e.stdout, "%-*s > %s\n", w, side(d.Expected), side(d.Observed))
	return ExitFailure
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
