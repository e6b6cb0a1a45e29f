package cli

import (
	"io"
	"unicode/utf8"

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
// forgets. Each Write is escaped on its own (fmt.Fprintf writes each
// call's output at once, whole characters), but for a stream's
// (newTermSafeStream: a child's output, which arrives in pipe-sized
// chunks): there a UTF-8 character split across two Writes is held until
// the next, and Flush writes what is held at the end, escaped.
type termSafeWriter struct {
	w       io.Writer
	stream  bool
	pending []byte // the start of a character the last Write cut
}

func newTermSafeWriter(w io.Writer) *termSafeWriter { return &termSafeWriter{w: w} }

func newTermSafeStream(w io.Writer) *termSafeWriter { return &termSafeWriter{w: w, stream: true} }

func (t *termSafeWriter) Write(p []byte) (int, error) {
	b := append(t.pending, p...)
	t.pending = nil
	// Hold back the last character if it is the start of one and cut.
	for i := len(b) - 1; t.stream && i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				t.pending, b = append([]byte(nil), b[i:]...), b[:i]
			}
			break
		}
	}
	if _, err := io.WriteString(t.w, termSafeText(string(b))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what a cut character left held.
func (t *termSafeWriter) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	s := termSafeText(string(t.pending))
	t.pending = nil
	_, err := io.WriteString(t.w, s)
	return err
}
