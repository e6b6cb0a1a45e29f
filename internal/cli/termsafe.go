package cli

import (
	"io"

	"github.com/dstgo/dst/internal/event"
)

// A trace is untrusted input: its strings (labels, object names, messages,
// failure reports, the header's test, package and options, the files and
// functions of locations) may hold terminal escape sequences that clear the
// screen, set the window's title, make hyperlinks, or overwrite a line with
// a carriage return. Every terminal output of a string from a trace goes
// through termSafe (one line: a field, an event's line) or termSafeText
// (text of several lines: a failure report), or is written through
// termSafeWriter.
//
// What is escaped is what event.Escape escapes.

// termSafe returns s for a terminal, every control character escaped,
// newlines and tabs too: s is one field or one line, and a newline in it
// would forge a line of the tool's own.
func termSafe(s string) string { return event.Escape(s, false) }

// termSafeText returns s, text of several lines, for a terminal: as
// termSafe, but newlines and tabs, its own layout, are kept. A carriage
// return is escaped, alone or before a newline.
func termSafeText(s string) string { return event.Escape(s, true) }

// termSafeWriter writes to w with every control character escaped but
// newlines and tabs (termSafeText): put around a command's output made of
// a trace's strings, it is what makes the output safe whatever a format
// forgets. Each Write is escaped on its own: a UTF-8 character split across
// two Writes reads as the bytes it is split into, escaped (fmt.Fprintf
// writes each call's output at once, so it does not split one).
type termSafeWriter struct{ w io.Writer }

func newTermSafeWriter(w io.Writer) io.Writer { return &termSafeWriter{w: w} }

func (t *termSafeWriter) Write(p []byte) (int, error) {
	s := termSafeText(string(p))
	if _, err := io.WriteString(t.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
