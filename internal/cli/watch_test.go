package cli

import (
	"bytes"
	"io"
	"testing"
)

// TestWatch: watch finds its needle split across writes, and passes every
// byte on.
func TestWatch(t *testing.T) {
	var out bytes.Buffer
	w := &watch{w: &out, needle: "no required module provides package x/"}
	for _, s := range []string{"go: finding\nmain.go:3: no requ", "ired module provides pa", "ckage x/sched; to add it\n"} {
		w.Write([]byte(s))
	}
	if !w.seen || out.String() != "go: finding\nmain.go:3: no required module provides package x/sched; to add it\n" {
		t.Errorf("seen %v, passed on %q", w.seen, out.String())
	}
	w2 := &watch{w: io.Discard, needle: "abc"}
	w2.Write([]byte("ab"))
	w2.Write([]byte("xc"))
	if w2.seen {
		t.Error("a needle that was not written was seen")
	}
}
