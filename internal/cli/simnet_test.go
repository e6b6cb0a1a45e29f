package cli_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// webModule is a module whose handler loses updates: it reads the count
// under the lock, lets go of it while it reads the request's body, and
// writes the count it read plus one. Two requests at once count one when
// net/http's goroutines interleave there. Its fixed twin holds nothing
// across the read.
var webModule = map[string]string{
	"counter.go": `package counter

import (
	"io"
	"net/http"
	"sync"
)

type Lossy struct {
	mu sync.Mutex
	N  int
}

func (s *Lossy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v := s.N
	s.mu.Unlock()
	io.ReadAll(r.Body)
	s.mu.Lock()
	s.N = v + 1
	s.mu.Unlock()
}

type Fixed struct {
	mu sync.Mutex
	N  int
}

func (s *Fixed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.ReadAll(r.Body)
	s.mu.Lock()
	s.N++
	s.mu.Unlock()
}
`,
	"counter_test.go": `package counter

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func post(t *testing.T, h http.Handler, n int) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(srv.URL, "text/plain", strings.NewReader("x"))
			if err != nil {
				t.Error(err)
				return
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
		}()
	}
	wg.Wait()
}

func TestLossy(t *testing.T) {
	s := &Lossy{}
	post(t, s, 2)
	if s.N != 2 {
		t.Fatalf("count = %d, want 2", s.N)
	}
}

func TestFixed(t *testing.T) {
	s := &Fixed{}
	post(t, s, 3)
	if s.N != 3 {
		t.Fatalf("count = %d, want 3", s.N)
	}
}
`,
}

// TestWrapRunsHTTPOnTheScheduler: under -wrap (by default), an httptest
// server's goroutines and the client's are the run's, over the simulated
// network: a lost update between two requests is found, its schedule runs
// net/http's goroutines, its saved trace fails again in a new process
// (there with the default named: -rewrite=net/http/...), and the fixed twin
// passes. With -nativehttp, the note says what ran natively.
func TestWrapRunsHTTPOnTheScheduler(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own and rewrites net/http")
	}
	m := newOwnModule(t, webModule)
	out, err := m.sh("go tool dstreplay test -wrap -nativehttp . -count=1 -v -run '^TestFixed$' -dst.iters=3 -dst.dir=off")
	if err != nil || !strings.Contains(out, "run natively") || !strings.Contains(out, "unless -nativehttp") {
		t.Fatalf("with -nativehttp: %v; want a pass that says httptest runs natively and why\n%s", err, out)
	}
	out, err = m.sh("go tool dstreplay test -wrap . -count=1 -run '^TestLossy$' -dst.iters=2000")
	if err == nil {
		t.Fatalf("the lost update was not found:\n%s", out)
	}
	if !strings.Contains(out, "count = 1, want 2") {
		t.Errorf("the report does not say the count:\n%s", out)
	}
	// The test's body and its two clients, and net/http's: the server's
	// accept loop, a connection and its background read per request, and
	// per client connection a read loop and a write loop.
	if m := regexp.MustCompile(`, (\d+) goroutines\)`).FindStringSubmatch(out); m == nil || len(m[1]) < 2 {
		t.Errorf("the failing schedule does not run net/http's goroutines (want 10 or more):\n%s", out)
	}
	if strings.Contains(out, "run natively") {
		t.Errorf("the report says something ran natively:\n%s", out)
	}
	_, rest, ok := strings.Cut(out, "-dst.trace=")
	saved, _, _ := strings.Cut(rest, "\n")
	if !ok || saved == "" {
		t.Fatalf("no saved trace in:\n%s", out)
	}
	out, err = m.sh("go tool dstreplay test -wrap -rewrite=net/http/... . -count=1 -run '^TestLossy$' -dst.trace=" + saved)
	if err == nil || !strings.Contains(out, "count = 1, want 2") || strings.Contains(out, "diverged") {
		t.Errorf("the saved trace, replayed in a new process: %v; want the same failure, no divergence\n%s", err, out)
	}
	m.wrapPasses(t, "the fixed twin", 1000, "-run '^TestFixed$'")
}

// TestWrapTLS: an httptest TLS server and its client under -wrap, two
// requests at once: crypto/tls is rewritten with net/http, so its locks
// are the scheduler's and the goroutine that closes a connection when a
// handshake's context ends is the run's. Regression: with crypto/tls
// native, that goroutine called the simulated connection's Close from
// outside the run, a misuse that failed the test.
func TestWrapTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own and rewrites net/http and crypto/tls")
	}
	m := newOwnModule(t, map[string]string{
		"tls_test.go": `package tlsmod

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }))
	defer srv.Close()
	c := srv.Client()
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Get(srv.URL)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if b, _ := io.ReadAll(resp.Body); string(b) != "hi" {
				t.Errorf("got %q", b)
			}
		}()
	}
	wg.Wait()
}
`,
	})
	m.wrapPasses(t, "TLS under -wrap", 300, "-dst.dir=off")
}

