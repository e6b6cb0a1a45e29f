package trace

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the trace in its text form: the header as "# key: value"
// lines, one line per event, then the outcome. A truncated trace says how
// it ends.
func (r *Reader) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, kv := range r.Header.pairs() {
		if kv[1] != "" {
			fmt.Fprintf(bw, "# %s: %s\n", kv[0], kv[1])
		}
	}
	fmt.Fprintf(bw, "# events: %d\n", r.Len())
	labels := map[int32]string{}
	var err error
	r.All(func(_ int64, e Event, e2 error) bool {
		if e2 != nil {
			err = e2
			return false
		}
		if e.Kind == KindObject {
			labels[e.Obj] = ObjectName(e.Text, e.Obj)
		}
		fmt.Fprintln(bw, e.Format(labels))
		return true
	})
	switch {
	case err != nil:
		fmt.Fprintf(bw, "# error: %v\n", err)
	case r.Outcome != nil:
		fmt.Fprintf(bw, "# outcome: %s\n", r.Outcome.Kind)
		if r.Outcome.Message != "" {
			fmt.Fprintf(bw, "# message: %s\n", firstLine(r.Outcome.Message))
		}
		fmt.Fprintf(bw, "# steps: %d, switches: %d, goroutines: %d\n", r.Outcome.Steps, r.Outcome.Switches, r.Outcome.Goroutines)
	}
	if r.Truncated != nil {
		fmt.Fprintf(bw, "# truncated: %v\n", r.Truncated)
	}
	if e := bw.Flush(); err == nil {
		err = e
	}
	return err
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
