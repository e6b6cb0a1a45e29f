package cli

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

func TestTermSafe(t *testing.T) {
	for _, c := range []struct{ in, line, text string }{
		{"plain Mutex#3.Lock at a.go:7", "plain Mutex#3.Lock at a.go:7", "plain Mutex#3.Lock at a.go:7"},
		{"\x1b[2J\x1b]0;title\a", `\x1b[2J\x1b]0;title\a`, `\x1b[2J\x1b]0;title\a`},
		{"ok\rFAKE", `ok\rFAKE`, `ok\rFAKE`},
		{"a\r\nb", `a\r\nb`, "a\\r\nb"},
		{"a\n\tb", `a\n\tb`, "a\n\tb"},
		{"\u009b31m\u0085", `\u009b31m\u0085`, `\u009b31m\u0085`},
		{"x\x9by\x7f", `x\x9by\x7f`, `x\x9by\x7f`},
		{"\x00\x08", `\x00\x08`, `\x00\x08`},
		{"héllo → 世界 \\x1b", "héllo → 世界 \\x1b", "héllo → 世界 \\x1b"},
	} {
		if got := termSafe(c.in); got != c.line {
			t.Errorf("termSafe(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := termSafeText(c.in); got != c.text {
			t.Errorf("termSafeText(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

func TestTermSafeWriter(t *testing.T) {
	var b bytes.Buffer
	w := newTermSafeWriter(&b)
	in := "line one\n\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n\ttab\r\n"
	n, err := w.Write([]byte(in))
	if err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(in))
	}
	assertTermSafe(t, b.String())
	if want := "line one\n\\x1b]8;;http://x\\x1b\\link\\x1b]8;;\\x1b\\\n\ttab\\r\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

// assertTermSafe fails t if out holds what a terminal acts on: ESC, BEL,
// a carriage return, any other C0 control but newline and tab, DEL, or a
// C1 control (as a character or a raw byte).
func assertTermSafe(t *testing.T, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("output holds bytes that are not UTF-8 (a raw C1 control?): %q", out[:min(len(out), 400)])
	}
	for i, r := range out {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
			t.Fatalf("output holds control character %U at byte %d: %q", r, i, excerpt(out, i))
		}
	}
}

func excerpt(s string, i int) string {
	return s[max(i-40, 0):min(i+40, len(s))]
}
