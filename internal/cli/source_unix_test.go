//go:build unix

package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Inside the trace's own module, a Go file's source is shown; a symlink
// out of the module, a file that is not Go source (a key), a directory, a
// FIFO and a socket are not, though named inside it.
func TestSourceInsideTheModule(t *testing.T) {
	const marker = "SECRET-c41d"
	secret := secretFile(t, "secret.go", marker)
	mod := module(t, map[string]string{
		"ok.go":       "package m\n\nfunc f() { /* OK-LINE-3 */ }\n",
		"id_ed25519":  marker + " private key\n" + marker + "\n" + marker + "\n",
		"dir.go/x.go": "package x\n",
	})
	link := filepath.Join(mod, "link.go")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(mod, "fifo.go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(mod, "sock.go")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix socket: %v", err)
	}
	defer l.Close()
	ok := filepath.Join(mod, "ok.go")
	key := filepath.Join(mod, "id_ed25519")
	dir := filepath.Join(mod, "dir.go")
	path := traceNaming(t, filepath.Join(mod, "testdata", "dst", "x.trace"), ok, link, key, dir, fifo, sock)

	var p page
	notHung(t, fifo, func() { p = htmlOf(t, path) })
	if !strings.Contains(p.src[ok][3], "OK-LINE-3") {
		t.Errorf("the page lacks the source of the module's own file: %v (%q)", p.src[ok], p.srcWhy[ok])
	}
	if strings.Contains(p.text, marker) {
		t.Error("the page holds the content of a file named through the module")
	}
	for f, want := range map[string]string{link: "symlink", key: "not a Go source file", dir: "directory", fifo: "FIFO", sock: "socket"} {
		if why := p.srcWhy[f]; !strings.HasPrefix(why, "source not available: ") || !strings.Contains(why, want) {
			t.Errorf("the page says of %s: %q; want that its source is not available: %s", filepath.Base(f), why, want)
		}
	}
	if pane := paneOf(t, path, 2); !strings.Contains(pane, "OK-LINE-3") {
		t.Errorf("the source pane lacks the module's own file:\n%s", pane)
	}
	for i, f := range []string{link, key, dir, fifo, sock} {
		var pane string
		notHung(t, fifo, func() { pane = paneOf(t, path, int64(2+3*(i+1))) })
		if strings.Contains(pane, marker) || !strings.Contains(pane, "source not available: ") {
			t.Errorf("the source pane at %s:\n%s", filepath.Base(f), pane)
		}
	}
}

// A trace naming /dev/zero, or a FIFO, makes a small page promptly, and a
// pane that says the source is not available. Regression: html and the
// stepper read /dev/zero until memory ran out, and hung opening a FIFO.
func TestSourceDevicesAndFIFOs(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	files := []string{"/dev/zero", fifo}
	path := traceNaming(t, filepath.Join(t.TempDir(), "x.trace"), files...)
	var p page
	notHung(t, fifo, func() { p = htmlOf(t, path) })
	if len(p.text) > 1<<20 {
		t.Errorf("the page is %d bytes", len(p.text))
	}
	for _, f := range files {
		if why := p.srcWhy[f]; !strings.HasPrefix(why, "source not available: ") {
			t.Errorf("the page says of %s: %q", f, why)
		}
	}
	for i, f := range files {
		var pane string
		notHung(t, fifo, func() { pane = paneOf(t, path, int64(2+3*i)) })
		if !strings.Contains(pane, "source not available: ") || len(pane) > 4096 {
			t.Errorf("the source pane at %s:\n%s", f, pane)
		}
	}
}

// notHung runs f, which must return: if it is still blocked after a
// minute (opening the FIFO fifo, as the code before the fix did), the
// FIFO is opened for writing, which lets it go, and the test fails.
func notHung(t *testing.T, fifo string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return
	case <-time.After(time.Minute):
	}
	if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	<-done
	t.Fatalf("blocked on the FIFO %s that the trace names", fifo)
}
