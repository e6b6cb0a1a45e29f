package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
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
// What is escaped: the C0 control characters (U+0000-U+001F), DEL (U+007F),
// the C1 control characters (U+0080-U+009F), and bytes that are not UTF-8
// (a lone 0x9b is CSI to a terminal that reads 8-bit controls). An escaped
// character reads as in a Go string: \r, \t, \x1b, \u009b; a byte that is
// not UTF-8 as \xff. Printable text, the backslash included, is unchanged.

// termSafe returns s for a terminal, every control character escaped,
// newlines and tabs too: s is one field or one line, and a newline in it
// would forge a line of the tool's own.
func termSafe(s string) string { return escapeControls(s, false) }

// termSafeText returns s, text of several lines, for a terminal: as
// termSafe, but newlines and tabs, its own layout, are kept. A carriage
// return is escaped, alone or before a newline.
func termSafeText(s string) string { return escapeControls(s, true) }

// escapeControls escapes s's control characters and bytes that are not
// UTF-8, keeping \n and \t if layout.
func escapeControls(s string, layout bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !mustEscape(r, n, layout) {
			i += n
			continue
		}
		break
	}
	if i == len(s) {
		return s // the common case: nothing to escape, no copy
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if mustEscape(r, n, layout) {
			writeEscaped(&b, s[i], r, n)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// mustEscape reports whether rune r, decoded from n bytes (utf8.RuneError
// of 1 byte: a byte that is not UTF-8), is escaped.
func mustEscape(r rune, n int, layout bool) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r == '\n' || r == '\t':
		return !layout
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	}
	return false
}

func writeEscaped(b *strings.Builder, first byte, r rune, n int) {
	switch {
	case r == utf8.RuneError && n == 1:
		fmt.Fprintf(b, `\x%02x`, first)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\a':
		b.WriteString(`\a`)
	case r < 0x80:
		fmt.Fprintf(b, `\x%02x`, r)
	default:
		fmt.Fprintf(b, `\u%04x`, r)
	}
}

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