// TestWrapRPC: a net/rpc server and client under -wrap: net/rpc is
// rewritten with net/http, so its dial reaches the test's simulated
// listener and its client's reading goroutine is the run's. Regression
// (found on asaskevich/EventBus): net/rpc, native, dialed the real
// network, where nothing listened, and was refused.
func TestWrapRPC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own and rewrites net/http and net/rpc")
	}
	m := newOwnModule(t, map[string]string{
		"rpc_test.go": `package rpcmod

import (
	"net"
	"net/rpc"
	"testing"
)

type Echo struct{}

func (Echo) Twice(a int, r *int) error { *r = 2 * a; return nil }

func TestRPC(t *testing.T) {
	s := rpc.NewServer()
	if err := s.Register(Echo{}); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go s.Accept(l)
	c, err := rpc.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var r int
	if err := c.Call("Echo.Twice", 21, &r); err != nil || r != 42 {
		t.Fatalf("Echo.Twice(21) = %d, %v", r, err)
	}
}
`,
	})
	m.wrapPasses(t, "net/rpc under -wrap", 100, "-dst.dir=off")
}

// TestWrapPlainNet: a test of net.Listen and net.Dial alone, with no
// net/http in its build, runs over the simulated network under -wrap.
// Regression (found while checking the race detector's view of sockets):
// the network was simulated only where net/http was rewritten, so these
// ran natively, Accept blocked outside the scheduler, and the watchdog
// failed the test.
func TestWrapPlainNet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	m := newOwnModule(t, map[string]string{
		"echo_test.go": `package mine

import (
	"io"
	"net"
	"testing"
)

func TestEcho(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("ping"))
	b := make([]byte, 4)
	if _, err := io.ReadFull(c, b); err != nil || string(b) != "ping" {
		t.Fatalf("read %q, %v", b, err)
	}
}
`,
	})
	m.wrapPasses(t, "net.Listen and net.Dial under -wrap", 100, "-dst.dir=off")
}

// TestWrapGivesGoTypes: under -wrap, a simulated listener and its
// connections are Go's own *net.TCPListener and *net.TCPConn (package net
// has the rewrite's hooks), so that code asserting them, as echo's
// newListener does to set keep-alives, serves HTTP on the simulated
// network. Regression: the listener was simnet's, and such code panicked,
// 12 false reds on echo's suite.
func TestWrapGivesGoTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	m := newOwnModule(t, map[string]string{
		"listen.go": `package mine

import (
	"net"
	"time"
)

// keepAlive is echo's listener: Go's TCP listener, with keep-alives on
// every connection it accepts.
type keepAlive struct{ *net.TCPListener }

func (l keepAlive) Accept() (net.Conn, error) {
	c, err := l.AcceptTCP()
	if err != nil {
		return nil, err
	}
	if err := c.SetKeepAlive(true); err != nil {
		return nil, err
	}
	if err := c.SetKeepAlivePeriod(3 * time.Minute); err != nil {
		return nil, err
	}
	return c, nil
}

func Listen() (net.Listener, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return keepAlive{l.(*net.TCPListener)}, nil
}
`,
		"listen_test.go": `package mine

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestServe(t *testing.T) {
	l, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); !ok {
			t.Error("the local address is not a TCP one")
		}
		io.WriteString(w, "hello")
	})}
	go srv.Serve(l)
	defer srv.Close()
	resp, err := http.Get("http://" + l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || string(b) != "hello" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// A listen that fails starts nothing outside the scheduler: no note.
func TestBadAddress(t *testing.T) {
	if _, err := net.Listen("tcp", "nope"); err == nil || !strings.Contains(err.Error(), "missing port in address") {
		t.Fatalf("got %v", err)
	}
}
`,
	})
	m.wrapPasses(t, "a server over *net.TCPListener under -wrap", 30, "-dst.dir=off")
}

// wrapPasses runs the module's tests under go tool dstreplay test -wrap
// -count=1 -v with n schedules and the further flags, and fails t, saying
// what ran, unless they pass all n with nothing run natively.
func (m *ownModule) wrapPasses(t *testing.T, what string, n int, flags ...string) {
	t.Helper()
	out, err := m.sh(fmt.Sprintf("go tool dstreplay test -wrap . -count=1 -v %s -dst.iters=%d", strings.Join(flags, " "), n))
	if want := fmt.Sprintf("%d schedules passed", n); err != nil || !strings.Contains(out, want) || strings.Contains(out, "natively") {
		t.Errorf("%s: %v; want %s, nothing native\n%s", what, err, want, out)
	}
}

// TestWrapPeerProcesses: a test that runs its own binary as a peer
// (groupcache's TestHTTPPool does) passes under -wrap. The peer, started
// inside a run, runs its test natively and serves on Go's own network; the
// parent's dial of the port it picked by listening on port 0 and closing
// goes there, and its polling sleeps pass in real time while the peer
// runs. Regression: the peer served on a simulated network of its own, the
// parent's dial was refused by its simulation, and its virtual clock ran
// through the test's deadline before the peer had started.
func TestWrapPeerProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	m := newOwnModule(t, map[string]string{
		"peer_test.go": `package mine

import (
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"
)

var peerAddr = flag.String("peer_addr", "", "where the peer listens: this process is the peer")

func TestPeer(t *testing.T) {
	if *peerAddr != "" {
		log.Fatal(http.ListenAndServe(*peerAddr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "peer "+os.Getenv("DST_STARTED_IN_RUN"))
		})))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeer$", "-peer_addr="+addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for tries := 0; ; tries++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if tries == 200 {
			t.Fatalf("the peer never listened: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || string(b) != "peer 1" {
		t.Fatalf("read %q, %v", b, err)
	}
}
`,
	})
	out, err := m.sh("go tool dstreplay test -wrap . -count=1 -v -dst.iters=3 -dst.dir=off")
	if err != nil || !strings.Contains(out, "3 schedules passed") {
		t.Errorf("a peer process under -wrap: %v; want 3 schedules passed\n%s", err, out)
	}
}
