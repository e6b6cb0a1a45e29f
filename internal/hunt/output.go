package hunt

import (
	"bytes"
	"sync"
)

// tail keeps the last maxTail bytes of a worker's output, whole lines.
type tail struct {
	mu  sync.Mutex
	b   []byte
	cut bool
}

func (t *tail) add(line []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(append(t.b, line...), '\n')
	if len(t.b) > 2*maxTail {
		t.b = append(t.b[:0:0], t.b[len(t.b)-maxTail:]...)
		t.cut = true
	}
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, cut := t.b, t.cut
	if len(b) > maxTail {
		b, cut = b[len(b)-maxTail:], true
	}
	if cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:] // from the first whole line
		}
	}
	return bytes.Clone(b)
}

// lineWriter calls fn with each line written to it, without the newline;
// a line longer than maxLine is cut into pieces.
type lineWriter struct {
	buf []byte
	fn  func(line []byte)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	start := 0
	for {
		i := bytes.IndexByte(w.buf[start:], '\n')
		if i < 0 {
			break
		}
		w.fn(w.buf[start : start+i])
		start += i + 1
	}
	for len(w.buf)-start > maxLine {
		w.fn(w.buf[start : start+maxLine])
		start += maxLine
	}
	w.buf = append(w.buf[:0], w.buf[start:]...)
	return len(p), nil
}

// flush passes on the last line if it had no newline.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.fn(w.buf)
		w.buf = w.buf[:0]
	}
}
