package event

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape returns s with its control characters and the bytes that are not
// UTF-8 escaped, keeping newlines and tabs if layout: what a terminal
// reads of a trace's strings, which are untrusted (a trace may hold escape
// sequences that clear the screen, set the window's title, make links, or
// overwrite a line with a carriage return). Escaped are the C0 control
// characters (U+0000-U+001F), DEL (U+007F), the C1 control characters
// (U+0080-U+009F), and bytes that are not UTF-8 (a lone 0x9b is CSI to a
// terminal that reads 8-bit controls). An escaped character reads as in a
// Go string: \r, \t, \x1b, \u009b; a byte that is not UTF-8 as \xff.
// Printable text, the backslash included, is unchanged, so escaping twice
// is escaping once. Without layout, s is one field or one line, and a
// newline in it would forge a line of the tool's own; with it, s is text of
// several lines, whose carriage returns are still escaped.
func Escape(s string, layout bool) string {
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

// MaxString is the longest string an event holds, in bytes: a longer text
// (a failure's message, a panic's value, a log line) is cut by Clip when
// the event is recorded, and again when a trace is read. A trace is
// untrusted input, and a string of its frame's table may be named by every
// event of the frame: 4096 events printing one string of 250 MB each was
// a terabyte of output from a trace of 16 KB. A failure's whole report is
// kept apart, in the trace's outcome.
const MaxString = 4096

// Clip returns s, or, when s is longer than MaxString, its first bytes (a
// whole number of UTF-8 characters) with a note of how long it was, the
// whole at most MaxString bytes: Clip(Clip(s)) is Clip(s).
func Clip(s string) string {
	if len(s) <= MaxString {
		return s
	}
	return clipped(s[:MaxString], len(s))
}

// clipBytes is Clip of b, without a copy of what it cuts.
func clipBytes(b []byte) string {
	if len(b) <= MaxString {
		return string(b)
	}
	return clipped(string(b[:MaxString]), len(b))
}

// clipped is the clip of a string of n bytes, whose first MaxString bytes
// are head.
func clipped(head string, n int) string {
	note := fmt.Sprintf("… [cut: %d bytes in all]", n)
	cut := MaxString - len(note)
	for cut > 0 && !utf8.RuneStart(head[cut]) {
		cut--
	}
	return head[:cut] + note
}
